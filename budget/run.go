package budget

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// alwaysAttempts caps the failures drawn for an always-mode turn: after
// them the provider answers.
const alwaysAttempts = 64

// maxScripted bounds the requests a turn's world scripts: each attempt
// writes at least one event and a turn writes at most eventCeiling, so the
// attempts past this are never made (Validate also bounds a normal-mode
// budget by maxBudgetRetries, which this is far above).
const maxScripted = eventCeiling

// maxBudgetRetries is the largest normal-mode budget a turn can spend
// within its bound on events (eventBound's 16 an attempt under
// eventCeiling): DSH takes any safe integer, but a turn under permanent
// failure with a larger one would be stopped at the bound and reported as
// turn-terminates, a finding about the measurement rather than the policy.
const maxBudgetRetries = eventCeiling/eventsPerAttempt - 1

// eventsPerAttempt is eventBound's allowance of events for one attempt.
const eventsPerAttempt = 16

// Turn is one turn's outcome.
type Turn struct {
	Seed       uint64
	End        string // completed, error or aborted
	Retried    bool   // an llm/retry was written
	Attempts   int
	RecoveryMs float64 // from the first failed attempt to the turn's end; 0 without one
	Violations []oracle.Violation
	// Code and Why say why a turn did not complete: the failure code it
	// ended with (none for an abort), and the reason (whyFailed).
	Code, Why string
	// DurationMs is the virtual time from the turn's start to its end;
	// FirstFailed says its first attempt failed, MetFailure that some did.
	DurationMs              float64
	FirstFailed, MetFailure bool
	// Under a timed environment: when the turn began on the horizon, and
	// whether its first request ran inside an incident.
	Index           int // the turn's place in its run (TraceTurn)
	StartMs         float64
	FirstInIncident bool
	// hitBy are the ids (places in the order drawn) of the incidents that
	// failed any of its attempts, in the order they did.
	hitBy    []int
	finishes int // attempts ended so far, while reading the log
	// blocked says a listener of the author's own blocked outside
	// virtual time in this turn (sim.Result.Blocked): the run stops
	// there with it as its error, since every turn that reaches the
	// listener would wait out the watchdog again.
	blocked *BlockedError
	// refused says the system under test could not be asked this turn
	// (sim.Result.Refused): the run stops there, since every turn of the
	// environment would be refused alike.
	refused string
}

// BlockedError is a run stopped by a listener of the author's own that
// blocked outside virtual time in one of its turns: a finding about the
// listener, not a configuration error. The run's report covers the turns
// before it.
type BlockedError struct {
	// Turn is the turn's number in the run (Turn.Index; -1 for one turn
	// of Config.Turn), Seed its seed; Listener names the listener, and
	// Why says what the world saw.
	Turn     int
	Seed     uint64
	Listener string
	Why      string
}

func (e *BlockedError) Error() string {
	if e.Turn < 0 {
		return fmt.Sprintf("turn seed %#x: %s", e.Seed, e.Why)
	}
	return fmt.Sprintf("turn %d (seed %#x): %s", e.Turn, e.Seed, e.Why)
}

// RefusedError is a run stopped at a turn the system under test
// (Config.System) cannot be asked: the environment asks for what it
// cannot enact (DSH's own loop: a failure code with no wire form), so
// every turn would be refused alike. Why names the fields.
type RefusedError struct {
	Seed uint64
	Why  string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("turn seed %#x: the system under test cannot be asked it: %s", e.Seed, e.Why)
}

// blockedError is the error for a turn whose listener blocked: of a run
// (which numbers its turns), or of one turn (named by its seed).
func (t Turn) blockedError(ofRun bool) error {
	if t.refused != "" {
		return &RefusedError{Seed: t.Seed, Why: t.refused}
	}
	if t.blocked == nil {
		return nil
	}
	e := *t.blocked
	e.Turn, e.Seed = t.Index, t.Seed
	if !ofRun {
		e.Turn = -1
	}
	return &e
}

