package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// TurnGapMs spaces the workload's turns in virtual time: turn k's prompt
// arrives at k × TurnGapMs.
const TurnGapMs = 30_000

// Draw draws a seed's configuration and fault plan. The plan is a
// scenario: the model's answers with their faults, the summarizer's, the
// user's messages, the world's actions and the outages.
func Draw(seed uint64, o Overrides) (*Config, *sim.Scenario) { return DrawIn(nil, seed, o) }

// DrawIn is Draw in a worker's Drawing (nil: one of the plan's own): the
// plan is read until the Drawing's next draw.
func DrawIn(d *Drawing, seed uint64, o Overrides) (*Config, *sim.Scenario) {
	if d == nil {
		d = &Drawing{}
	}
	d.reset()
	c := drawConfig(d, seed, o)
	s := d.newScenario()
	*s = sim.Scenario{Name: "seed-0x" + strconv.FormatUint(seed, 16), Provider: "mock", Model: "mock-model", ContextWindow: 128000,
		Recovery: sim.Recovery{RetryPolicy: c.RetryPolicy, ListenerOrder: c.ListenerOrder}, StreamIdleTimeoutMs: c.StreamIdleTimeoutMs}
	s.Seed = d.seedOf(seed)
	if c.Compaction != nil {
		s.Compaction = d.plannedCompaction(*c.Compaction)
	}
	if c.has(NaturalOverflow) {
		s.EnforceContextWindow = true
		s.ContextWindow = 600 + 400*c.Turns*(c.ToolSteps+1)
	}
	drawRequests(d, c, s, d.stream(faultsStream, seed, "faults"))
	drawWorld(d, c, s, o, d.stream(worldStream, seed, "world"))
	if len(o.Listeners) > 0 {
		drawPlugins(c, s, o, stream(seed, "listeners"))
	}
	s.MaxEvents = eventBound(c, s, o.Listeners)
	keep(&d.requests, s.Requests)
	keep(&d.inputs, s.Inputs)
	keep(&d.world, s.World)
	keep(&d.outages, s.Outages)
	keep(&d.kinds, c.Kinds)
	return c, s
}

// eventBound is the run's bound, derived from the plan and the budgets:
// every planned answer, input and action may cost a few dozen events; an
// outage costs the attempts made during it. A step may retry as often as
// the budgets of its listeners allow together: the route's policy's (in
// normal mode; always mode has none, and makes the outage's length over
// the backoff cap, times four as jitter may shorten waits) and each
// plugged listener's. A plugged listener without a budget is allowed one
// attempt a millisecond of outage: one that waits not even that long
// retries without end, which is what turn-terminates is for. (Found by the
// second sweep: a listener of no budget riding an outage was stopped by
// the bound and reported turn-terminates.)
func eventBound(c *Config, s *sim.Scenario, plugged []sim.Listener) int {
	bound := 400 + 60*(len(s.Requests)+len(s.Inputs)+len(s.World)+len(s.Summaries))
	perStep, unbounded := 8, false
	if p := c.RetryPolicy; p != nil && p.Mode != "always" {
		perStep = max(perStep, p.MaxRetries+1)
	}
	for _, l := range plugged {
		if l.MaxRetries == sim.Unbounded {
			unbounded = true
			continue
		}
		perStep += max(l.MaxRetries, 0) + 1
	}
	for _, o := range s.Outages {
		attempts := c.Turns * (c.ToolSteps + 1) * perStep
		if p := c.RetryPolicy; p != nil && p.Mode == "always" {
			attempts += 4 * int((o.ToMs-o.FromMs)/max(p.MaxDelayMs, 1))
		}
		if unbounded {
			attempts += int(o.ToMs - o.FromMs)
		}
		bound += 6 * attempts
	}
	return bound
}

// prompt is long enough for a summary to be smaller than it.
const prompt = "Work through the task in steps, using tools where they help. The task: read the notes, summarize what they say about retries, compaction and cancellation, and list the open questions. "

