package hunt

import (
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/mutants"
)

// TestEveryMutantIsFound: the search finds each mutant of the zoo within
// its default seed budget, and the kept plan, replayed, still violates
// the invariant the mutant must trip, with the sentence it reports.
func TestEveryMutantIsFound(t *testing.T) {
	for _, m := range mutants.Zoo {
		t.Run(m.Name, func(t *testing.T) {
			r := Mutant(t.Context(), m, Options{Start: 1, MaxSeeds: 2000, Candidates: 2, Now: time.Now})
			if !r.Found {
				t.Fatalf("not found in %d seeds", r.Seeds)
			}
			if r.Seed < r.FirstSeed || r.Seeds != int(r.FirstSeed) {
				t.Errorf("kept seed %#x, first %#x after %d seeds: inconsistent", r.Seed, r.FirstSeed, r.Seeds)
			}
			if !judge.Violates(r.Shrunk, m.Trips, m.Options) {
				t.Errorf("the kept plan no longer violates %s", m.Trips)
			}
			if r.Violation.Invariant != m.Trips || r.Violation.Message == "" {
				t.Errorf("the kept violation is %+v, want one of %s", r.Violation, m.Trips)
			}
			if r.Entries != campaign.PlanEntries(r.Shrunk) || len(r.Plan) == 0 {
				t.Errorf("entries %d, plan %v: not the kept plan's", r.Entries, r.Plan)
			}
		})
	}
}

// TestNotFoundWithinTheSeeds: a search that runs out of seeds says so.
func TestNotFoundWithinTheSeeds(t *testing.T) {
	m, _ := mutants.Find("budget-off-by-one")
	r := Mutant(t.Context(), m, Options{Start: 1, MaxSeeds: 3, Candidates: 1, Now: time.Now})
	if r.Found || r.Seeds != 3 || r.Shrunk != nil {
		t.Fatalf("found %v after %d seeds (want not found after 3; the first failing seed is 0x36)", r.Found, r.Seeds)
	}
}

// BenchmarkHunt measures, per mutant, the search from ten different start
// seeds (run with -benchtime 10x): seeds and wall time to the first
// violation, median and worst, and the kept plan's size.
func BenchmarkHunt(b *testing.B) {
	for _, m := range mutants.Zoo {
		b.Run(m.Name, func(b *testing.B) {
			var seeds []float64
			var toFind []time.Duration
			entries := 0
			for i := 0; i < b.N; i++ {
				start := 1 + uint64(i)*1_000_003
				r := Mutant(b.Context(), m, Options{Start: start, MaxSeeds: 100_000, Budget: time.Minute, Candidates: 3, Now: time.Now})
				if !r.Found {
					b.Fatalf("start %d: not found in %d seeds", start, r.Seeds)
				}
				seeds = append(seeds, float64(r.Seeds))
				toFind = append(toFind, r.TimeToFind)
				entries = max(entries, r.Entries)
			}
			sort.Float64s(seeds)
			slices.Sort(toFind)
			b.ReportMetric(seeds[len(seeds)/2], "median-seeds")
			b.ReportMetric(float64(toFind[len(toFind)/2].Microseconds())/1000, "median-ms-to-find")
			b.ReportMetric(float64(toFind[len(toFind)-1].Microseconds())/1000, "worst-ms-to-find")
			b.ReportMetric(float64(entries), "max-entries")
		})
	}
}
