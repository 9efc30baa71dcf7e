package campaign_test

import (
	"testing"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/mutants"
)

// shrunkPlans shrinks each failure of a mutant's first 2,000 seeds for
// its principal invariant, and fails the test when none fails, or when
// they give more than want plans (entry file names), listing them.
func shrunkPlans(t *testing.T, mutant string, want int) {
	t.Helper()
	m, ok := mutants.Find(mutant)
	if !ok {
		t.Fatalf("no mutant %s", mutant)
	}
	names := map[string][]string{}
	for seed := uint64(1); seed <= 2000; seed++ {
		v := judge.RunSeed(seed, faults.Overrides{}, m.Options, false)
		if len(v.Violations) == 0 {
			continue
		}
		id := judge.Principal(v.Violations).Invariant
		sh := campaign.Shrink(v.Scenario, id, m.Options, campaign.Keep{})
		e, err := campaign.NewEntry("test", seed, faults.Overrides{}, m.Name, id, sh.Violation.Message, sh.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		names[e.FileName()] = e.Plan
	}
	if len(names) == 0 {
		t.Fatalf("%s: no seed failed", mutant)
	}
	if len(names) > want {
		t.Errorf("%s: %d plans, want at most %d:", mutant, len(names), want)
		for name, plan := range names {
			t.Logf("%s: %q", name, plan)
		}
	}
}

// TestOneBugFewEntries: the seeds one mutant fails shrink to one plan,
// where they gave eleven corpus entries before shrinking reached a
// canonical form: plans that differed only in the configuration their
// seeds drew, in their outages' lengths, and in an outage where a failing
// request does the same.
func TestOneBugFewEntries(t *testing.T) {
	shrunkPlans(t, "budget-off-by-one", 1)
}

// TestOneThrowBugOnePlanPerPath: throw-becomes-retry's 2,000 seeds shrink
// to two plans: a failing request, and a natural overflow. They once gave
// five entries: outages of 790 attempts and a second failing request
// stopped shrinking where they still overshot the attempts' bound, which
// was shrunk for in place of the retry after the throw.
func TestOneThrowBugOnePlanPerPath(t *testing.T) {
	if raceEnabled {
		t.Skip("2,000 seeds shrunk, 12 s under -race and nothing concurrent to race: make slow runs it without")
	}
	shrunkPlans(t, "throw-becomes-retry", 2)
}