// drawRequests lays out the workload's answers, each preceded by a run of
// faults of the enabled kinds.
func drawRequests(d *Drawing, c *Config, s *sim.Scenario, rng *randStream) {
	enabled := room(&d.enabled, len(requestFaults))
	for _, k := range requestFaults {
		if c.has(k) {
			enabled = append(enabled, k)
		}
	}
	keep(&d.enabled, enabled)
	latency := func() float64 {
		if !c.has(Latency) {
			return 0
		}
		return float64(intn(rng, 0, 300))
	}
	// Room for each step's answer and a fault or two before it.
	s.Requests = room(&d.requests, 2*c.Turns*(c.ToolSteps+1))
	// Room for the turns' inputs and a late one or two (drawInputs).
	s.Inputs = room(&d.inputs, c.Turns+2)
	for turn := 0; turn < c.Turns; turn++ {
		in := sim.Input{Kind: "followup", Text: turnPrompts.of(turn + 1), Trigger: sim.Trigger{AtMs: float64(turn * TurnGapMs), Nth: 1}}
		if turn == 0 {
			in.Kind = "send"
		}
		s.Inputs = append(s.Inputs, in)
		for step := 0; step <= c.ToolSteps; step++ {
			for len(enabled) > 0 && rng.Rng.Float64() < c.FaultRate {
				s.Requests = append(s.Requests, faultOutcome(d, c, rng, enabled[rng.Rng.Intn(len(enabled))], latency()))
				if rng.Rng.Intn(2) == 0 {
					break // runs of faults are short, mostly
				}
			}
			answer := sim.Outcome{LatencyMs: latency()}
			if step < c.ToolSteps {
				answer.ToolCalls = d.toolCall(sim.ToolCallSpec{Name: "read", Arguments: readArguments.of(step + 1),
					Result: resultText(c.ResultChars), LatencyMs: latency()})
			} else {
				answer.Text = answers.ptr(turn + 1)
			}
			s.Requests = append(s.Requests, answer)
		}
	}
	if c.has(SummaryFail) {
		// The summarizer throws, overflows (a summary no smaller than what
		// it replaces), or answers; slowly when latency is on, so that a
		// cancel can land inside summarization.
		for i := 0; i < 2; i++ {
			out := sim.SummaryOutcome{LatencyMs: latency()}
			switch rng.Rng.Intn(3) {
			case 0:
				msg := "summary unavailable"
				out.Fail = &msg
			case 1:
				text := resultText(6000)
				out.Text = &text
			default:
				text := "The notes were condensed."
				out.Text = &text
			}
			s.Summaries = append(s.Summaries, out)
		}
	}
}

// intn draws an int in [lo, hi] straight from a stream: the per-request
// draws, the bulk of a plan, skip the generators (a value boxed per
// draw); the configuration and the world are drawn through them.
func intn(rng *randStream, lo, hi int) int { return lo + rng.Rng.Intn(hi-lo+1) }

// Generators used on every world draw, built once.
var (
	nthGen     = ints(1, 3)
	busyGen    = ints(0, 3000)
	plusGen    = weighted([]weightedGen{{Weight: 3, Gen: intRange(1, 50)}, {Weight: 1, Gen: intRange(51, 1000)}})
	eventGen   = recoveryWeighted(eventTypes)
	causeGen   = oneConstOf(session.CauseUser, session.CauseParent, session.CauseHook, session.CauseDisposed)
	inputGen   = oneConstOf("followup", "steer", "inject")
	disposeGen = oneConstOf("dispose", "dispose-retry")
	outageGen  = oneConstOf(100, 1000, 5000, 20000)
	coin       = boolean()
	unit       = newFloat64s(0, 1)
)

// ResultLine is the line tool results are made of: a result of n
// characters is the first n of it repeated.
const ResultLine = "notes: retries stay in the same turn and step; compaction replaces old history.\n"

// resultText is n characters of tool output: a prefix of one long string
// built once (a run's tool results were a twentieth of its allocated bytes).
func resultText(n int) string {
	if n > len(longResult) {
		return strings.Repeat(ResultLine, n/len(ResultLine)+1)[:n]
	}
	return longResult[:n]
}

// numbered is a text with a number in it, made once for the numbers up
// to tabled: a run draws one for each turn or step, and formatting them
// again was a tenth of drawing a plan.
type numbered struct {
	text  func(i int) string
	table []string
}

// tabled covers the turns and steps of every drawn plan.
const tabled = 16

func newNumbered(text func(i int) string) numbered {
	n := numbered{text: text, table: make([]string, tabled+1)}
	for i := range n.table {
		n.table[i] = text(i)
	}
	return n
}

