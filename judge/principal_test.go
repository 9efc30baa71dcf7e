package judge

import (
	"testing"

	"github.com/turnsim/turnsim/oracle"
)

// TestPrincipal: the violation a failure is named and shrunk for is the
// one that says what went wrong; a count over its bound, a turn the world
// stopped and a malformed log come with many bugs.
func TestPrincipal(t *testing.T) {
	v := func(id oracle.ID) oracle.Violation { return oracle.Violation{Invariant: id} }
	tests := []struct {
		why  string
		vs   []oracle.Violation
		want oracle.ID
	}{
		{"a retry after a throw explains the attempts over the bound (throw-becomes-retry overshoots by 1 or by 790)",
			[]oracle.Violation{v(oracle.AttemptsWithinPolicy), v(oracle.RetryAfterHandledFailure), v(oracle.TurnTerminates)}, oracle.RetryAfterHandledFailure},
		{"a semantic invariant before a malformed log",
			[]oracle.Violation{v(oracle.LogWellFormed), v(oracle.NoLostInput)}, oracle.NoLostInput},
		{"attempts over the bound alone are the failure",
			[]oracle.Violation{v(oracle.LogWellFormed), v(oracle.AttemptsWithinPolicy)}, oracle.AttemptsWithinPolicy},
		{"a turn that never ended, alone", []oracle.Violation{v(oracle.TurnTerminates)}, oracle.TurnTerminates},
		{"a malformed log alone", []oracle.Violation{v(oracle.LogWellFormed)}, oracle.LogWellFormed},
		{"the first of two causes, in the oracle's order",
			[]oracle.Violation{v(oracle.RetryBudget), v(oracle.BackoffHonoured)}, oracle.RetryBudget},
	}
	for _, tt := range tests {
		if got := Principal(tt.vs).Invariant; got != tt.want {
			t.Errorf("%s: Principal = %s, want %s", tt.why, got, tt.want)
		}
	}
}