// Config is what a budget is measured on: the route's policy (nil: none),
// the environment, and request-error listeners of the policy author's own
// beside llm-retry.
type Config struct {
	// Recovery is the route's: its retry policy (nil: none); compaction-
	// basic's settings, when it is installed; and then the order of
	// llm-retry ("retry") and compaction-basic ("compaction"), outermost
	// first (default: retry first).
	sim.Recovery
	Env *Environment
	// Listeners are plugged in beside the built-ins: an Outermost one
	// before them, any other after them (a budget is measured in one
	// fixed order; the seeded swarm is where places are drawn).
	Listeners []sim.Listener
	// BlockedAfter is how long, in real time, a listener of the author's
	// may take to answer before the run stops with a BlockedError
	// (sim.Options.BlockedAfter: 0 is 10 s; below 0, no watchdog, for a
	// listener stopped in a debugger).
	BlockedAfter time.Duration
	// System is the system under test the turns run on (nil: the model;
	// dshloop.System runs them on DSH's own loop). A turn it cannot be
	// asked stops the run with an error naming what it refused.
	System sim.System
}

// Turn runs turn seed under the configuration, checked by the oracle.
// Under a timed environment it runs the turn as if it began at 0 ms of the
// horizon (Run places each turn at its arrival). An invalid configuration
// is an error (Validate).
func (c Config) Turn(seed uint64) (Turn, error) {
	if err := c.Validate(); err != nil {
		return Turn{}, err
	}
	t := c.turn(seed)
	return t, t.blockedError(false)
}

// turn is Turn of a configuration validated.
func (c Config) turn(seed uint64) Turn {
	if c.Env.Timed() {
		return c.timedTurn(newTimeline(c.Env, seed), 0, seed)
	}
	t, _ := c.runTurn(seed, c.turnOutages(seed))
	return t
}

// turnOutages are a per-turn environment's outages, in turn seed's time,
// their Retry-Afters drawn from the seed's "outages" stream (one the
// failures' draws never touch, so adding a Retry-After moves no failure).
func (c Config) turnOutages(seed uint64) []sim.Outage {
	if c.Env == nil {
		return nil
	}
	var out []sim.Outage
	draws := sim.Stream(seed, "outages")
	for _, o := range c.Env.Outages {
		fail := failure(o.Code, o.Status)
		if o.RetryAfterMs != nil {
			fail.ProviderRetryAfterMs = ptr(o.RetryAfterMs.draw(draws.Float64()))
		}
		out = append(out, sim.Outage{FromMs: o.FromMs, ToMs: o.FromMs + o.ForMs, Fail: *fail})
	}
	return out
}

// runTurn runs turn seed with these outages, checked by the oracle.
func (c Config) runTurn(seed uint64, outages []sim.Outage) (Turn, *sim.Result) {
	s, opts := c.world(seed, outages)
	res, vs := judge.Check(s, opts)
	t := Turn{Seed: seed, Attempts: len(res.Requests), Violations: vs, refused: res.Refused}
	if res.Blocked != "" {
		t.blocked = &BlockedError{Listener: res.Blocked, Why: res.Stopped}
	}
	first := -1
	retries := 0
	var last *session.LlmFailure // the latest failed attempt's failure
	for i := range res.Events {
		switch d := res.Events[i].Data.(type) {
		case *session.AssistantChunk:
			if d.Chunk.Type == session.ChunkFinish && t.finishes == 0 {
				t.FirstFailed = d.Chunk.Failed()
			}
			if d.Chunk.Type == session.ChunkFinish {
				t.finishes++
			}
			if d.Chunk.Failed() {
				if first < 0 {
					first = i
					t.MetFailure = true
				}
				last = d.Chunk.Reason.Failure
			}
		case *session.StepStart:
			retries = 0 // budgets are per step: the last step's count
		case *session.LLMRetry:
			t.Retried = true
			retries++
		case *session.TurnEnd:
			t.End = d.Reason.Kind
			t.DurationMs = float64(res.Facts.TimeNs[i]) / 1e6
			if first >= 0 {
				t.RecoveryMs = float64(res.Facts.TimeNs[i]-res.Facts.TimeNs[first]) / 1e6
			}
			if d.Reason.Error != nil {
				t.Code = d.Reason.Error.Code
			}
		}
	}
	t.Why = whyFailed(c.RetryPolicy, t.End, retries, last)
	return t, res
}

