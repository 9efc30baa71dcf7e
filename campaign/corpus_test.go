package campaign

import (
	"slices"
	"testing"

	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/sim"
)

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
			if !judge.Violates(le.Scenario, le.Entry.Invariant, opts) {
				t.Errorf("%s: the mutant's entry no longer reproduces %s", le.Path, le.Entry.Invariant)
			}
			continue
		}
		if _, vs := judge.Check(le.Scenario, opts); len(vs) > 0 {
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
