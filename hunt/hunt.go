// Package hunt runs the randomized search against the mutant zoo: for each
// mutant, the seeds to its first violation of the invariant it must trip,
// the time that took, and the smallest shrunk reproduction among the first
// few violating seeds.
package hunt

import (
	"context"
	"slices"
	"time"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// Options bound one mutant's search.
type Options struct {
	// Start is the first seed.
	Start uint64
	// MaxSeeds bounds the seeds tried; Budget the wall time (0: none).
	MaxSeeds int
	Budget   time.Duration
	// Candidates is how many violating seeds are shrunk; the smallest
	// result is kept. Shrinking is 1-minimal per seed, and different seeds
	// reach different local minima.
	Candidates int
	// Now reads the wall clock for the timing columns only; nothing it
	// returns reaches a plan or a log.
	Now func() time.Time
}

// Result is one mutant's row.
type Result struct {
	Mutant    string    `json:"mutant"`
	Invariant oracle.ID `json:"invariant"`
	Found     bool      `json:"found"`
	// Seeds is how many seeds ran up to and including the first violating
	// one (or all that ran, when none was found).
	Seeds int `json:"seeds"`
	// FirstSeed is the first violating seed; Seed the one whose shrunk
	// plan is kept.
	FirstSeed uint64           `json:"firstSeed,omitempty"`
	Seed      uint64           `json:"seed,omitempty"`
	Violation oracle.Violation `json:"violation"`
	// Entries is the shrunk plan's size (campaign.PlanEntries).
	Entries    int           `json:"entries,omitempty"`
	Plan       []string      `json:"plan,omitempty"`
	ShrinkRuns int           `json:"shrinkRuns,omitempty"`
	TimeToFind time.Duration `json:"timeToFindNs"`
	ShrinkTime time.Duration `json:"shrinkTimeNs"`
	// Shrunk is the kept reproduction.
	Shrunk *sim.Scenario `json:"-"`
}

// Mutant searches seeds from o.Start until the mutant's invariant is
// violated o.Candidates times, the seeds run out, the budget is spent,
// or ctx ends (Ctrl-C). The search is a campaign of the mutant, one seed
// at a time, that stops once it has its candidates; each is shrunk for
// the invariant the mutant must trip, and the smallest plan is kept.
func Mutant(ctx context.Context, m mutants.Mutant, o Options) Result {
	if o.Candidates < 1 {
		o.Candidates = 1
	}
	r := Result{Mutant: m.Name, Invariant: m.Trips}
	began := o.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.Budget > 0 {
		ctx, cancel = context.WithTimeout(ctx, o.Budget)
		defer cancel()
	}
	c := campaign.Config{First: o.Start, Count: uint64(max(o.MaxSeeds, 0)), Workers: 1, Sim: m.Options,
		Mutant: m.Name, NoShrink: true, ShrinkFor: m.Trips, Version: campaign.Version}
	trips := func(v oracle.Violation) bool { return v.Invariant == m.Trips }
	investigate := c
	investigate.NoShrink = false
	found := 0
	campaign.Run(ctx, c, func(res *campaign.Result) {
		if found == o.Candidates {
			return // the seed a worker had begun before the stop
		}
		if !r.Found {
			r.Seeds++
		}
		if !slices.ContainsFunc(res.Violations, trips) {
			return
		}
		found++
		seed, _ := campaign.ParseSeed(res.Seed)
		if !r.Found {
			r.Found, r.FirstSeed, r.TimeToFind = true, seed, o.Now().Sub(began)
		}
		shrinkBegan := o.Now()
		shrunk := investigate.Investigate(res)
		r.ShrinkTime += o.Now().Sub(shrinkBegan)
		r.ShrinkRuns += shrunk.ShrinkRuns
		if plan := shrunk.Scenario(); plan != nil {
			if n := campaign.PlanEntries(plan); r.Shrunk == nil || n < r.Entries {
				// The entry's sentence is the shrunk plan's, not the seed's.
				r.Seed, r.Shrunk, r.Entries, r.Plan = seed, plan, n, faults.PlanLines(plan)
				r.Violation = res.Violations[slices.IndexFunc(res.Violations, trips)]
				if shrunk.Shrunk != nil {
					r.Violation = *shrunk.Shrunk
				}
			}
		}
		if found == o.Candidates {
			cancel()
		}
	})
	return r
}
