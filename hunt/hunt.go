// Package hunt runs the randomized search against the mutant zoo: for each
// mutant, the seeds to its first violation of the invariant it must trip,
// the time that took, and the smallest shrunk reproduction among the first
// few violating seeds.
package hunt

import (
	"context"
	"slices"
	"time"

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
	// Entries is the shrunk plan's size (faults.Entries).
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
// or ctx ends (Ctrl-C).
func Mutant(ctx context.Context, m mutants.Mutant, o Options) Result {
	if o.Candidates < 1 {
		o.Candidates = 1
	}
	r := Result{Mutant: m.Name, Invariant: m.Trips}
	began := o.Now()
	found := 0
	for i := 0; i < o.MaxSeeds && found < o.Candidates; i++ {
		if o.Budget > 0 && o.Now().Sub(began) > o.Budget || ctx.Err() != nil {
			break
		}
		seed := o.Start + uint64(i)
		v := faults.RunSeed(seed, faults.Overrides{}, m.Options, false)
		if !r.Found {
			r.Seeds = i + 1
		}
		if !slices.ContainsFunc(v.Violations, func(x oracle.Violation) bool { return x.Invariant == m.Trips }) {
			continue
		}
		found++
		if !r.Found {
			r.Found, r.FirstSeed, r.TimeToFind = true, seed, o.Now().Sub(began)
		}
		shrinkBegan := o.Now()
		sh := faults.Shrink(v.Scenario, m.Trips, m.Options, faults.Keep{})
		r.ShrinkTime += o.Now().Sub(shrinkBegan)
		r.ShrinkRuns += sh.Runs
		if n := faults.Entries(sh.Scenario); r.Shrunk == nil || n < r.Entries {
			// The entry's sentence is the shrunk plan's, not the seed's.
			r.Seed, r.Shrunk, r.Entries, r.Plan, r.Violation = seed, sh.Scenario, n, faults.PlanLines(sh.Scenario), sh.Violation
			if sh.Result == nil { // a blocked shrink: the seed's own sentence
				r.Violation = v.Violations[slices.IndexFunc(v.Violations, func(x oracle.Violation) bool { return x.Invariant == m.Trips })]
			}
		}
	}
	return r
}