// whyFailed is why a turn that did not complete did not, read from its
// last failure and the retries of its last step: the budget spent
// ("exhausted"), or why that failure was not retried (the code is not
// retryable, the provider's Retry-After is over the cap, a budget of 0, no
// policy) with the retries before it, or aborted. "" for a completed turn.
func whyFailed(p *loop.RetryPolicy, end string, retries int, last *session.LlmFailure) string {
	switch {
	case end == session.EndCompleted:
		return ""
	case end != session.EndError:
		return "aborted"
	}
	after := ""
	switch {
	case retries == 1:
		after = " (after 1 retry)"
	case retries > 1:
		after = fmt.Sprintf(" (after %d retries)", retries)
	}
	switch {
	case p == nil:
		return "not retried: no retry policy"
	case last == nil:
		return "ended in error" + after
	case p.Mode == loop.ModeNormal && !slices.Contains(p.RetryableCodes, last.Code):
		return "not retried: code not retryable" + after
	case last.ProviderRetryAfterMs != nil && *last.ProviderRetryAfterMs > p.MaxDelayMs:
		return "not retried: Retry-After over the cap" + after
	case p.Mode == loop.ModeNormal && p.MaxRetries == 0:
		return "not retried: budget 0"
	case p.Mode == loop.ModeNormal && retries >= p.MaxRetries:
		return fmt.Sprintf("exhausted: %d of %d retries", retries, p.MaxRetries)
	}
	return "not retried" + after
}

// world is turn seed's scenario, and the options that install the
// author's listeners in it. Failures are drawn from the seed's own stream
// and jitter from another, so the same seed meets the same failures
// whatever the policy: policies compare on equal terms.
func (c Config) world(seed uint64, outages []sim.Outage) (*sim.Scenario, sim.Options) {
	p, env := c.RetryPolicy, c.Env
	if env == nil {
		env = &Environment{}
	}
	draws := sim.Stream(seed, "failures")
	attempts := alwaysAttempts
	if p != nil && p.Mode == loop.ModeNormal {
		attempts = p.MaxRetries + 1
	}
	s := &sim.Scenario{Name: fmt.Sprintf("budget-%#x", seed), Provider: "mock", Model: "mock-model", ContextWindow: 128000,
		Recovery: sim.Recovery{RetryPolicy: p, ListenerOrder: []string{sim.ListenerRetry}}, Seed: &seed, StreamIdleTimeoutMs: 300000,
		MaxEvents: 10000, Inputs: []sim.Input{{Kind: "send", Text: "hello", Trigger: sim.Trigger{Nth: 1}}}}
	// Each step's attempts draw, in this order: the burst state's step,
	// the failure, its Retry-After, the latency; failures until one
	// attempt succeeds or the policy's attempts are used up, then the
	// step's answer (a tool call before the last step, text at the end).
	bad := false
	draw := func() sim.Outcome {
		failures := env.Failures
		if b := env.Bursts; b != nil {
			u := draws.Float64()
			if bad && u < b.PBadToGood || !bad && u < b.PGoodToBad {
				bad = !bad
			}
			if bad {
				failures = b.Failures
			}
		}
		var out sim.Outcome
		for _, f := range failures {
			if draws.Float64() < f.P {
				out.Fail = failure(f.Code, f.Status)
				if f.RetryAfterMs != nil {
					out.Fail.ProviderRetryAfterMs = ptr(f.RetryAfterMs.draw(draws.Float64()))
				}
				break
			}
		}
		if env.LatencyMs != nil {
			out.LatencyMs = env.LatencyMs.draw(draws.Float64())
		}
		return out
	}
	steps := 1
	result := "" // one string for every step's result: they are the same
	if w := env.Workload; w != nil {
		steps += w.ToolSteps
		if w.ContextWindow > 0 {
			s.ContextWindow, s.EnforceContextWindow = w.ContextWindow, true
		}
		if w.ToolSteps > 0 {
			result = strings.Repeat("x", w.ResultChars)
		}
	}
	for step := range steps {
		out := draw()
		for a := 1; out.Fail != nil && a < attempts && len(s.Requests)+1 < maxScripted; a++ {
			s.Requests = append(s.Requests, out)
			out = draw()
		}
		if out.Fail != nil { // every attempt the policy allows failed
			s.Requests = append(s.Requests, out)
			break
		}
		if step < steps-1 {
			out.ToolCalls = []sim.ToolCallSpec{{Name: "read", Arguments: fmt.Sprintf(`{"path":"notes-%d.md"}`, step+1),
				Result: result}}
		} else {
			out.Text = ptr("ok")
		}
		s.Requests = append(s.Requests, out)
	}
	if c.Compaction != nil {
		s.Compaction = c.Compaction
		s.ListenerOrder = c.Order()
	}
	s.Outages = outages
	s.MaxEvents = eventBound(p, outages, len(s.Requests), steps)
	opts := sim.Options{Listeners: c.Listeners, BlockedAfter: c.BlockedAfter, System: c.System}
	if len(c.Listeners) > 0 {
		base := []string{sim.ListenerRetry}
		if c.Compaction != nil {
			base = c.Order()
		}
		s.ListenerOrder = sim.Order(base, c.Listeners, sim.Innermost)
	}
	if planner, ok := c.System.(faults.Planner); ok {
		s = planner.Plan(s) // the turn as that system enacts it, measured and traced alike
	}
	return s, opts
}

