package faults

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// TestDrawIsDeterministic: a seed draws the same configuration and plan
// every time, and different seeds draw different plans.
func TestDrawIsDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		c1, s1 := Draw(seed, Overrides{})
		c2, s2 := Draw(seed, Overrides{})
		a, _ := s1.MarshalJSON()
		b, _ := s2.MarshalJSON()
		if c1.String() != c2.String() || string(a) != string(b) {
			t.Fatalf("seed %d drew differently twice", seed)
		}
	}
	_, s1 := Draw(1, Overrides{})
	_, s2 := Draw(2, Overrides{})
	a, _ := s1.MarshalJSON()
	b, _ := s2.MarshalJSON()
	if string(a) == string(b) {
		t.Errorf("seeds 1 and 2 drew the same plan")
	}
}

// TestSwarm: over many seeds every fault kind is enabled somewhere, and
// some seeds enable none; restricting the kinds is honoured.
func TestSwarm(t *testing.T) {
	seen := map[string]int{}
	none := 0
	for seed := uint64(1); seed <= 500; seed++ {
		c, _ := Draw(seed, Overrides{})
		if len(c.Kinds) == 0 {
			none++
		}
		for _, k := range c.Kinds {
			seen[k]++
		}
	}
	for _, k := range Kinds {
		if seen[k] == 0 {
			t.Errorf("fault kind %s was never enabled in 500 seeds", k)
		}
	}
	if none == 0 {
		t.Errorf("no seed enabled no fault kind")
	}
	for seed := uint64(1); seed <= 100; seed++ {
		c, _ := Draw(seed, Overrides{Kinds: []string{Server, Cancel}})
		for _, k := range c.Kinds {
			if k != Server && k != Cancel {
				t.Fatalf("seed %d enabled %s outside --faults server,cancel", seed, k)
			}
		}
	}
}

// TestShrinkIsOneMinimal: for each mutant, the plans of the first three
// failing seeds shrink to plans that still violate the mutant's invariant
// and violate it no more when any single entry is removed; the smallest of
// them has at most 3 entries unless the bug needs a chain of faults.
func TestShrinkIsOneMinimal(t *testing.T) {
	const tries = 3
	multiFault := map[string]bool{"compact-unbounded": true}
	for _, m := range mutants.Zoo {
		t.Run(m.Name, func(t *testing.T) {
			smallest, found := 0, 0
			for seed := uint64(1); seed <= 2000 && found < tries; seed++ {
				v := RunSeed(seed, Overrides{}, m.Options, false)
				if !Violates(v.Scenario, m.Trips, m.Options) {
					continue
				}
				found++
				sh := Shrink(v.Scenario, m.Trips, m.Options, Keep{})
				shrunk, runs := sh.Scenario, sh.Runs
				if sh.Violation.Invariant != m.Trips {
					t.Fatalf("seed %#x: Shrink returned the violation %+v, want one of %s", seed, sh.Violation, m.Trips)
				}
				if !Violates(shrunk, m.Trips, m.Options) {
					t.Fatalf("seed %#x: the shrunk plan no longer violates %s", seed, m.Trips)
				}
				for i, smaller := range removals(shrunk) {
					if Violates(smaller, m.Trips, m.Options) {
						t.Errorf("seed %#x: removing entry %d still violates %s: the plan is not 1-minimal", seed, i, m.Trips)
					}
				}
				if n := Entries(shrunk); smallest == 0 || n < smallest {
					smallest = n
				}
				t.Logf("seed %#x: %d entries → %d in %d runs: %v", seed, Entries(v.Scenario), Entries(shrunk), runs, PlanLines(shrunk))
			}
			if found == 0 {
				t.Fatalf("mutant %s not found in 2000 seeds", m.Name)
			}
			if smallest > 3 && !multiFault[m.Name] {
				t.Errorf("the smallest shrunk plan of %d seeds has %d entries, want at most 3", found, smallest)
			}
		})
	}
}

// TestCorpus replays the project's corpus: a regression entry must pass
// now; a mutant's entry must still fail against its mutant.
func TestCorpus(t *testing.T) {
	entries := LoadCorpus("../corpus")
	for _, le := range entries {
		if le.Err != nil {
			t.Errorf("%s: %v", le.Path, le.Err)
			continue
		}
		opts := sim.Options{}
		if le.Entry.Mutant != "" {
			m, ok := mutants.Find(le.Entry.Mutant)
			if !ok {
				t.Errorf("%s: unknown mutant %q", le.Path, le.Entry.Mutant)
				continue
			}
			opts = m.Options
			if !Violates(le.Scenario, le.Entry.Invariant, opts) {
				t.Errorf("%s: the mutant's entry no longer reproduces %s", le.Path, le.Entry.Invariant)
			}
			continue
		}
		if _, vs := Check(le.Scenario, opts); len(vs) > 0 {
			t.Errorf("%s: the regression is back: %s", le.Path, vs[0])
		}
	}
	// Every mutant of the zoo keeps an entry, so that none is left
	// unguarded when the code changes (simrun hunt writes them).
	for _, m := range mutants.Zoo {
		if !slices.ContainsFunc(entries, func(le LoadedEntry) bool { return le.Err == nil && le.Entry.Mutant == m.Name }) {
			t.Errorf("mutant %s has no corpus entry: run 'simrun hunt --mutant %s'", m.Name, m.Name)
		}
	}
	t.Logf("%d corpus entries", len(entries))
}

// TestCorpusErrorsAreNamed: a broken or unknown-format entry comes back
// with its error, by name.
func TestCorpusErrorsAreNamed(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/a-broken.json", []byte("{"), 0o644)
	os.WriteFile(dir+"/b-future.json", []byte(`{"format":99,"scenario":{}}`), 0o644)
	_, s := Draw(1, Overrides{})
	e, err := NewEntry("test", 1, Overrides{}, "", "retry-budget", "a message", s)
	if err != nil {
		t.Fatal(err)
	}
	path, _, _, err := e.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := LoadCorpus(dir)
	if len(got) != 3 || got[0].Err == nil || got[1].Err == nil || got[2].Err != nil || got[2].Path != path {
		t.Fatalf("LoadCorpus: %v", fmt.Sprint(got))
	}
	if want := "corpus format 99, but this build reads format 1"; got[1].Err.Error() != want {
		t.Errorf("the future entry's error is %q, want %q", got[1].Err, want)
	}
}

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
		for _, v := range RunSeed(seed, Overrides{}, m.Options, false).Violations {
			fired[v.Invariant]++
		}
	}
	if fired[oracle.CancelTakesEffectAtOnce] == 0 || len(fired) != 1 {
		t.Errorf("violations by invariant over 500 seeds: %v; want cancel-takes-effect-at-once alone", fired)
	}
	t.Logf("%d violations of cancel-takes-effect-at-once", fired[oracle.CancelTakesEffectAtOnce])
}
