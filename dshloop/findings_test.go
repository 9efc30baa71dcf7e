package dshloop

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// TestAFindingExplainsOnlyWhatItBreaks: a run that shows a recorded
// finding sets apart the violations of the invariants the finding breaks,
// and keeps every other, and every violation of the model's log beside
// it. Explaining every violation of such a run once hid a patch that let a
// cancelled turn make its request behind cancel-before-response.
func TestAFindingExplainsOnlyWhatItBreaks(t *testing.T) {
	refused := agentErrorPrefix + ` in turn 2 step 1: session event "turn/end" carries non-JSON-serializable data`
	ev := func(seq int64, data session.Payload) session.Event { return session.Event{Seq: seq, Data: data} }
	// Turn 1 the same on both; DSH leaves turn 2 open.
	turn1 := []session.Event{ev(0, &session.TurnStart{Turn: 1}), ev(1, &session.TurnEnd{Turn: 1})}
	dshEvents := append(slices.Clone(turn1), ev(2, &session.TurnStart{Turn: 2}), ev(3, &session.TurnStart{Turn: 3}))
	modelEvents := append(slices.Clone(turn1), ev(2, &session.TurnStart{Turn: 2}), ev(3, &session.TurnEnd{Turn: 2}))
	// The model ended turn 1 otherwise: the systems part before the finding.
	otherTurn1 := []session.Event{ev(0, &session.TurnStart{Turn: 1}), ev(1, &session.StepStart{Turn: 1, Step: 1}), ev(2, &session.TurnEnd{Turn: 1})}
	shows := &sim.Result{Warnings: []string{refused}, Events: dshEvents}
	beside := &sim.Result{Warnings: []string{refused}, Events: dshEvents, Model: &sim.Result{Events: modelEvents}}
	partedEarlier := &sim.Result{Warnings: []string{refused}, Events: dshEvents, Model: &sim.Result{Events: otherTurn1}}
	plainRun := &sim.Result{Warnings: []string{"some other warning"}}
	unended := oracle.Violation{Invariant: oracle.LogWellFormed, Message: "turn/start 3 while turn 2 is still open"}
	parted := oracle.Violation{Invariant: oracle.DiffersFromModel, Message: "the logs part at seq 3"}
	retried := oracle.Violation{Invariant: oracle.CancelledTurnNeverRetries, Message: "model request for attempt 2 after the cancel"}
	models := oracle.Violation{Invariant: oracle.LogWellFormed, Message: judge.ModelLog + "turn/start 2 while turn 1 is still open"}
	for _, tt := range []struct {
		why          string
		res          *sim.Result
		in           []oracle.Violation
		wantRest     []oracle.Violation
		wantFindings []string
	}{
		{"what the finding breaks is the finding's", shows, []oracle.Violation{unended}, nil, []string{"cancel-before-response"}},
		{"another invariant broken beside it is new", shows, []oracle.Violation{unended, retried}, []oracle.Violation{retried}, []string{"cancel-before-response"}},
		{"the model's own log is never DSH's finding", shows, []oracle.Violation{models}, []oracle.Violation{models}, []string{"cancel-before-response"}},
		{"a difference from its turn on is the finding's, the systems agreeing before it", beside, []oracle.Violation{unended, parted}, nil, []string{"cancel-before-response"}},
		{"a difference before its turn is new", partedEarlier, []oracle.Violation{unended, parted}, []oracle.Violation{parted}, []string{"cancel-before-response"}},
		{"a difference with no model beside it to compare is new", shows, []oracle.Violation{parted}, []oracle.Violation{parted}, []string{"cancel-before-response"}},
		{"a run that does not show it explains nothing", plainRun, []oracle.Violation{unended}, []oracle.Violation{unended}, nil},
	} {
		rest, findings := explain(tt.res, tt.in)
		if diff := cmp.Diff(tt.wantRest, rest); diff != "" {
			t.Errorf("%s: violations left (-want +got):\n%s", tt.why, diff)
		}
		if diff := cmp.Diff(tt.wantFindings, findings); diff != "" {
			t.Errorf("%s: findings (-want +got):\n%s", tt.why, diff)
		}
	}
}
