package conformance

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/serve"
	"github.com/turnsim/turnsim/sim"
)

// WireKinds are the fault kinds the fake provider's wire and the web host's
// API can express: not custom codes (no wire form), disposal, outages (no
// counterpart on the wire), a listener that throws, or natural overflow
// (the provider does not count DSH's tokens).
var WireKinds = []string{faults.Server, faults.RateLimit, faults.RateLimitOverCap, faults.Auth, faults.Overflow,
	faults.Timeout, faults.Transport, faults.EmptyResponse, faults.StreamClosed, faults.InvalidRequest, faults.Quota,
	faults.Partial, faults.Hang, faults.Latency, faults.Cancel, faults.LateInput, faults.SummaryFail}

// SeedPlan is seed's plan for a run against DSH: drawn by simrun run's
// generators with the kinds restricted to WireKinds, then put in the
// vocabulary of the wire and the web API (OnTheWire), then made certain
// (inputs and cancels whose landing in DSH is not certain are dropped,
// one at a time, the earliest first). Notes say what was changed.
func SeedPlan(seed uint64) (*faults.Config, *sim.Scenario, []string) {
	c, s := faults.Draw(seed, faults.Overrides{Kinds: WireKinds})
	s, notes := OnTheWire(s)
	s.Name = fmt.Sprintf("dsh-seed-%#x", seed)
	for {
		problems := Uncertain(s)
		if len(problems) == 0 {
			break
		}
		field := strings.SplitN(problems[0].Error(), ":", 2)[0]
		notes = append(notes, "dropped "+field+": its landing in DSH is not certain")
		s = without(s, field)
	}
	return c, s, notes
}

// without is the scenario without one input or world action, named by its
// field.
func without(s *sim.Scenario, field string) *sim.Scenario {
	c := *s
	var i int
	switch {
	case strings.HasPrefix(field, "inputs["):
		fmt.Sscanf(field, "inputs[%d]", &i)
		c.Inputs = slices.Delete(slices.Clone(s.Inputs), i, i+1)
	default:
		fmt.Sscanf(field, "world[%d]", &i)
		c.World = slices.Delete(slices.Clone(s.World), i, i+1)
	}
	return &c
}

// The wire's wordings of DSH's DeepSeek adapter (0.1.0-rc.8), for the
// failures whose message the provider does not choose. The address is the
// skeleton's placeholder: it is normalized on both sides.
const (
	wireRequestFailed = "DeepSeek API request to http://127.0.0.1:1 failed"
	wireStreamFailed  = "DeepSeek API stream from http://127.0.0.1:1 failed"
	wireStreamClosed  = "SSE stream ended without [DONE]"
)

// OnTheWire is a plan as DSH can meet it, with notes on what changed:
//   - a retry policy with jitter 0 (DSH draws jitter from Math.random), DSH's
//     default for a plan without one (a DSH route always has one); llm-retry
//     outermost, as DSH's composition registers it;
//   - each failure as DSH derives it from the wire: TIMEOUT is a stall past
//     the idle watchdog (a hang), TRANSPORT and STREAM_CLOSED carry the
//     adapter's wording, an empty response is an empty completion, an HTTP
//     status comes before any chunk, Retry-After is whole seconds; a first
//     token later than the idle watchdog is a timeout in DSH, so latencies
//     stay under it;
//   - tool calls are DSH's bash tool printing the scripted result (with the
//     scripted latency as a sleep);
//   - turn k's prompt follows turn k's end rather than a 30-second gap, and
//     timed inputs and cancels are placed from their turn's start;
//   - cancels are the web host's (cause user, keeping the inbox); injects
//     are dropped (the web API has none).
func OnTheWire(in *sim.Scenario) (*sim.Scenario, []string) {
	s := *in
	var notes []string
	if s.RetryPolicy == nil {
		s.RetryPolicy = retry.DefaultPolicy()
		notes = append(notes, "no retry policy: DSH's default")
	}
	p := *s.RetryPolicy
	p.JitterRatio = 0
	s.RetryPolicy = &p
	s.ListenerOrder = []string{sim.ListenerRetry, sim.ListenerCompaction}
	s.Requests = make([]sim.Outcome, len(in.Requests))
	for i, r := range in.Requests {
		s.Requests[i] = outcomeOnTheWireViaBash(r, s.StreamIdleTimeoutMs)
	}
	s.Inputs, s.World = nil, nil
	for i, input := range in.Inputs {
		switch {
		case i == 0:
			s.Inputs = append(s.Inputs, input)
		case input.Kind == "inject":
			notes = append(notes, fmt.Sprintf("dropped inputs[%d]: the web API has no inject", i))
		case input.Kind == "followup" && input.After == "" && math.Mod(input.AtMs, faults.TurnGapMs) == 0:
			// A workload prompt: after the previous turn's end.
			input.Trigger = sim.Trigger{After: session.TypeTurnEnd, Nth: int(input.AtMs / faults.TurnGapMs), PlusMs: Margin + 50}
			s.Inputs = append(s.Inputs, input)
		default:
			input.Trigger = fromTurnStart(input.Trigger)
			s.Inputs = append(s.Inputs, input)
		}
	}
	for _, a := range in.World {
		a.Cause, a.KeepInbox = session.Cause{Kind: session.CauseUser}, true
		a.Trigger = fromTurnStart(a.Trigger)
		s.World = append(s.World, a)
	}
	return &s, notes
}

