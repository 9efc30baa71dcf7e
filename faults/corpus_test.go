package faults

import (
	"encoding/json"
	"testing"

	"github.com/turnsim/turnsim/oracle"
)

// TestFailure: two entries fail the same way when they fail under the
// same code, the same invariant, and a message that differs only in its
// numbers.
func TestFailure(t *testing.T) {
	base := Entry{Mutant: "steer-lost-on-retry", Invariant: oracle.NoLostInput,
		Message: "the user message at seq 20 entered turn 1's history, but attempt 2 of step 2 was sent without it"}
	tests := []struct {
		why  string
		edit func(e *Entry)
		same bool
	}{
		{"other numbers: another path to one failure", func(e *Entry) {
			e.Message = "the user message at seq 14 entered turn 2's history, but attempt 2 of step 1 was sent without it"
		}, true},
		{"another plan and seed", func(e *Entry) { e.Plan, e.Seed = []string{"request 1: fail SERVER 500"}, "0x7" }, true},
		{"other words", func(e *Entry) { e.Message = "the user message at seq 20 was never sent" }, false},
		{"a code in place of another", func(e *Entry) {
			e.Message = "the user message at seq 20 entered turn 1's history, but attempt 2 of step 2 was sent without it, AUTH"
		}, false},
		{"another invariant", func(e *Entry) { e.Invariant = oracle.CancelledTurnNeverRetries }, false},
		{"another mutant", func(e *Entry) { e.Mutant = "loop-retry-window" }, false},
		{"the correct loop", func(e *Entry) { e.Mutant = "" }, false},
		{"DSH's loop", func(e *Entry) { e.System = "dsh" }, false},
		{"DSH's view code", func(e *Entry) { e.View = "dsh" }, false},
		{"a listener of one's own", func(e *Entry) { e.Listeners = []string{"waits"} }, false},
		{"a pinned policy", func(e *Entry) { e.Overrides.Policy = json.RawMessage(`{"mode":"always"}`) }, false},
		{"fault kinds", func(e *Entry) { e.Overrides.Faults = []string{"outage"} }, false},
	}
	for _, tt := range tests {
		e := base
		tt.edit(&e)
		if got := e.Failure() == base.Failure(); got != tt.same {
			t.Errorf("%s: the same failure %v, want %v", tt.why, got, tt.same)
		}
	}
	// Policies spelled two ways are one.
	a, b := base, base
	a.Overrides.Policy, b.Overrides.Policy = json.RawMessage(`{"mode":"always"}`), json.RawMessage(`{ "mode": "always" }`)
	if a.Failure() != b.Failure() {
		t.Error("one pinned policy, spaced two ways, gives two failures")
	}
}
