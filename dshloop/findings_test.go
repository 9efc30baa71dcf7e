package dshloop

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// TestAFindingExplainsOnlyWhatItBreaks: a run that shows a recorded
// finding sets apart the violations of the invariants the finding breaks,
// and keeps every other, and every violation of the model's log beside
// it. Explaining every violation of such a run once hid a patch that let a
// cancelled turn make its request behind cancel-before-response.
func TestAFindingExplainsOnlyWhatItBreaks(t *testing.T) {
	shows := &sim.Result{Warnings: []string{agentErrorPrefix + ` in turn 1 step 1: session event "turn/end" carries non-JSON-serializable data`}}
	plainRun := &sim.Result{Warnings: []string{"some other warning"}}
	unended := oracle.Violation{Invariant: oracle.LogWellFormed, Message: "turn/start 2 while turn 1 is still open"}
	parted := oracle.Violation{Invariant: oracle.DiffersFromModel, Message: "the logs part at seq 7"}
	retried := oracle.Violation{Invariant: oracle.CancelledTurnNeverRetries, Message: "model request for attempt 2 after the cancel"}
	models := oracle.Violation{Invariant: oracle.LogWellFormed, Message: faults.ModelLog + "turn/start 2 while turn 1 is still open"}
	for _, tt := range []struct {
		why          string
		res          *sim.Result
		in           []oracle.Violation
		wantRest     []oracle.Violation
		wantFindings []string
	}{
		{"what the finding breaks is the finding's", shows, []oracle.Violation{unended, parted}, nil, []string{"cancel-before-response"}},
		{"another invariant broken beside it is new", shows, []oracle.Violation{unended, retried}, []oracle.Violation{retried}, []string{"cancel-before-response"}},
		{"the model's own log is never DSH's finding", shows, []oracle.Violation{models}, []oracle.Violation{models}, []string{"cancel-before-response"}},
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