// of is the text of number i.
func (n numbered) of(i int) string {
	if i >= 0 && i < len(n.table) {
		return n.table[i]
	}
	return n.text(i)
}

// ptr is a pointer to the text of number i: the table's own, shared by
// every plan that draws it (a plan's texts are read, never written
// through).
func (n numbered) ptr(i int) *string {
	if i >= 0 && i < len(n.table) {
		return &n.table[i]
	}
	text := n.text(i)
	return &text
}

// The workload's numbered texts.
var (
	turnPrompts   = newNumbered(func(i int) string { return fmt.Sprintf("%s (turn %d)", prompt, i) })
	readArguments = newNumbered(func(i int) string { return fmt.Sprintf(`{"path":"notes-%d.md"}`, i) })
	answers       = newNumbered(func(i int) string { return fmt.Sprintf("Answer to turn %d.", i) })
)

// longResult covers the longest result drawn (3,000 characters) and the
// overflowing summary (6,000).
var longResult = strings.Repeat(ResultLine, 6000/len(ResultLine)+1)

// faultOutcome is one failing answer of a kind.
func faultOutcome(d *Drawing, c *Config, rng *randStream, kind string, latency float64) sim.Outcome {
	status := d.status
	f := d.newFailure()
	switch kind {
	case Server:
		code := []int{500, 502, 503, 529}[rng.Rng.Intn(4)]
		f.Code, f.Status = "SERVER", status(code)
		f.Message = upstreamMessages[code]
	case RateLimit, RateLimitOverCap:
		f.Code, f.Status, f.Message = "RATE_LIMIT", status(429), "rate limited"
		capMs := 10_000.0
		if c.RetryPolicy != nil {
			capMs = c.RetryPolicy.MaxDelayMs
		}
		switch {
		case kind == RateLimitOverCap:
			f.ProviderRetryAfterMs = d.retryAfter(capMs + 1000)
		case rng.Rng.Intn(2) == 0:
			f.ProviderRetryAfterMs = d.retryAfter(float64(intn(rng, 1, int(max(capMs, 1)))))
		}
	case Auth:
		f.Code, f.Status, f.Message = "AUTH", status([]int{401, 403}[rng.Rng.Intn(2)]), "invalid api key sk-test"
	case Overflow:
		f.Code, f.Status, f.Message = "CONTEXT_WINDOW_EXCEEDED", status(400), "maximum context length exceeded"
	case Timeout:
		f.Code, f.Message = "TIMEOUT", "stream idle timeout"
	case Transport:
		f.Code, f.Message = "TRANSPORT", "connection reset"
	case EmptyResponse:
		f.Code, f.Message = "EMPTY_RESPONSE", "model returned a completed response with no content"
	case StreamClosed:
		f.Code, f.Message = "STREAM_CLOSED", "SSE stream ended without [DONE]"
	case InvalidRequest:
		f.Code, f.Status, f.Message = "INVALID_REQUEST", status(400), "invalid request"
	case Quota:
		f.Code, f.Status, f.Message = "QUOTA", status(429), "insufficient quota"
	case Custom:
		f.Code, f.Message = "PROVIDER_MAINTENANCE", "the provider is under maintenance"
	case Hang:
		return sim.Outcome{Hang: true, LatencyMs: latency}
	}
	out := sim.Outcome{Fail: f, LatencyMs: latency}
	if c.has(Partial) && rng.Rng.Intn(2) == 0 {
		out.AfterChunks = intn(rng, 1, 4)
		if rng.Rng.Intn(2) == 0 {
			out.Stream = &sim.Outcome{ToolCalls: []sim.ToolCallSpec{{Name: "bash", Arguments: `{"command":"make"}`, Result: "ok"}}}
		}
	}
	return out
}

// eventTypes are the choice points world actions are placed after.
var eventTypes = []string{session.TypeTurnStart, session.TypeStepStart, session.TypeAssistantChunk, session.TypeAssistantMessage,
	session.TypeToolCall, session.TypeLLMRetry, session.TypeLLMRetryStarted, session.TypeCompactionStart,
	session.TypeCompactionEnd, session.TypeStepEnd, session.TypeInboxSpliced, session.TypeRequestHeader}

