package judge

import (
	"testing"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/oracle"
)

// TestOnlyTheCallersViewCatchesASilentListener: a plugged-in listener that
// waits on a background context and logs nothing breaks no invariant of
// the log; over 500 seeds the only one that fires is
// cancel-takes-effect-at-once, which reads virtual time — the invariant
// exists because of this bug.
func TestOnlyTheCallersViewCatchesASilentListener(t *testing.T) {
	m, ok := mutants.Find("listener-wait-ignores-cancel")
	if !ok {
		t.Fatal("no mutant listener-wait-ignores-cancel")
	}
	fired := map[oracle.ID]int{}
	for seed := uint64(1); seed <= 500; seed++ {
		for _, v := range RunSeed(seed, faults.Overrides{}, m.Options, false).Violations {
			fired[v.Invariant]++
		}
	}
	if fired[oracle.CancelTakesEffectAtOnce] == 0 || len(fired) != 1 {
		t.Errorf("violations by invariant over 500 seeds: %v; want cancel-takes-effect-at-once alone", fired)
	}
	t.Logf("%d violations of cancel-takes-effect-at-once", fired[oracle.CancelTakesEffectAtOnce])
}
