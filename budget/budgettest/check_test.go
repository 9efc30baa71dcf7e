package budgettest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/budget"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/sim"
)

// recordingTB collects what Check reports.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Helper()           {}
func (r *recordingTB) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }

// TestCheckFailsWithWhatAssessFinds: each failure Assess gives is one
// failure of the test, in order, and a clean run fails nothing.
func TestCheckFailsWithWhatAssessFinds(t *testing.T) {
	cfg := budget.Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()},
		Env: &budget.Environment{Failures: []budget.Failure{{Code: "SERVER", Status: 503, P: 1}}}}
	var tb recordingTB
	r := Check(&tb, cfg, 1, 20, budget.Exhaustion.Below(0.5), budget.Violations.Below(1))
	if len(tb.errors) != 1 || !strings.HasPrefix(tb.errors[0], "bound exhaustion<0.5 fails: exhaustion = 1 over 20 turns from seed 0x1") || r.Turns != 20 {
		t.Errorf("%d turns, errors %q", r.Turns, tb.errors)
	}
	var clean recordingTB
	cfg.Env = nil
	if Check(&clean, cfg, 1, 20, budget.Exhaustion.Below(0.5)); len(clean.errors) != 0 {
		t.Errorf("a clean run failed with %q", clean.errors)
	}
}