// recoveryPoints are the choice points where recovery races live: a
// cancel right after them lands inside a listener's decision, a backoff
// wait or a summarization (after compaction/end, compaction-basic has
// decided retry and not yet returned it). compaction/summary is no choice
// point: the compaction's commit is atomic. They are drawn three times as often as the
// others, so a bug that needs one is found in hundreds of seeds, not
// thousands.
var recoveryPoints = []string{session.TypeLLMRetry, session.TypeLLMRetryStarted, session.TypeCompactionStart, session.TypeCompactionEnd,
	sim.AfterListenerWait, sim.AfterModelCall}

// EventTypes are the choice points the model's world actions are aimed at.
func EventTypes() []string { return slices.Clone(eventTypes) }

func recoveryWeighted(types []string) generator {
	var gens []weightedGen
	for _, t := range types {
		w := 1
		if slices.Contains(recoveryPoints, t) {
			w = 3
		}
		gens = append(gens, weightedGen{Weight: w, Gen: constant(t)})
	}
	return weighted(gens)
}

// drawWorld places the world's actions: cancels, disposals, late inputs
// and outages, at virtual times or right after events.
func drawWorld(d *Drawing, c *Config, s *sim.Scenario, o Overrides, rng *randStream) {
	horizon := float64(c.Turns * TurnGapMs)
	points := eventGen
	if o.Points != nil {
		points = recoveryWeighted(o.Points)
	}
	trigger := func() sim.Trigger {
		if draw[bool](rng, coin) {
			if draw[bool](rng, coin) {
				// A turn is busy for its first seconds (latency, backoff
				// waits, summarization) and idle for the rest of its gap:
				// aim half of the timed actions at the busy part.
				turn := ints(0, c.Turns-1).drawInt(rng)
				return sim.Trigger{AtMs: float64(turn*TurnGapMs + busyGen.drawInt(rng)), Nth: 1}
			}
			return sim.Trigger{AtMs: float64(ints(0, int(horizon)).drawInt(rng)), Nth: 1}
		}
		t := sim.Trigger{After: draw[string](rng, points), Nth: nthGen.drawInt(rng)}
		if draw[bool](rng, fifthGen) {
			// Somewhere inside what follows the event: a backoff wait,
			// a summarization, a slow stream.
			t.PlusMs = float64(drawInt(rng, plusGen))
		}
		return t
	}
	count := func(maximum int) int {
		n := 0
		for n < maximum && unit.draw(rng) < c.ActionRate*0.5 {
			n++
		}
		return n
	}
	if c.has(Cancel) {
		for i := count(2); i > 0; i-- {
			cause := causeOf(draw[string](rng, causeGen))
			appendTo(&d.world, &s.World, sim.Action{Do: "cancel", Cause: cause, KeepInbox: draw[bool](rng, coin), Trigger: trigger()})
		}
	}
	if c.has(Dispose) && count(1) > 0 {
		appendTo(&d.world, &s.World, sim.Action{Do: draw[string](rng, disposeGen), Trigger: trigger()})
	}
	if c.has(LateInput) {
		for i := count(2); i > 0; i-- {
			kind := draw[string](rng, inputGen)
			s.Inputs = append(s.Inputs, sim.Input{Kind: kind, Text: d.lateText(kind, len(s.Inputs)+1), Trigger: trigger()})
		}
	}
	if c.has(Outage) && count(1) > 0 {
		from := float64(ints(0, int(horizon)).drawInt(rng))
		length := float64(draw[int](rng, outageGen))
		if p := c.RetryPolicy; p != nil && p.Mode == "always" {
			// Always mode retries through an outage: keep it to a
			// hundred backoff caps, so a run stays a few hundred attempts.
			length = min(length, 100*max(p.MaxDelayMs, 1))
		}
		appendTo(&d.outages, &s.Outages, sim.Outage{FromMs: from, ToMs: from + length,
			Fail: session.LlmFailure{Code: "SERVER", Message: "provider outage", Status: d.status(503)}})
	}
}

func ptr[T any](v T) *T { return &v }

// LateText is the text of a late input, the nth input of the plan, as a
// seed draws it; shrinking gives it back to a late input whose words the
// failure does not need.
func LateText(kind string, n int) string { return fmt.Sprintf("a late %s (%d)", kind, n) }

