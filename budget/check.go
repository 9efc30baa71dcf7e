package budget

import (
	"fmt"
	"math"

	"github.com/turnsim/turnsim/internal/atomicfile"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/sim"
)

// TB is the part of testing.TB that Check uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// Check runs turns seed … seed+runs-1 under the configuration (under a
// timed environment, the turns that arrive over its horizon, drawn from
// seed; runs is not read), from a policy author's test: it fails tb once
// for each turn the oracle failed (naming the seed, the invariant and how
// to get the turn's log) and once for each bound ("exhaustion<0.001", as
// simrun budget's --assert) the report breaks, and returns the report for
// further assertions.
func (c Config) Check(tb TB, seed uint64, runs int, bounds ...string) Report {
	tb.Helper()
	r := c.Run(seed, runs)
	for _, t := range r.Violations {
		v := faults.Principal(t.Violations)
		replay := fmt.Sprintf("cfg.Trace(%#x, \"turn.jsonl\")", t.Seed)
		if c.Env.Timed() {
			replay = fmt.Sprintf("cfg.TraceTurn(%#x, %d, \"turn.jsonl\")", seed, t.Index)
		}
		tb.Errorf("turn seed %#x: %s: %s\n\treplay it: %s, then simrun check --view turn.jsonl", t.Seed, v.Invariant, v.Message, replay)
	}
	for _, text := range bounds {
		b, err := ParseBound(text)
		if err != nil {
			tb.Errorf("bound %v", err)
			continue
		}
		if ok, v := b.Holds(r); !ok {
			tb.Errorf("bound %s fails: %s = %.6g over %d turns from seed %#x", b.Text, b.Figure, v, r.Turns, seed)
		}
	}
	return r
}

// Trace runs turn seed again and writes its v1 session log to path, for
// simrun check and replay tooling. Under a timed environment the turn is
// placed at 0 ms of seed's horizon; TraceTurn places a run's turn where it
// ran.
func (c Config) Trace(seed uint64, path string) error {
	var s *sim.Scenario
	var opts sim.Options
	if c.Env.Timed() {
		s, opts = c.timedWorld(newTimeline(c.Env, seed), 0, seed)
	} else {
		s, opts = c.world(seed, c.turnOutages(seed))
	}
	return atomicfile.Write(path, faults.LogBytes(sim.RunWith(s, opts)))
}

// TraceTurn writes the v1 session log of turn index of the run from seed
// first (Turn.Index): turn first+index of a per-turn environment, or the
// index-th arrival of first's horizon, among the incidents it met there,
// its times those of the horizon (which starts at sim.Epoch).
func (c Config) TraceTurn(first uint64, index int, path string) error {
	if !c.Env.Timed() {
		return c.Trace(first+uint64(index), path)
	}
	tl := newTimeline(c.Env, first)
	if index < 0 || index >= len(tl.arrivals) {
		return fmt.Errorf("turn %d: the horizon from seed %#x has %d turns", index, first, len(tl.arrivals))
	}
	at := tl.arrivals[index]
	s, opts := c.timedWorld(tl, at, first+uint64(index))
	res := sim.RunWith(s, opts)
	// The turn's world starts at 0 ms; its log is placed where the turn
	// ran, so that its times read as the report's (16:58:21 of the
	// horizon's day). No payload holds a time, and whole milliseconds
	// keep every difference between events as it was.
	shift := int64(math.Round(at))
	res.Header.CreatedAt += shift
	for i := range res.Events {
		res.Events[i].Time += shift
	}
	return atomicfile.Write(path, faults.LogBytes(res))
}
