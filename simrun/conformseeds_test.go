package simrun

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/oracle"
)

// TestConformanceSeedsTellRecordedFromNew: a seeded plan whose DSH log
// breaks an invariant is a recorded finding only when a recorded finding
// shows in it and accounts for every violation; otherwise it is new, and
// fails the batch. (A DSH maintainer's off-by-one in llm-retry was once
// counted among "findings about DSH", left unshrunk, and the run exited 0.)
func TestConformanceSeedsTellRecordedFromNew(t *testing.T) {
	open := oracle.Violation{Invariant: oracle.LogWellFormed, Message: "turn/start 2 while turn 1 is still open"}
	budget := oracle.Violation{Invariant: oracle.RetryBudget, Message: "retry 3 exceeds maxRetries 2"}
	refused := []string{`session event "turn/end" carries non-JSON-serializable data`}
	for _, tt := range []struct {
		why  string
		c    *conformance.Comparison
		want []oracle.Violation
	}{
		{"the finding's own invariant, with its signature", &conformance.Comparison{DSHViolations: []oracle.Violation{open}, AgentErrors: refused}, nil},
		{"a budget broken beside it is new", &conformance.Comparison{DSHViolations: []oracle.Violation{open, budget}, AgentErrors: refused}, []oracle.Violation{budget}},
		{"without its signature, nothing is recorded", &conformance.Comparison{DSHViolations: []oracle.Violation{open}}, []oracle.Violation{open}},
		{"a difference of the skeletons where no turn before the finding's agrees is new", &conformance.Comparison{DSHViolations: []oracle.Violation{open}, AgentErrors: refused, Diff: "- turn/end\n"},
			[]oracle.Violation{{Invariant: oracle.DiffersFromModel, Message: "the skeletons differ"}}},
	} {
		if diff := cmp.Diff(tt.want, newViolations(tt.c)); diff != "" {
			t.Errorf("%s: new violations (-want +got):\n%s", tt.why, diff)
		}
	}
	if got, want := recordedNote(map[string]int{"cancel-after-error-finish": 1, "cancel-before-response": 3}),
		" (recorded findings about DSH, apart: cancel-before-response in 3 plans, cancel-after-error-finish in 1 plan)"; got != want {
		t.Errorf("recordedNote = %q, want %q", got, want)
	}
	if got := recordedNote(nil); got != "" {
		t.Errorf("recordedNote of none = %q, want nothing", got)
	}
}
