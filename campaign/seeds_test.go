package campaign_test

import (
	"testing"

	"github.com/turnsim/turnsim/simtest"
)

// TestSeeds is the campaign against the correct loop, with the project's
// corpus replayed first: every seed must pass every invariant. A failure
// prints one shrunk plan with its reproduction lines (-sim.seed,
// -sim.runs, -sim.duration, -sim.mutant, or SIM_* in the environment).
func TestSeeds(t *testing.T) {
	runs := 3000
	if testing.Short() {
		runs = 300
	}
	simtest.Check(t, simtest.Runs(runs), simtest.Corpus("../corpus"))
}
