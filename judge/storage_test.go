package judge

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/sim"
)

// TestStorageChangesNoVerdict: seeds run one after the other in one
// storage, under every mutant in turn (so that a run reuses memory a run
// of another bug, with other violations, left), give the logs and the
// violations the same seeds give in memory of their own.
func TestStorageChangesNoVerdict(t *testing.T) {
	seeds := uint64(150)
	if raceEnabled || testing.Short() {
		seeds = 20
	}
	var st sim.Storage
	violations := 0
	for _, m := range mutants.Zoo {
		for seed := uint64(1); seed <= seeds; seed++ {
			own := RunSeed(seed, faults.Overrides{}, m.Options, false)
			wantLog, wantViolations := LogBytes(own.Result), own.Violations
			reused := RunSeedIn(&st, seed, faults.Overrides{}, m.Options, false)
			if got := LogBytes(reused.Result); !bytes.Equal(got, wantLog) {
				t.Fatalf("%s, seed %d: the log in a reused storage differs from the log in memory of its own", m.Name, seed)
			}
			if diff := cmp.Diff(wantViolations, reused.Violations); diff != "" {
				t.Fatalf("%s, seed %d: violations in a reused storage (-own +reused):\n%s", m.Name, seed, diff)
			}
			violations += len(wantViolations)
		}
	}
	if violations == 0 {
		t.Fatal("no seed of any mutant violated an invariant: the comparison compared nothing")
	}
	t.Logf("%d violations compared", violations)
}