// drawPlugins places the listeners plugged in from outside (a policy
// author's, a mutant's) and aims the world at their waits, from a stream
// of their own: a seed without them draws what it always drew. Each one
// placed Anywhere goes first half the time (it then meets every failure)
// and to a drawn place among the others otherwise (it then also sees what
// llm-retry and compaction-basic pass on); and three seeds in four cancel
// inside a wait some listener begins — the race a listener's own sleep is
// likeliest to lose, and one no event marks when the listener logs
// nothing.
func drawPlugins(c *Config, s *sim.Scenario, o Overrides, rng *randStream) {
	order := slices.Clone(c.ListenerOrder)
	outer := 0
	for _, l := range o.Listeners {
		switch l.Place {
		case sim.Outermost:
			order = slices.Insert(order, outer, l.Name)
			outer++
		case sim.Innermost:
			order = append(order, l.Name)
		default:
			// Outermost half the time: where it meets every failure
			// before llm-retry can own it.
			at := outer
			if draw[bool](rng, coin) {
				at = ints(outer, len(order)).drawInt(rng)
			}
			order = slices.Insert(order, at, l.Name)
		}
	}
	c.ListenerOrder, s.ListenerOrder = order, order
	// Half the seeds give each listener a run of one of its codes longer
	// than its budget, in one step: a budget is only tested by a failure
	// that outlasts it.
	for _, l := range o.Listeners {
		if !draw[bool](rng, coin) {
			continue
		}
		codes := l.Codes
		if len(codes) == 0 {
			codes = providerCodes
		}
		code := codes[ints(0, len(codes)-1).drawInt(rng)]
		n := 3
		if l.MaxRetries >= 0 {
			n = l.MaxRetries + 2
		}
		at := ints(0, len(s.Requests)).drawInt(rng)
		burst := make([]sim.Outcome, n)
		for i := range burst {
			burst[i] = sim.Outcome{Fail: codeFailure(code)}
		}
		s.Requests = slices.Insert(s.Requests, at, burst...)
	}
	s.MaxEvents = eventBound(c, s, o.Listeners)
	if o.Kinds != nil && !slices.Contains(o.Kinds, Cancel) {
		return
	}
	if !draw[bool](rng, fourthGen) {
		cause := causeOf(draw[string](rng, causeGen))
		s.World = append(s.World, sim.Action{Do: "cancel", Cause: cause,
			Trigger: sim.Trigger{After: sim.AfterListenerWait, Nth: draw[int](rng, waitNthGen), PlusMs: float64(drawInt(rng, plusGen))}})
		if !c.has(Cancel) {
			c.Kinds = append(c.Kinds, Cancel)
			slices.SortFunc(c.Kinds, func(a, b string) int { return slices.Index(Kinds, a) - slices.Index(Kinds, b) })
		}
		s.MaxEvents = eventBound(c, s, o.Listeners)
	}
}

// waitNthGen is which listener wait a cancel lands in: mostly the first,
// where the wait of the listener placed first is.
var waitNthGen = weighted([]weightedGen{{Weight: 3, Gen: constant(1)}, {Weight: 1, Gen: constant(2)}})

// providerCodes are the codes a provider fails with, for a listener that
// names none of its own.
var providerCodes = []string{"SERVER", "RATE_LIMIT", "TIMEOUT", "TRANSPORT", "EMPTY_RESPONSE", "STREAM_CLOSED", "AUTH", "QUOTA", "INVALID_REQUEST"}

// codeFailure is a failure of a code, with the HTTP status DSH's adapter
// derives it from where it has one.
func codeFailure(code string) *session.LlmFailure {
	f := &session.LlmFailure{Code: code, Message: "injected " + code}
	if st, ok := codeStatuses[code]; ok {
		f.Status = &st
	}
	return f
}

// codeStatuses are the HTTP statuses of the codes that have one.
var codeStatuses = map[string]int{"SERVER": 503, "RATE_LIMIT": 429, "QUOTA": 429, "AUTH": 401, "INVALID_REQUEST": 400, "CONTEXT_WINDOW_EXCEEDED": 400}

// causeOf is a cancel's cause of a kind; a hook's carries its reason.
func causeOf(kind string) session.Cause {
	c := session.Cause{Kind: kind}
	if kind == session.CauseHook {
		c.Reason = "a pre-step hook stopped the turn"
	}
	return c
}

// upstreamMessages are a SERVER failure's messages, by status.
var upstreamMessages = map[int]string{500: "upstream 500", 502: "upstream 502", 503: "upstream 503", 529: "upstream 529"}
