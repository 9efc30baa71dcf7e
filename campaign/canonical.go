package campaign

import (
	"math"
	"reflect"
	"slices"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/sim"
)

// shortenTimes makes each outage as short as keeps allows, and each
// input and world action as early, by bisection in whole milliseconds:
// halving alone stopped wherever half was too short, so one bug left
// outages of 19, 39, 156 and 2,500 ms and followups at 30,000 and 60,000
// ms, each a corpus entry of its own.
func shortenTimes(cur *sim.Scenario, keep Keep, keeps func(*sim.Scenario) bool) (*sim.Scenario, bool) {
	cur, changed := shiftEarlier(cur, keeps)
	shorten := func(get func(*sim.Scenario) *float64, base float64) {
		var ok bool
		cur, ok = bisectDown(cur, get, base, keeps)
		changed = changed || ok
	}
	for i := range cur.Outages {
		shorten(func(s *sim.Scenario) *float64 { return &s.Outages[i].ToMs }, cur.Outages[i].FromMs)
	}
	for i := 1; i < len(cur.Inputs); i++ { // the first input starts the run
		shorten(func(s *sim.Scenario) *float64 { return &s.Inputs[i].AtMs }, 0)
		shorten(func(s *sim.Scenario) *float64 { return &s.Inputs[i].PlusMs }, 0)
	}
	for i := range cur.World {
		shorten(func(s *sim.Scenario) *float64 { return &s.World[i].AtMs }, 0)
		shorten(func(s *sim.Scenario) *float64 { return &s.World[i].PlusMs }, 0)
	}
	if keep.Config {
		return cur, changed // the context window is the configuration's
	}
	var narrowed bool
	cur, narrowed = narrowWindow(cur, keeps)
	return cur, changed || narrowed
}

// narrowWindow makes an enforced context window as small as keeps
// allows: a history overflows it sooner, and the tool steps a plan needed
// to grow its history there (four in one seed, six in another) become
// removable.
func narrowWindow(cur *sim.Scenario, keeps func(*sim.Scenario) bool) (*sim.Scenario, bool) {
	if !cur.EnforceContextWindow {
		return cur, false
	}
	return leastKept(float64(cur.ContextWindow), cur, func(v float64) *sim.Scenario {
		c := clone(cur)
		c.ContextWindow = int(v)
		return c
	}, keeps)
}

// shiftEarlier moves the times the plan gives by the clock (late inputs,
// world actions, outages) earlier together, by as much as keeps allows:
// a followup and the outage that meets its request, drawn at 23,359 ms in
// one seed and 29,272 in another, are the same failure, and neither
// moves alone without parting from the other. The times from each one on
// move together too, down to the one before: an inject at 1 ms held a
// followup and its outage at 16,031 ms where they were drawn.
func shiftEarlier(cur *sim.Scenario, keeps func(*sim.Scenario) bool) (*sim.Scenario, bool) {
	collect := func(s *sim.Scenario) []*float64 {
		var out []*float64
		for i := 1; i < len(s.Inputs); i++ { // the first input starts the run
			if s.Inputs[i].After == "" && s.Inputs[i].AtMs > 0 {
				out = append(out, &s.Inputs[i].AtMs)
			}
		}
		for i := range s.World {
			if s.World[i].After == "" && s.World[i].AtMs > 0 {
				out = append(out, &s.World[i].AtMs)
			}
		}
		for i := range s.Outages {
			if s.Outages[i].FromMs > 0 {
				out = append(out, &s.Outages[i].FromMs, &s.Outages[i].ToMs)
			}
		}
		return out
	}
	changed := false
	// Each group is the times from one on; the earliest group (all of
	// them) first. A group moves to 1 ms past the time before it (past 0
	// for the first), never onto it: that order is the plan's.
	for from := 0.0; ; {
		var times []float64
		for _, t := range collect(cur) {
			times = append(times, *t)
		}
		slices.Sort(times)
		i, _ := slices.BinarySearch(times, from)
		if len(times)-i < 2 {
			return cur, changed // one time alone is bisected on its own
		}
		first := times[i]
		below := 0.0
		if i > 0 {
			below = times[i-1]
		}
		whole := math.Floor(first - below)
		shifted := func(v float64) *sim.Scenario {
			c := clone(cur)
			for _, t := range collect(c) {
				if *t >= first {
					*t -= whole - v
				}
			}
			return c
		}
		// Searched as the gap left above the time before (the whole part
		// of the gap): at its own, it is the plan; at 0 it is taken not
		// to keep.
		var moved bool
		cur, moved = leastKept(whole, cur, shifted, keeps)
		changed = changed || moved
		// The next group starts past this one's first time, where the
		// move left it: the least time above the one before.
		next := math.Inf(1)
		for _, t := range collect(cur) {
			if *t > below {
				next = min(next, *t)
			}
		}
		from = math.Nextafter(next, math.Inf(1))
	}
}

