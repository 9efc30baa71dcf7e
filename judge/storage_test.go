package judge

import (
	"bytes"
	"encoding/json"
	"reflect"
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
	var st Storage
	violations := 0
	for _, m := range mutants.Zoo {
		for seed := uint64(1); seed <= seeds; seed++ {
			own := RunSeed(seed, faults.Overrides{}, m.Options, false)
			wantLog, wantViolations := LogBytes(own.Result), own.Violations
			reused := RunSeedIn(&st, seed, faults.Overrides{}, m.Options, false)
			// The plan drawn in the storage is the plan drawn in memory of
			// its own, empty slices nil as a corpus entry writes them.
			if !reflect.DeepEqual(own.Scenario, reused.Scenario) || !reflect.DeepEqual(own.Config, reused.Config) {
				t.Fatalf("%s, seed %d: the plan drawn in a reused storage differs from the plan drawn in memory of its own:\n%s%s",
					m.Name, seed, cmp.Diff(own.Config.String(), reused.Config.String()), cmp.Diff(scenarioJSON(t, own.Scenario), scenarioJSON(t, reused.Scenario)))
			}
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

func scenarioJSON(t *testing.T, s *sim.Scenario) string {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAVerdictKeptOutlivesItsStorage: a verdict kept while its worker
// goes on with a new storage (Storage{}, as a campaign does for a failing
// seed) reads the same plan and log after the worker's next seeds. It
// failed when the world, its result and the plan lived in the storage by
// value: setting the storage to a new one zeroed them under the verdict.
func TestAVerdictKeptOutlivesItsStorage(t *testing.T) {
	var st Storage
	kept := RunSeedIn(&st, 7, faults.Overrides{}, sim.Options{}, false)
	wantLog, wantPlan := LogBytes(kept.Result), scenarioJSON(t, kept.Scenario)
	st = Storage{}
	for seed := uint64(8); seed < 20; seed++ {
		RunSeedIn(&st, seed, faults.Overrides{}, sim.Options{}, false)
	}
	if diff := cmp.Diff(wantPlan, scenarioJSON(t, kept.Scenario)); diff != "" {
		t.Errorf("the kept verdict's plan changed (-kept +now):\n%s", diff)
	}
	if got := LogBytes(kept.Result); !bytes.Equal(got, wantLog) {
		t.Errorf("the kept verdict's log changed:\n%s", cmp.Diff(string(wantLog), string(got)))
	}
}

// TestARunAllocatesLessThanAnEvent: a worker's seeds, run in its storage
// once it has grown, make fewer allocations than they append events
// (#26's bound: at most one an event). It fails when a run's structure
// (its world, agent, listeners, plan) is made anew each run again.
func TestARunAllocatesLessThanAnEvent(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	var st Storage
	seed, events := uint64(1), 0
	run := func() {
		v := RunSeedIn(&st, seed, faults.Overrides{}, sim.Options{}, false)
		if len(v.Violations) > 0 {
			t.Fatalf("seed %d: %s", seed, v.Violations[0])
		}
		events += len(v.Result.Events)
		seed++
	}
	for range 500 { // the storage grows to the size of a run
		run()
	}
	const runs = 2000
	seed, events = 1001, 0
	perRun := testing.AllocsPerRun(runs, run)
	perEvent := perRun / (float64(events) / (runs + 1)) // AllocsPerRun runs it once more to warm up
	t.Logf("%.1f allocations a run, %.2f an event", perRun, perEvent)
	if perEvent > 1 {
		t.Errorf("%.1f allocations a run, %.2f an event: want at most one an event", perRun, perEvent)
	}
}
