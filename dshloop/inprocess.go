package dshloop

import (
	"fmt"
	"slices"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// Kinds are the fault kinds DSH's in-process composition can enact: all
// but a code with no wire form (custom), a listener that throws on cue
// (DSH's composition has llm-retry and compaction-basic only) and natural
// overflow (DSH counts its own tokens; the provider does not).
func Kinds() []string {
	return slices.DeleteFunc(slices.Clone(faults.Kinds), func(k string) bool {
		return k == faults.Custom || k == faults.ListenerThrow || k == faults.NaturalOverflow
	})
}

// Points are the choice points a plan for DSH's loop aims its world at:
// the model's event types, and the two points that are no event, which
// the driver marks where DSH's code passes them: the adapter's entry
// (model-call) and the wait a listener begins (listener-wait).
func Points() []string {
	return append(faults.EventTypes(), sim.AfterModelCall, sim.AfterListenerWait)
}

// InProcess is a drawn scenario as DSH's composition meets it, and as the
// model then runs it too (one plan, one meaning):
//   - a route always has a retry policy in DSH: none is DSH's default;
//   - each answer is what DSH's DeepSeek adapter derives from the wire
//     (conformance.OutcomeOnTheWire): TIMEOUT is a stall past the idle
//     watchdog, an empty response an empty completion, a transport
//     failure and a closed stream carry the adapter's words, a status
//     comes before any chunk, Retry-After is whole seconds, and a first
//     token at the watchdog comes at once;
//   - what streams before a failure or a hang is whole deltas (a block's
//     start and content);
//   - a summary, a request under the same watchdog, comes before it.
//
// Everything else (the world's actions at every choice point, jitter,
// outages, disposal, injects, the listener order) DSH's composition
// enacts as drawn.
func InProcess(in *sim.Scenario) *sim.Scenario {
	s := *in
	if s.RetryPolicy == nil {
		s.RetryPolicy = retry.DefaultPolicy()
	}
	s.Requests = make([]sim.Outcome, len(in.Requests))
	for i, r := range in.Requests {
		s.Requests[i] = conformance.OutcomeOnTheWire(r, s.StreamIdleTimeoutMs, 1)
	}
	// A summary is a request of DSH's adapter too, under the same idle
	// watchdog: one slower than it is a TIMEOUT in DSH.
	s.Summaries = slices.Clone(in.Summaries)
	for i := range s.Summaries {
		if idle := s.StreamIdleTimeoutMs; idle > 0 && s.Summaries[i].LatencyMs >= idle-1 {
			s.Summaries[i].LatencyMs = 0
		}
	}
	return &s
}

// aimedPoints are the choice points Aim places at, each with what lands
// there: the kinds of point where DSH's recovery races live, drawn evenly
// (a seed's own world lands mostly at virtual times and after events).
type aimedPoint struct {
	after   string
	plusMax int // 0: at the point itself; else 1..plusMax ms after it
}

var aimedPoints = []aimedPoint{
	{sim.AfterModelCall, 0},            // at an adapter call's entry
	{sim.AfterModelCall, 400},          // while the request awaits its answer
	{session.TypeAssistantChunk, 0},    // after a stream's k-th chunk
	{session.TypeAssistantChunk, 200},  // inside a stream
	{sim.AfterListenerWait, 0},         // as a listener's wait begins
	{sim.AfterListenerWait, 600},       // at an offset inside a wait
	{session.TypeLLMRetryStarted, 0},   // after the waterfall decided retry
	{session.TypeCompactionStart, 300}, // during a summary
	{session.TypeToolCall, 200},        // during a tool
	{session.TypeCompactionEnd, 0},     // compaction decided, not yet returned
	{session.TypeLLMRetry, 0},          // the backoff is being scheduled
	{session.TypeStepEnd, 0},           // between steps
	{session.TypeAssistantMessage, 0},  // after a message, before its tools
	{session.TypeTurnStart, 0},         // a turn opening
}

// Aim adds to a seed's plan up to two inputs or world actions (and one
// more at a summary, where the plan overflows with compaction installed)
// aimed at DSH's choice points (aimedPoints), drawn from the seed's "points"
// stream: a cancel (of any cause, keeping the inbox or not), a steer or a
// followup (faults.Aimer). A seed without late inputs or cancels among its
// kinds gets none of that kind.
func Aim(seed uint64, in *sim.Scenario, kinds []string) *sim.Scenario {
	cancels, inputs := slices.Contains(kinds, faults.Cancel), slices.Contains(kinds, faults.LateInput)
	if !cancels && !inputs {
		return in
	}
	r := sim.Stream(seed, "points")
	s := *in
	s.Inputs, s.World = slices.Clone(in.Inputs), slices.Clone(in.World)
	n := r.IntN(3)
	// A summary happens only where a request overflows and compaction is
	// installed: there, one aim more is at it.
	summary := in.Compaction != nil && slices.ContainsFunc(in.Requests, func(o sim.Outcome) bool {
		return o.Fail != nil && o.Fail.Code == "CONTEXT_WINDOW_EXCEEDED"
	}) && r.IntN(2) == 0
	if summary {
		n++
	}
	for ; n > 0; n-- {
		p := aimedPoints[r.IntN(len(aimedPoints))]
		if summary {
			p, summary = aimedPoints[slices.IndexFunc(aimedPoints, func(a aimedPoint) bool { return a.after == session.TypeCompactionStart })], false
		}
		t := sim.Trigger{After: p.after, Nth: 1}
		switch p.after {
		case session.TypeAssistantChunk:
			t.Nth += r.IntN(6) // the k-th chunk of the run
		case session.TypeCompactionStart:
			// A run compacts once or twice, if at all.
		default:
			t.Nth += r.IntN(3)
		}
		if p.plusMax > 0 {
			t.PlusMs = float64(1 + r.IntN(p.plusMax))
		}
		if cancels && (!inputs || r.IntN(2) == 0) {
			cause := []string{session.CauseUser, session.CauseParent, session.CauseHook, session.CauseDisposed}[r.IntN(4)]
			c := session.Cause{Kind: cause}
			if cause == session.CauseHook {
				c.Reason = "a pre-step hook stopped the turn"
			}
			s.World = append(s.World, sim.Action{Do: "cancel", Cause: c, KeepInbox: r.IntN(2) == 0, Trigger: t})
			continue
		}
		kind := []string{"steer", "followup"}[r.IntN(2)]
		s.Inputs = append(s.Inputs, sim.Input{Kind: kind, Text: fmt.Sprintf("an aimed %s (%d)", kind, len(s.Inputs)+1), Trigger: t})
	}
	s.MaxEvents += 60 * (len(s.Inputs) + len(s.World) - len(in.Inputs) - len(in.World))
	return &s
}
