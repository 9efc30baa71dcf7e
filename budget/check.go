package budget

import (
	"github.com/turnsim/turnsim/internal/atomicfile"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/sim"
)

// TB is the part of testing.TB that Check uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// Check runs turns seed … seed+runs-1 under the configuration, from a
// policy author's test: it fails tb once for each turn the oracle failed
// (naming the seed, the invariant and how to get the turn's log) and once
// for each bound ("exhaustion<0.001", as simrun budget's --assert) the
// report breaks, and returns the report for further assertions.
func (c Config) Check(tb TB, seed uint64, runs int, bounds ...string) Report {
	tb.Helper()
	r := c.Run(seed, runs)
	for _, t := range r.Violations {
		v := faults.Principal(t.Violations)
		tb.Errorf("turn seed %#x: %s: %s\n\treplay it: cfg.Trace(%#x, \"turn.jsonl\"), then simrun check --view turn.jsonl", t.Seed, v.Invariant, v.Message, t.Seed)
	}
	for _, text := range bounds {
		b, err := ParseBound(text)
		if err != nil {
			tb.Errorf("bound %v", err)
			continue
		}
		if ok, v := b.Holds(r); !ok {
			tb.Errorf("bound %s fails: %s = %.6g over %d turns from seed %#x", b.Text, b.Figure, v, runs, seed)
		}
	}
	return r
}

// Trace runs turn seed again and writes its v1 session log to path, for
// simrun check and replay tooling.
func (c Config) Trace(seed uint64, path string) error {
	s, opts := c.world(seed)
	return atomicfile.Write(path, faults.LogBytes(sim.RunWith(s, opts)))
}
