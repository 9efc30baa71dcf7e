package conformance

import (
	"slices"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
)

// Finding is a recorded finding about DSH 0.1.0-rc.8: an invariant its
// code breaks, kept with a scenario that reproduces it
// (scenarios/conformance/findings/NAME.json, re-checked by make dsh-loop
// in-process and by make conformance through the web host). A run that
// shows it reproduces it: the violations of the invariants it breaks are
// the finding's, reported apart; any other violation is new.
type Finding struct {
	Name string
	// Says what DSH does, in a sentence.
	Says string
	// Shows reports whether a run of DSH is this finding, by what DSH
	// itself reported or wrote: its signature, not the invariant it
	// breaks (a new bug may break the same one).
	Shows func(e Evidence) bool
	// Breaks are the invariants the finding breaks.
	Breaks []oracle.ID
}

// Evidence is what a run of DSH leaves to recognise a finding by: its log
// and the agent errors it reported (the web host's agent-error events;
// in-process, the agent/error events the driver saw).
type Evidence struct {
	Events      []session.Event
	AgentErrors []string
}

// Findings are the recorded findings about DSH 0.1.0-rc.8.
var Findings = []Finding{{
	Name: "cancel-before-response",
	Says: "a cancel while the request waits for the provider's response headers leaves the turn open: fetch rejects with DSH's cancel cause object, " +
		"which gains a stack accessor on the way, and the session refuses the turn/end that carries it (docs/conformance.md, finding 1)",
	Shows: func(e Evidence) bool {
		return slices.ContainsFunc(e.AgentErrors, func(m string) bool {
			return strings.Contains(m, `session event "turn/end" carries non-JSON-serializable data`)
		})
	},
	// The turn never ends: the next turn starts inside it; beside the
	// model, the logs part there.
	Breaks: []oracle.ID{oracle.LogWellFormed, oracle.DiffersFromModel},
}, {
	Name: "cancel-after-error-finish",
	Says: "a cancel that lands after an attempt's error finish was streamed, before the stream ended, makes the failed attempt's partial text an " +
		"interrupted assistant/message that cites the failed chunks, error finish included: the failed output enters the history, and the next " +
		"request carries it (SPEC 2.4: failed chunks are never part of the surface; its step 3, read literally, is what rc.8 does)",
	Shows:  func(e Evidence) bool { return InterruptedCitesFailure(e.Events) },
	Breaks: []oracle.ID{oracle.FailedAttemptNotInHistory, oracle.DiffersFromModel},
}}

// Explain sets apart the violations of DSH's log that the recorded
// findings it shows account for: rest are the others, names the findings.
func Explain(e Evidence, vs []oracle.Violation) (rest []oracle.Violation, names []string) {
	var breaks []oracle.ID
	for _, f := range Findings {
		if f.Shows(e) {
			names = append(names, f.Name)
			breaks = append(breaks, f.Breaks...)
		}
	}
	for _, v := range vs {
		if !slices.Contains(breaks, v.Invariant) {
			rest = append(rest, v)
		}
	}
	return rest, names
}

// InterruptedCitesFailure reports an interrupted assistant/message that
// cites an error or aborted finish chunk.
func InterruptedCitesFailure(events []session.Event) bool {
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