// bisectDown lowers the number get points at toward base, to the least
// whole number of milliseconds past base that keeps the plan failing
// (base itself is not tried: the least is 1 ms past it).
func bisectDown(cur *sim.Scenario, get func(*sim.Scenario) *float64, base float64, keeps func(*sim.Scenario) bool) (*sim.Scenario, bool) {
	return leastKept(*get(cur)-base, cur, func(v float64) *sim.Scenario {
		c := clone(cur)
		*get(c) = base + v
		return c
	}, keeps)
}

// leastKept bisects (0, hi] in whole steps for the least value whose plan
// (at) keeps the plan failing, given that hi's does (it is cur, not run
// again) and taking 0's not to. It returns that plan, and whether it is
// below hi; cur and false when none is.
func leastKept(hi float64, cur *sim.Scenario, at func(v float64) *sim.Scenario, keeps func(*sim.Scenario) bool) (*sim.Scenario, bool) {
	lo, changed := 0.0, false
	for hi-lo > 1 {
		mid := math.Floor(lo + (hi-lo)/2)
		if mid <= lo {
			break
		}
		if c := at(mid); keeps(c) {
			cur, hi, changed = c, mid, true
		} else {
			lo = mid
		}
	}
	return cur, changed
}

// canonicalConfig moves the configuration a seed drew toward DSH's
// defaults, one part at a time, keeping each move that keeps the plan
// failing: plans of one bug that differ only in what their seeds drew
// around them become one plan. Every move goes one way only (toward a
// default it then stays at, or to a smaller number), so that shrinking
// ends.
//
//   - llm-retry before compaction-basic (the order a scenario file
//     defaults to), a throwing listener innermost, and listeners of
//     one's own outermost;
//   - the retry policy: DSH's default in place of none or of an
//     always-mode one;
//     the smallest retry budget that fails (fewer retries, a shorter
//     log), DSH's retryable codes (or fewer extra ones), DSH's backoff
//     delays, no jitter or else DSH's, and a fixed jitter sample in
//     place of the seed's stream;
//   - compaction-basic: DSH's default whole; else no pruner, one
//     overflow retry;
//   - DSH's stream idle timeout, and a context window that is not
//     enforced, of DSH's default size.
//
// A plug-in, and whether a listener is there at all, are the plan's, not
// the configuration's, and stay (removals drop a throwing listener).
func canonicalConfig(cur *sim.Scenario, keep Keep, keeps func(*sim.Scenario) bool) (*sim.Scenario, bool) {
	if keep.Config {
		return cur, false
	}
	changed := false
	for _, m := range configMoves {
		if m.policy && keep.Policy {
			continue
		}
		for _, c := range m.candidates(cur) {
			if keeps(c) {
				cur, changed = c, true
				break
			}
		}
	}
	return cur, changed
}

// Keep names what shrinking leaves as it is, beside the plan's entries.
type Keep struct {
	// Policy: the retry policy was pinned (--policy); it is what is
	// under test.
	Policy bool
	// Config: the whole configuration is the user's own (a scenario
	// file), not drawn.
	Config bool
}

// A configMove gives the plan with one part of its configuration moved
// toward the default, each way it tries in order (none when that part
// is there already).
type configMove struct {
	candidates func(s *sim.Scenario) []*sim.Scenario
	// policy: the move changes the retry policy.
	policy bool
}

var defaults = sim.Default()

var configMoves = []configMove{
	{candidates: one(retryBeforeCompaction)},
	{candidates: one(throwInnermost)},
	{candidates: pluginsOutermost},
	{candidates: one(defaultPolicy), policy: true},
	{candidates: fewerRetries, policy: true},
	{candidates: one(toDefaultCodes), policy: true},
	{candidates: fewerCodes, policy: true},
	{candidates: one(defaultDelays), policy: true},
	{candidates: lessJitter, policy: true},
	{candidates: fixedJitterSamples},
	{candidates: one(defaultCompaction)},
	{candidates: one(noPruner)},
	{candidates: one(defaultOverflowRetries)},
	{candidates: one(defaultIdleTimeout)},
	{candidates: one(unenforcedContextWindow)},
}