// eventCeiling is the most events a turn may write (eventBound).
const eventCeiling = 500_000

// eventBound bounds a turn's events by what its policy can do. A turn
// under an outage retries as often as the policy's shortest wait allows
// while the outage lasts — an always-mode policy with a 1 s cap riding a
// two-hour outage makes thousands of attempts, and the fixed 10,000
// events once stopped it and reported turn-terminates — and a normal-mode
// policy no more than its budget a step. Sixteen events an attempt is a
// wide margin (a failed attempt and its retry write about six). The floor
// stays where nothing bounds the retries: waits that take no time
// (initialDelayMs 0), an outage that never ends (as long as a hundred
// days: a per-turn environment's way of saying "permanent"), a listener
// of one's own that retries without waiting — a turn that would retry
// without end, which is what turn-terminates is for.
func eventBound(p *loop.RetryPolicy, outages []sim.Outage, scripted, steps int) int {
	const floor, perAttempt, ceiling, permanent = 10_000, eventsPerAttempt, eventCeiling, 100 * 24 * 3600e3
	if p == nil {
		return floor
	}
	shortest := min(min(p.InitialDelayMs, p.MaxDelayMs)*(1-p.JitterRatio), p.MaxDelayMs)
	if !(shortest > 0) {
		return floor
	}
	attempts := 0.0
	for _, o := range outages {
		if o.ToMs-o.FromMs >= permanent {
			return floor
		}
		attempts += (o.ToMs-o.FromMs)/shortest + 1
	}
	if p.Mode == loop.ModeNormal {
		attempts = min(attempts, float64(steps*(p.MaxRetries+1)))
	}
	return int(min(max(floor, perAttempt*(attempts+float64(scripted))), ceiling))
}

func failure(code string, status int) *session.LlmFailure {
	f := &session.LlmFailure{Code: code, Message: "injected " + code}
	if status > 0 {
		f.Status = ptr(status)
	}
	return f
}

func ptr[T any](v T) *T { return &v }

// Report is what a policy bought over many turns.
type Report struct {
	Turns, Completed, Exhausted, FailedAtOnce, Aborted int
	// Exhaustion is the share of turns that ended in error, with its 95%
	// Wilson interval.
	Exhaustion, ExhaustionLo, ExhaustionHi float64
	// Attempts counts turns by their number of requests (index 0 unused).
	Attempts []int
	// RecoveryMs are the percentiles of recovery time over the turns that
	// had a failure.
	RecoveryP50, RecoveryP90, RecoveryP99, RecoveryMax float64
	// RecoveryHistogram counts those turns in equal bins up to the max.
	RecoveryHistogram []Bin
	// BoundLo, BoundHi are RecoveryBounds (BoundHi is +Inf in always mode).
	BoundLo, BoundHi float64
	// Amplification is requests per turn over the fault-free world's (one
	// per step).
	Amplification float64
	// Violations are the turns the oracle failed.
	Violations []Turn
	// Failures break down the turns that did not complete by failure code
	// and reason, the most frequent first.
	Failures []FailureRow
	// Interrupted says the run stopped before the turns it was asked for:
	// Turns is then the number it ran, and every figure is over those.
	Interrupted bool
	// Timeline is what a timed environment's horizon held (nil for a
	// per-turn environment); its design effect widens the exhaustion
	// interval above.
	Timeline *TimelineReport
	// FailedTurns are the first few turns (Turn.Index) that did not
	// complete, for TraceTurn.
	FailedTurns []int
	// MetFailure counts the turns the recovery figures cover: those with
	// a failed attempt (or an error end).
	MetFailure int
}

// failedTurnsNamed is how many failed turns a report names.
const failedTurnsNamed = 10

