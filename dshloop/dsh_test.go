package dshloop

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/simtest"
)

// These tests run DSH's own loop packages, from the install that
// scripts/dsh-loop.sh makes (.ci/run makes it before make test); without
// it they skip, saying how to make it. DSH_LOOP names another.
func install(t *testing.T) Install {
	t.Helper()
	i, err := Found("..")
	if err != nil {
		t.Skip(err)
	}
	return i
}

func pool(t *testing.T, n int) *Pool {
	t.Helper()
	p, err := NewPool(install(t), n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestConformanceScenariosAgreeInProcess: every conformance scenario runs
// on DSH's loop without a violation and gives the model's recovery
// skeleton (the web host's conformance run compares the same scenarios
// through HTTP; each is one DSH's composition can enact).
func TestConformanceScenariosAgreeInProcess(t *testing.T) {
	both := Both{DSH: System{Pool: pool(t, 2)}}
	paths, err := filepath.Glob(filepath.Join("..", "scenarios", "conformance", "*.json"))
	if err != nil || len(paths) < 50 {
		t.Fatalf("%d conformance scenarios (%v), want the 50 and more of scenarios/conformance", len(paths), err)
	}
	for _, path := range paths {
		s, err := sim.LoadScenario(path)
		if err != nil {
			t.Fatal(err)
		}
		res := both.Run(s, sim.Options{})
		if res.Refused != "" {
			t.Errorf("%s: refused: %s", filepath.Base(path), res.Refused)
			continue
		}
		if v := oracle.Check(res.Events, oracle.Options{Strict: true, Facts: &res.Facts}); len(v) > 0 {
			t.Errorf("%s: DSH's loop breaks %s", filepath.Base(path), v[0])
		}
		if res.Difference != "" {
			t.Errorf("%s: DSH's loop and the model part:\n%s", filepath.Base(path), res.Difference)
		}
	}
}

// TestFindingsReproduceInProcess: each recorded finding's scenario shows
// its finding on DSH's loop, and the finding accounts for every violation.
func TestFindingsReproduceInProcess(t *testing.T) {
	sys := System{Pool: pool(t, 1)}
	paths, _ := filepath.Glob(filepath.Join("..", "scenarios", "conformance", "findings", "*.json"))
	if len(paths) == 0 {
		t.Fatal("no scenario in scenarios/conformance/findings")
	}
	for _, path := range paths {
		s, err := sim.LoadScenario(path)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		res := sys.Run(s, sim.Options{})
		vs := oracle.Check(res.Events, oracle.Options{Strict: true, Facts: &res.Facts})
		rest, findings := sys.Explain(res, vs)
		if !slices.Contains(findings, name) {
			t.Errorf("%s: findings %v, want %s reproduced", filepath.Base(path), findings, name)
		}
		if len(rest) > 0 {
			t.Errorf("%s: the finding leaves %s", filepath.Base(path), rest[0])
		}
	}
}

// TestSeededPlansAgree: a bounded seeded batch on DSH's loop beside the
// model: no violation and no difference that a recorded finding does not
// explain (make dsh-loop runs thousands).
func TestSeededPlansAgree(t *testing.T) {
	opts := sim.Options{System: Both{DSH: System{Pool: pool(t, 2)}}}
	ran := 0
	for seed := uint64(1); seed <= 120; seed++ {
		v := judge.RunSeed(seed, faults.Overrides{}, opts, false)
		ran++
		for _, x := range v.Violations {
			t.Errorf("seed %#x: %s", seed, x)
		}
	}
	if ran == 0 {
		t.Fatal("no seed ran")
	}
}

// TestTheSameSeedGivesTheSameBytes: a seed's plan run on two drivers
// (two Node processes, each with plans before it) gives the same log,
// byte for byte, and the same facts: virtual time, seeded ids and a fresh
// context per plan leave nothing to the process.
func TestTheSameSeedGivesTheSameBytes(t *testing.T) {
	i := install(t)
	first, err := Start(i)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := Start(i)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	sys := Both{}
	for seed := uint64(1); seed <= 30; seed++ {
		_, s := faults.DrawFor(seed, faults.Overrides{}, sim.Options{System: sys})
		p, err := FromScenario(s)
		if err != nil {
			t.Fatalf("seed %#x: %v", seed, err)
		}
		a, err := first.Run(p)
		if err != nil {
			t.Fatal(err)
		}
		// The second driver runs the seeds in the other order's place:
		// it has run one plan more before this one.
		if seed == 1 {
			if _, err := second.Run(p); err != nil {
				t.Fatal(err)
			}
		}
		b, err := second.Run(p)
		if err != nil {
			t.Fatal(err)
		}
		a.ID, b.ID = 0, 0
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("seed %#x on two drivers (-first +second):\n%s", seed, diff)
		}
		if a.Log == "" {
			t.Fatalf("seed %#x: an empty log", seed)
		}
	}
}

// TestCampaignCheckRunsOnDSH: simtest.Check from go test, on DSH's loop
// beside the model (simtest.System): a short campaign is clean.
func TestCampaignCheckRunsOnDSH(t *testing.T) {
	sys := Both{DSH: System{Pool: pool(t, 2)}}
	simtest.Check(t, simtest.System(sys), simtest.Runs(40), simtest.Corpus(t.TempDir()))
}