// one makes a move of a single candidate (nil for none).
func one(f func(s *sim.Scenario) *sim.Scenario) func(s *sim.Scenario) []*sim.Scenario {
	return func(s *sim.Scenario) []*sim.Scenario {
		if c := f(s); c != nil {
			return []*sim.Scenario{c}
		}
		return nil
	}
}

func retryBeforeCompaction(s *sim.Scenario) *sim.Scenario {
	r := slices.Index(s.ListenerOrder, sim.ListenerRetry)
	k := slices.Index(s.ListenerOrder, sim.ListenerCompaction)
	if r < 0 || k < 0 || r < k {
		return nil
	}
	c := clone(s)
	c.ListenerOrder = slices.Clone(s.ListenerOrder)
	c.ListenerOrder[r], c.ListenerOrder[k] = sim.ListenerCompaction, sim.ListenerRetry
	return c
}

// withPolicy is the plan with its policy changed by edit, on a copy.
func withPolicy(s *sim.Scenario, edit func(p *loop.RetryPolicy)) *sim.Scenario {
	c := clone(s)
	p := *s.RetryPolicy
	p.RetryableCodes = slices.Clone(p.RetryableCodes)
	edit(&p)
	c.RetryPolicy = &p
	return c
}

// throwInnermost moves a throwing listener to the end of the order: where
// it throws is the fault, and plans that differ only in its place should
// be one.
func throwInnermost(s *sim.Scenario) *sim.Scenario {
	i := slices.Index(s.ListenerOrder, sim.ListenerThrow)
	if i < 0 || !slices.ContainsFunc(s.ListenerOrder[i:], func(n string) bool { return n != sim.ListenerThrow }) {
		return nil // none, or every throw innermost already (a plan from Go may list it twice)
	}
	c := clone(s)
	c.ListenerOrder = append(slices.Delete(slices.Clone(s.ListenerOrder), i, i+1), sim.ListenerThrow)
	return c
}

// pluginsOutermost moves a listener of one's own to the front of the
// order, where the seed's draw may have put it anywhere its Place allows
// (a world that does not allow it there runs nothing, and the move is not
// kept). The plug-ins already in front, in their order, stay.
func pluginsOutermost(s *sim.Scenario) []*sim.Scenario {
	var out []*sim.Scenario
	front := 0
	for front < len(s.ListenerOrder) && !sim.BuiltIn(s.ListenerOrder[front]) {
		front++
	}
	for i := front + 1; i < len(s.ListenerOrder); i++ {
		if name := s.ListenerOrder[i]; !sim.BuiltIn(name) {
			c := clone(s)
			c.ListenerOrder = slices.Insert(slices.Delete(slices.Clone(s.ListenerOrder), i, i+1), front, name)
			out = append(out, c)
		}
	}
	return out
}

// defaultPolicy puts DSH's default policy in place of no policy or of an
// always-mode one. A normal-mode policy moves one field at a time instead
// (fewerRetries would otherwise undo the default's budget of 5, and the
// two would take turns without end).
func defaultPolicy(s *sim.Scenario) *sim.Scenario {
	if s.RetryPolicy != nil && s.RetryPolicy.Mode == loop.ModeNormal {
		return nil
	}
	c := clone(s)
	p := *defaults.RetryPolicy
	p.RetryableCodes = slices.Clone(p.RetryableCodes)
	c.RetryPolicy = &p
	return c
}

// fewerRetries tries no retries at all, then one fewer: a budget bug is
// as plain with a budget of 0 as of 6, and its log is shorter.
func fewerRetries(s *sim.Scenario) []*sim.Scenario {
	p := s.RetryPolicy
	if p == nil || p.Mode != loop.ModeNormal || p.MaxRetries == 0 {
		return nil
	}
	out := []*sim.Scenario{withPolicy(s, func(p *loop.RetryPolicy) { p.MaxRetries = 0 })}
	if p.MaxRetries > 1 {
		out = append(out, withPolicy(s, func(p *loop.RetryPolicy) { p.MaxRetries-- }))
	}
	return out
}

func toDefaultCodes(s *sim.Scenario) *sim.Scenario {
	p := s.RetryPolicy
	if p == nil || p.Mode != loop.ModeNormal || slices.Equal(p.RetryableCodes, defaults.RetryPolicy.RetryableCodes) {
		return nil
	}
	return withPolicy(s, func(p *loop.RetryPolicy) { p.RetryableCodes = slices.Clone(defaults.RetryPolicy.RetryableCodes) })
}