// fromTurnStart places a timed trigger from the start of its turn of the
// workload (turns no longer sit 30 s apart).
func fromTurnStart(t sim.Trigger) sim.Trigger {
	if t.After != "" {
		return t
	}
	turn := int(t.AtMs / faults.TurnGapMs)
	return sim.Trigger{After: session.TypeTurnStart, Nth: turn + 1, PlusMs: t.AtMs - float64(turn*faults.TurnGapMs)}
}

func outcomeOnTheWireViaBash(r sim.Outcome, idleMs float64) sim.Outcome {
	r = OutcomeOnTheWire(r, idleMs, Margin)
	for k := range r.ToolCalls {
		r.ToolCalls = slices.Clone(r.ToolCalls)
		r.ToolCalls[k] = bashPrinting(r.ToolCalls[k])
	}
	return r
}

// OutcomeOnTheWire is an answer as DSH's DeepSeek adapter derives it from
// the wire (package serve plays it): TIMEOUT is a stall past the idle
// watchdog (a hang), EMPTY_RESPONSE an empty completion, TRANSPORT and
// STREAM_CLOSED carry the adapter's wording, an HTTP status comes before
// any chunk and Retry-After is whole seconds; a first token within margin
// of the idle watchdog (which covers the first read in DSH) comes at once.
func OutcomeOnTheWire(r sim.Outcome, idleMs, margin float64) sim.Outcome {
	if idleMs > 0 && r.LatencyMs >= idleMs-margin {
		r.LatencyMs = 0
	}
	if r.AfterChunks > 0 {
		// What streams before a failure or a hang is whole deltas on the
		// wire: a block's start and content (its end comes with the
		// next), so the model streams what DSH's adapter makes of them.
		calls := 1
		if r.Stream != nil && len(r.Stream.ToolCalls) > 0 {
			calls = len(r.Stream.ToolCalls)
		}
		r.AfterChunks = serve.PartialChunks(serve.PartialDeltas(r.AfterChunks), calls)
	}
	if r.Fail == nil {
		return r
	}
	f := *r.Fail
	r.Fail = &f
	switch f.Code {
	case "TIMEOUT":
		hang := sim.Outcome{Hang: true, AfterChunks: r.AfterChunks, Stream: r.Stream, LatencyMs: r.LatencyMs}
		if hang.AfterChunks == 1 && (hang.Stream == nil || hang.Stream.Text != nil) {
			hang.AfterChunks = 2 // the wire's first delta carries text
		}
		return hang
	case "EMPTY_RESPONSE":
		empty := ""
		return sim.Outcome{Text: &empty, LatencyMs: r.LatencyMs}
	case "TRANSPORT":
		f.Message, f.Status = wireRequestFailed, nil
		if r.AfterChunks > 0 {
			f.Message = wireStreamFailed
		}
	case "STREAM_CLOSED":
		f.Message, f.Status = wireStreamClosed, nil
	default:
		// An HTTP status: before any chunk.
		r.AfterChunks, r.Stream = 0, nil
		if ra := f.ProviderRetryAfterMs; ra != nil {
			whole := math.Ceil(*ra/1000) * 1000
			f.ProviderRetryAfterMs = &whole
		}
	}
	if r.AfterChunks == 0 {
		r.Stream = nil
	}
	return r
}

// bashPrinting is a tool call DSH can run: its bash tool printing the
// scripted result, after the scripted latency.
func bashPrinting(c sim.ToolCallSpec) sim.ToolCallSpec {
	line := strings.TrimSuffix(faults.ResultLine, "\n")
	cmd := fmt.Sprintf("yes %s | head -c %d", shellQuote(line), len(c.Result))
	if c.Result != strings.Repeat(faults.ResultLine, len(c.Result)/len(faults.ResultLine)+1)[:len(c.Result)] {
		cmd = "printf '%s' " + shellQuote(c.Result) // not the workload's: printed as it is
	}
	if c.LatencyMs > 0 {
		cmd = fmt.Sprintf("sleep %s; %s", strconv.FormatFloat(c.LatencyMs/1000, 'f', -1, 64), cmd)
	}
	args, _ := json.Marshal(map[string]string{"command": cmd, "description": "Print the notes"})
	c.Name, c.Arguments = "bash", string(args)
	return c
}

// shellQuote is text as one single-quoted shell word.
func shellQuote(text string) string {
	return "'" + strings.ReplaceAll(text, "'", `'\''`) + "'"
}
