package budget

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// failuresShown is how many violating turns Assess reports one by one.
const failuresShown = 5

// Assess runs turns seed … seed+runs-1 under the configuration (under a
// timed environment, the turns that arrive over its horizon, drawn from
// seed; runs is not read) and says what a policy author's test fails with
// (budgettest.Check fails it): one failure for each of the first few
// turns the oracle failed (naming the turn, its invariants and how to
// replay it), with a count of the rest, and one for each bound
// (ExhaustionHi.Below(0.001), as simrun budget's --assert
// exhaustion_hi<0.001) the report breaks, naming turns to replay, or that
// is no bound (a figure or comparison the package has not). An invalid
// configuration (Validate) is one failure, and the report is empty.
func (c Config) Assess(seed uint64, runs int, bounds ...Bound) (r Report, failures []string) {
	fail := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }
	r, err := c.Run(context.Background(), seed, runs)
	if err != nil {
		fail("budget: %v", err)
		return r, failures
	}
	for i, t := range r.Violations {
		if i == failuresShown {
			fail("and %d more turns the oracle failed, of %d", len(r.Violations)-failuresShown, r.Turns)
			break
		}
		v := judge.Principal(t.Violations)
		more := ""
		if n := len(t.Violations); n > 1 {
			more = fmt.Sprintf(" (and %d more: %s)", n-1, strings.Join(others(t.Violations, v), ", "))
		}
		name := fmt.Sprintf("turn seed %#x", t.Seed)
		if c.Env.Timed() {
			name = fmt.Sprintf("turn %d (seed %#x)", t.Index, t.Seed)
		}
		fail("%s: %s: %s%s\n\treplay it: cfg.TraceTurn(%#x, %d, \"turn.jsonl\") returns its violations, the run's facts included (a listener's count of retries, which no log shows), and writes its log for simrun check --view",
			name, v.Invariant, v.Message, more, seed, t.Index)
	}
	for _, b := range bounds {
		if err := b.check(); err != nil {
			fail("bound %v", err)
			continue
		}
		if ok, v := b.Holds(r); !ok {
			failed := ""
			if len(r.FailedTurns) > 0 {
				failed = fmt.Sprintf("; turns that did not complete include %s (cfg.TraceTurn(%#x, N, \"turn.jsonl\") writes turn N's log)", joinInts(r.FailedTurns), seed)
			}
			fail("bound %s fails: %s = %.6g over %d turns from seed %#x%s", b, b.Figure, v, r.Turns, seed, failed)
		}
	}
	return r, failures
}

// others are a turn's invariants besides the principal one's violation.
func others(vs []oracle.Violation, principal oracle.Violation) []string {
	var out []string
	skipped := false
	for _, v := range vs {
		if !skipped && v.Invariant == principal.Invariant && v.Message == principal.Message {
			skipped = true
			continue
		}
		out = append(out, string(v.Invariant))
	}
	return out
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

// Trace runs turn seed again and writes its v1 session log to path, for
// simrun check and replay tooling. Under a timed environment the turn is
// placed at 0 ms of seed's horizon; TraceTurn places a run's turn where it
// ran. An invalid configuration is an error (Validate), and writes nothing.
func (c Config) Trace(seed uint64, path string) error {
	if err := c.Validate(); err != nil {
		return err
	}
	var s *sim.Scenario
	var opts sim.Options
	if c.Env.Timed() {
		s, opts = c.timedWorld(newTimeline(c.Env, seed), 0, seed)
	} else {
		s, opts = c.world(seed, c.turnOutages(seed))
	}
	res := sim.RunWith(s, opts)
	if res.Refused != "" {
		return &RefusedError{Seed: seed, Why: res.Refused}
	}
	return atomicfile.Write(path, judge.LogBytes(res))
}

// TraceTurn runs turn index of the run from seed first (Turn.Index) again
// — turn first+index of a per-turn environment, or the index-th arrival
// of first's horizon, among the incidents it met there — writes its v1
// session log to path, its times those of the horizon (which starts at
// sim.Epoch), and returns its violations as the run judged them: a
// listener's misbehaviour that only the run's facts show (its count of
// retries) is among them, though the log alone reads clean. An invalid
// configuration is an error (Validate), and writes nothing.
func (c Config) TraceTurn(first uint64, index int, path string) ([]oracle.Violation, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if !c.Env.Timed() {
		if index < 0 {
			return nil, fmt.Errorf("turn %d: turns are numbered from 0", index)
		}
		res, vs := judge.Check(c.world(first+uint64(index), c.turnOutages(first+uint64(index))))
		if res.Refused != "" {
			return nil, &RefusedError{Seed: first + uint64(index), Why: res.Refused}
		}
		return vs, atomicfile.Write(path, judge.LogBytes(res))
	}
	tl := newTimeline(c.Env, first)
	if index < 0 || index >= len(tl.arrivals) {
		return nil, fmt.Errorf("turn %d: the horizon from seed %#x has %d turns, numbered 0 … %d", index, first, len(tl.arrivals), len(tl.arrivals)-1)
	}
	at := tl.arrivals[index]
	res, vs := judge.Check(c.timedWorld(tl, at, first+uint64(index)))
	if res.Refused != "" {
		return nil, &RefusedError{Seed: first + uint64(index), Why: res.Refused}
	}
	// The turn's world starts at 0 ms; its log is placed where the turn
	// ran, so that its times read as the report's (16:58:21 of the
	// horizon's day). No payload holds a time, and whole milliseconds
	// keep every difference between events as it was.
	shift := int64(math.Round(at))
	res.Header.CreatedAt += shift
	for i := range res.Events {
		res.Events[i].Time += shift
	}
	return vs, atomicfile.Write(path, judge.LogBytes(res))
}
