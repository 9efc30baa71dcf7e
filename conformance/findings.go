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
	// Turn is the turn the finding happens in, in a run that shows it: a
	// difference from the model is the finding's only when the two
	// systems agree on every turn before it (AgreeBefore).
	Turn func(e Evidence) int
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
	Turn:   func(e Evidence) int { return firstUnendedTurn(e.Events) },
}, {
	Name: "cancel-after-error-finish",
	Says: "a cancel that lands after an attempt's error finish was streamed, before the stream ended, makes the failed attempt's partial text an " +
		"interrupted assistant/message that cites the failed chunks, error finish included: the failed output enters the history, and the next " +
		"request carries it (docs/dsh.md#attempts: failed chunks are never part of the surface; its step 3, read literally, is what rc.8 does)",
	Shows:  func(e Evidence) bool { return InterruptedCitesFailure(e.Events) },
	Breaks: []oracle.ID{oracle.FailedAttemptNotInHistory, oracle.DiffersFromModel},
	Turn:   func(e Evidence) int { return interruptedCitingFailureTurn(e.Events) },
}}

// Explain sets apart the violations of DSH's log that the recorded
// findings it shows account for: rest are the others, names the findings.
// A difference from the model (differs-from-model) is a finding's only
// when agreeBefore says the two systems agree on every turn before the
// finding's; with agreeBefore nil, never (a finding must not hide a
// difference it did not cause).
func Explain(e Evidence, vs []oracle.Violation, agreeBefore func(turn int) bool) (rest []oracle.Violation, names []string) {
	var breaks []oracle.ID
	for _, f := range Findings {
		if !f.Shows(e) {
			continue
		}
		names = append(names, f.Name)
		for _, id := range f.Breaks {
			if id == oracle.DiffersFromModel && (agreeBefore == nil || f.Turn == nil || !agreeBefore(f.Turn(e))) {
				continue
			}
			breaks = append(breaks, id)
		}
	}
	for _, v := range vs {
		if !slices.Contains(breaks, v.Invariant) {
			rest = append(rest, v)
		}
	}
	return rest, names
}

// AgreeBefore reports whether two sides' skeletons agree on every turn
// before turn (its turn/start and all after it cut off, with the actions
// that landed there; a turn of 0 or less: nothing to agree on, false).
func AgreeBefore(a, b *Side, turn int) bool {
	if turn <= 0 {
		return false
	}
	return slices.Equal(Skeleton(before(a, turn)), Skeleton(before(b, turn)))
}

// before is a side's events and actions up to turn's start.
func before(s *Side, turn int) ([]session.Event, []Landing) {
	cut := len(s.Events)
	for i := range s.Events {
		if t, ok := s.Events[i].Data.(*session.TurnStart); ok && t.Turn >= turn {
			cut = i
			break
		}
	}
	events := s.Events[:cut]
	var actions []Landing
	for _, a := range s.Actions {
		if cut == len(s.Events) || a.BeforeSeq < s.Events[cut].Seq {
			actions = append(actions, a)
		}
	}
	return events, actions
}

// firstUnendedTurn is the first turn a later turn/start found still open
// (0: none).
func firstUnendedTurn(events []session.Event) int {
	open := 0
	for i := range events {
		switch d := events[i].Data.(type) {
		case *session.TurnStart:
			if open != 0 {
				return open
			}
			open = d.Turn
		case *session.TurnEnd:
			open = 0
		}
	}
	return open
}

// interruptedCitingFailureTurn is the turn of the first interrupted
// message citing a failed finish (0: none).
func interruptedCitingFailureTurn(events []session.Event) int {
	if i := interruptedCitingFailure(events); i >= 0 {
		return events[i].Data.(*session.AssistantMessage).Turn
	}
	return 0
}

// interruptedCitingFailure is the index of the first interrupted message
// citing a failed finish (-1: none).
func interruptedCitingFailure(events []session.Event) int {
	for i := range events {
		if m, ok := events[i].Data.(*session.AssistantMessage); ok && m.Interrupted && citesFailure(events, i) {
			return i
		}
	}
	return -1
}

// InterruptedCitesFailure reports an interrupted assistant/message that
// cites an error or aborted finish chunk.
func InterruptedCitesFailure(events []session.Event) bool {
	return interruptedCitingFailure(events) >= 0
}

// citesFailure reports whether event i cites an error or aborted finish.
func citesFailure(events []session.Event, i int) bool {
	for _, seq := range events[i].SourceEventSeqs {
		if seq < 0 || seq >= int64(len(events)) {
			continue
		}
		if c, ok := events[seq].Data.(*session.AssistantChunk); ok && c.Chunk.Failed() {
			return true
		}
	}
	return false
}