// fewerCodes drops one code that is not one of DSH's defaults, the last
// first (the generator appends extras after them).
func fewerCodes(s *sim.Scenario) []*sim.Scenario {
	p := s.RetryPolicy
	if p == nil || p.Mode != loop.ModeNormal {
		return nil
	}
	var out []*sim.Scenario
	for i := len(p.RetryableCodes) - 1; i >= 0; i-- {
		if !slices.Contains(defaults.RetryPolicy.RetryableCodes, p.RetryableCodes[i]) {
			out = append(out, withPolicy(s, func(p *loop.RetryPolicy) { p.RetryableCodes = slices.Delete(p.RetryableCodes, i, i+1) }))
		}
	}
	return out
}

// defaultDelays puts DSH's backoff delays in place, the jitter as drawn.
func defaultDelays(s *sim.Scenario) *sim.Scenario {
	p, d := s.RetryPolicy, defaults.RetryPolicy
	if p == nil || (p.InitialDelayMs == d.InitialDelayMs && p.MaxDelayMs == d.MaxDelayMs) {
		return nil
	}
	return withPolicy(s, func(p *loop.RetryPolicy) { p.InitialDelayMs, p.MaxDelayMs = d.InitialDelayMs, d.MaxDelayMs })
}

// lessJitter tries no jitter, then DSH's 0.1: a delay of 500 ms reads as
// the policy's formula gives it without jitter, where DSH's 0.1 makes it
// 481.6522593526289 ms; a jitter bug needs some, and gets DSH's.
func lessJitter(s *sim.Scenario) []*sim.Scenario {
	p := s.RetryPolicy
	if p == nil || p.JitterRatio == 0 {
		return nil
	}
	out := []*sim.Scenario{withPolicy(s, func(p *loop.RetryPolicy) { p.JitterRatio = 0 })}
	if d := defaults.RetryPolicy.JitterRatio; p.JitterRatio != d {
		out = append(out, withPolicy(s, func(p *loop.RetryPolicy) { p.JitterRatio = d }))
	}
	return out
}

// fixedJitterSamples draws every jitter sample the same, in place of the
// seed's stream of them: 0.5 (a scenario file's default), else 0, else
// 0.99, whichever keeps the plan failing; which retry a jitter bug breaks
// then no longer depends on the seed. A move goes only down that list.
func fixedJitterSamples(s *sim.Scenario) []*sim.Scenario {
	rank := len(jitterSamples)
	if s.Seed == nil {
		rank = slices.IndexFunc(jitterSamples, func(r []float64) bool { return slices.Equal(r, s.Random) })
		if rank < 0 {
			rank = len(jitterSamples)
		}
	}
	var out []*sim.Scenario
	for _, r := range jitterSamples[:rank] {
		c := clone(s)
		c.Seed, c.Random = nil, slices.Clone(r)
		out = append(out, c)
	}
	return out
}

// jitterSamples are the fixed samples fixedJitterSamples tries, in order.
var jitterSamples = [][]float64{defaults.Random, {0}, {0.99}}

// withCompaction is the plan with compaction-basic's config changed by
// edit, on a copy.
func withCompaction(s *sim.Scenario, edit func(c *compact.Config)) *sim.Scenario {
	c := clone(s)
	k := *s.Compaction
	edit(&k)
	c.Compaction = &k
	return c
}

func defaultCompaction(s *sim.Scenario) *sim.Scenario {
	if s.Compaction == nil || reflect.DeepEqual(s.Compaction, defaults.Compaction) {
		return nil
	}
	return withCompaction(s, func(c *compact.Config) { *c = *defaults.Compaction })
}

func noPruner(s *sim.Scenario) *sim.Scenario {
	if s.Compaction == nil || s.Compaction.Pruner == nil {
		return nil
	}
	return withCompaction(s, func(c *compact.Config) { c.Pruner = nil })
}

func defaultOverflowRetries(s *sim.Scenario) *sim.Scenario {
	if s.Compaction == nil || s.Compaction.MaxOverflowRetries == defaults.Compaction.MaxOverflowRetries {
		return nil
	}
	return withCompaction(s, func(c *compact.Config) { c.MaxOverflowRetries = defaults.Compaction.MaxOverflowRetries })
}

func defaultIdleTimeout(s *sim.Scenario) *sim.Scenario {
	if s.StreamIdleTimeoutMs == defaults.StreamIdleTimeoutMs {
		return nil
	}
	c := clone(s)
	c.StreamIdleTimeoutMs = defaults.StreamIdleTimeoutMs
	return c
}

func unenforcedContextWindow(s *sim.Scenario) *sim.Scenario {
	if !s.EnforceContextWindow && s.ContextWindow == defaults.ContextWindow {
		return nil
	}
	c := clone(s)
	c.EnforceContextWindow, c.ContextWindow = false, defaults.ContextWindow
	return c
}
