package dshloop

import (
	"slices"
	"strings"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// Finding is a recorded finding about DSH's own loop: an invariant its
// code breaks, kept with a scenario that reproduces it
// (scenarios/conformance/findings/NAME.json, which make dsh-loop re-checks in-process and make conformance through the web host).
// A run that shows it reproduces it; the violations of such a run are the
// finding's, reported apart, not a new failure.
type Finding struct {
	Name string
	// Says what DSH does, in a sentence.
	Says string
	// Shows reports whether a run of DSH's loop is this finding, by what
	// DSH itself reported: its signature, not the invariant it breaks
	// (a new bug may break the same one).
	Shows func(res *sim.Result) bool
	// Breaks are the invariants the finding breaks: in a run that shows
	// it, their violations are the finding's, and any other is new.
	Breaks []oracle.ID
}

// Findings are the recorded findings about DSH 0.1.0-rc.8's loop.
var Findings = []Finding{{
	Name: "cancel-before-response",
	Says: "a cancel while the request waits for the provider's response headers leaves the turn open: fetch rejects with DSH's cancel cause object, " +
		"which gains a stack accessor on the way, and the session refuses the turn/end that carries it (docs/conformance.md, finding 1)",
	Shows: func(res *sim.Result) bool {
		return agentError(res, `session event "turn/end" carries non-JSON-serializable data`)
	},
	// The turn never ends: the next turn starts inside it; beside the
	// model, the logs part there.
	Breaks: []oracle.ID{oracle.LogWellFormed, oracle.DiffersFromModel},
}, {
	Name: "cancel-after-error-finish",
	Says: "a cancel that lands after an attempt's error finish was streamed, before the stream ended, makes the failed attempt's partial text an " +
		"interrupted assistant/message that cites the failed chunks, error finish included: the failed output enters the history, and the next " +
		"request carries it (SPEC 2.4: failed chunks are never part of the surface; its step 3, read literally, is what rc.8 does)",
	Shows:  func(res *sim.Result) bool { return interruptedCitesFailure(res.Events) },
	Breaks: []oracle.ID{oracle.FailedAttemptNotInHistory, oracle.DiffersFromModel},
}}

// interruptedCitesFailure reports an interrupted assistant/message that
// cites an error or aborted finish chunk.
func interruptedCitesFailure(events []session.Event) bool {
	for i := range events {
		m, ok := events[i].Data.(*session.AssistantMessage)
		if !ok || !m.Interrupted {
			continue
		}
		for _, seq := range events[i].SourceEventSeqs {
			if seq < 0 || seq >= int64(len(events)) {
				continue
			}
			if c, ok := events[seq].Data.(*session.AssistantChunk); ok && c.Chunk.Failed() {
				return true
			}
		}
	}
	return false
}

// agentError reports whether DSH's loop reported an agent error saying
// text.
func agentError(res *sim.Result, text string) bool {
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, agentErrorPrefix) && strings.Contains(w, text) {
			return true
		}
	}
	return false
}

// agentErrorPrefix begins the driver's warning of an agent error.
const agentErrorPrefix = "DSH's loop reported an agent error"

// explain is faults.Explainer for DSH's loop: in a run that shows a
// recorded finding, the violations of DSH's log of the invariants the
// finding breaks are the finding's; every other violation stays, as does
// every violation of the model's own log beside it. (It once took every
// violation of such a run for the finding's, and a patch that let a
// cancelled turn make its request hid behind cancel-before-response.)
func explain(res *sim.Result, vs []oracle.Violation) ([]oracle.Violation, []string) {
	var names []string
	var breaks []oracle.ID
	for _, f := range Findings {
		if f.Shows(res) {
			names = append(names, f.Name)
			breaks = append(breaks, f.Breaks...)
		}
	}
	if len(names) == 0 {
		return vs, nil
	}
	var rest []oracle.Violation
	for _, v := range vs {
		if strings.HasPrefix(v.Message, faults.ModelLog) || !slices.Contains(breaks, v.Invariant) {
			rest = append(rest, v)
		}
	}
	return rest, names
}