// Run runs turns seed … seed+runs-1 under the configuration and reports.
// It stops early when ctx ends: between turns, or while a horizon's
// arrivals and incidents are drawn; the report, marked Interrupted, then
// covers the turns run. Under a timed environment the
// turns are those that arrive over its horizon, drawn from seed (turn i
// on seed seed+i), and runs is not read; otherwise runs must be at least
// 1 (a run of no turn measures nothing, and every bound would hold). An
// invalid configuration is an error (Validate), and nothing runs.
func (c Config) Run(ctx context.Context, seed uint64, runs int) (Report, error) {
	stopped := func() bool { return ctx.Err() != nil }
	if err := c.Validate(); err != nil {
		return Report{}, err
	}
	if c.Env.Timed() {
		return c.runHorizon(seed, stopped)
	}
	if runs < 1 {
		return Report{}, fmt.Errorf("runs: a run measures at least 1 turn, got %d", runs)
	}
	var tally tally
	for i := range runs {
		if stopped != nil && stopped() {
			tally.interrupted = true
			break
		}
		t := c.turn(seed + uint64(i))
		t.Index = i
		if err := t.blockedError(true); err != nil {
			// The turns before it stand, as after an interrupt.
			tally.interrupted = true
			return tally.report(c), err
		}
		tally.add(t)
	}
	return tally.report(c), nil
}

// tally adds turns up into a report.
type tally struct {
	r           Report
	recovery    []float64
	requests    int
	interrupted bool
}

func (a *tally) add(t Turn) {
	r := &a.r
	r.Turns++
	switch {
	case t.End == session.EndCompleted:
		r.Completed++
	case t.End == session.EndError && t.Retried:
		r.Exhausted++
	case t.End == session.EndError:
		r.FailedAtOnce++
	default:
		r.Aborted++
	}
	if len(r.Attempts) < 2 {
		r.Attempts = make([]int, 2)
	}
	for len(r.Attempts) <= t.Attempts {
		r.Attempts = append(r.Attempts, 0)
	}
	r.Attempts[t.Attempts]++
	a.requests += t.Attempts
	// Recovery is over the turns that met a failure. (A turn's attempts
	// once stood for that, which a workload's steps made every turn's:
	// turns without a failure filled the histogram at 0 ms and pulled p99
	// down.)
	if t.MetFailure || t.End == session.EndError {
		a.recovery = append(a.recovery, t.RecoveryMs)
		r.MetFailure++
	}
	if len(t.Violations) > 0 {
		r.Violations = append(r.Violations, t)
	}
	if t.Why != "" {
		r.Failures = countFailure(r.Failures, t.Code, t.Why)
	}
	if t.End != session.EndCompleted && len(r.FailedTurns) < failedTurnsNamed {
		r.FailedTurns = append(r.FailedTurns, t.Index)
	}
}

// report is the figures over the turns added.
func (a *tally) report(c Config) Report {
	r := a.r
	if r.Attempts == nil {
		r.Attempts = make([]int, 2)
	}
	r.Interrupted = a.interrupted
	slices.SortStableFunc(r.Failures, func(a, b FailureRow) int {
		if a.Turns != b.Turns {
			return b.Turns - a.Turns
		}
		return strings.Compare(a.Code+"\x00"+a.Why, b.Code+"\x00"+b.Why)
	})
	runs := r.Turns
	errors := r.Exhausted + r.FailedAtOnce
	r.Exhaustion = float64(errors) / float64(max(runs, 1))
	r.ExhaustionLo, r.ExhaustionHi = wilson(float64(errors), float64(runs), 1.96)
	rec := sorted(a.recovery)
	r.RecoveryHistogram = histogram(rec, 20)
	r.RecoveryP50, r.RecoveryP90, r.RecoveryP99 = percentile(rec, 0.5), percentile(rec, 0.9), percentile(rec, 0.99)
	if len(rec) > 0 {
		r.RecoveryMax = rec[len(rec)-1]
	}
	r.BoundLo, r.BoundHi, _ = RecoveryBounds(c.RetryPolicy)
	steps := 1
	if c.Env != nil && c.Env.Workload != nil {
		steps += c.Env.Workload.ToolSteps
	}
	r.Amplification = float64(a.requests) / float64(max(runs, 1)*steps)
	return r
}

// FailureRow is how many turns ended with one code for one reason.
type FailureRow struct {
	Code  string `json:"code"`
	Why   string `json:"why"`
	Turns int    `json:"turns"`
}

// countFailure adds a turn to its row (a handful of rows: a linear look).
func countFailure(rows []FailureRow, code, why string) []FailureRow {
	for i := range rows {
		if rows[i].Code == code && rows[i].Why == why {
			rows[i].Turns++
			return rows
		}
	}
	return append(rows, FailureRow{Code: code, Why: why, Turns: 1})
}
