package faults

import (
	"slices"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// Shrink makes a failing plan smaller while it still violates invariant
// id: it removes plan entries (world actions, late inputs, outages,
// summaries, model answers, a throwing listener), then simplifies each (a
// plain SERVER 500 for any failure, no latency, failures before any
// chunk, no Retry-After, the earliest trigger, outages earlier and
// shorter), and repeats
// until nothing changes. The result is 1-minimal: removing any single
// entry makes the violation disappear. It returns the number of runs it
// took.
//
// A candidate whose plug-in blocks outside virtual time ends the
// shrinking where it is: every run that reaches the plug-in would wait
// out the watchdog's seconds again.
func Shrink(s *sim.Scenario, id oracle.ID, opts sim.Options) (*sim.Scenario, int) {
	runs, blocked := 0, false
	return ShrinkWhile(s, func(c *sim.Scenario) bool {
		if blocked {
			return false
		}
		runs++
		res, vs := Check(c, opts)
		if res.Blocked != "" {
			blocked = true
			return false
		}
		return slices.ContainsFunc(vs, func(v oracle.Violation) bool { return v.Invariant == id })
	}), runs
}

// ShrinkWhile makes a plan smaller while keeps holds, the way Shrink does
// for a violation: keeps may be anything that can be re-checked (a
// difference from the real DSH, say), and may bound its own cost by
// answering false once its budget is spent.
func ShrinkWhile(s *sim.Scenario, keeps func(*sim.Scenario) bool) *sim.Scenario {
	cur := clone(s)
	for changed := true; changed; {
		changed = false
		for _, cand := range removals(cur) {
			if keeps(cand) {
				cur, changed = cand, true
				break
			}
		}
		if changed {
			continue
		}
		for _, cand := range simplifications(cur) {
			if keeps(cand) {
				cur, changed = cand, true
				break
			}
		}
	}
	return cur
}

// Entries counts a plan's entries: what Shrink removes.
func Entries(s *sim.Scenario) int {
	n := len(s.World) + max(len(s.Inputs)-1, 0) + len(s.Outages) + len(s.Summaries) + len(s.Requests)
	if slices.Contains(s.ListenerOrder, sim.ListenerThrow) {
		n++
	}
	return n
}

// removals are the plan with one entry removed, each way.
func removals(s *sim.Scenario) []*sim.Scenario {
	var out []*sim.Scenario
	for i := range s.World {
		c := clone(s)
		c.World = slices.Delete(c.World, i, i+1)
		out = append(out, c)
	}
	for i := 1; i < len(s.Inputs); i++ { // the first input starts the run
		c := clone(s)
		c.Inputs = slices.Delete(c.Inputs, i, i+1)
		out = append(out, c)
	}
	for i := range s.Outages {
		c := clone(s)
		c.Outages = slices.Delete(c.Outages, i, i+1)
		out = append(out, c)
	}
	// A listener that throws is a fault like any other; llm-retry,
	// compaction-basic and plug-ins are the system under test and stay.
	if i := slices.Index(s.ListenerOrder, sim.ListenerThrow); i >= 0 {
		c := clone(s)
		c.ListenerOrder = slices.Delete(slices.Clone(s.ListenerOrder), i, i+1)
		out = append(out, c)
	}
	for i := range s.Summaries {
		c := clone(s)
		c.Summaries = slices.Delete(c.Summaries, i, i+1)
		out = append(out, c)
	}
	for i := len(s.Requests) - 1; i >= 0; i-- {
		c := clone(s)
		c.Requests = slices.Delete(c.Requests, i, i+1)
		out = append(out, c)
	}
	return out
}

// simplifications are the plan with one entry made milder, each way.
func simplifications(s *sim.Scenario) []*sim.Scenario {
	var out []*sim.Scenario
	for i, r := range s.Requests {
		// The plainest failure first: a seed's failure is one of many
		// that break the same thing, and plans that differ only there
		// should shrink to one (and share one corpus entry).
		if (r.Fail != nil || r.Hang) && !plainFailure(&r) {
			c := clone(s)
			c.Requests[i] = sim.Outcome{Fail: &session.LlmFailure{Code: "SERVER", Status: &plainStatus, Message: "upstream 500"}}
			out = append(out, c)
		}
		if r.LatencyMs > 0 {
			c := clone(s)
			c.Requests[i].LatencyMs = 0
			out = append(out, c)
		}
		if r.Fail != nil && (r.AfterChunks > 0 || r.Stream != nil) {
			c := clone(s)
			c.Requests[i].AfterChunks, c.Requests[i].Stream = 0, nil
			out = append(out, c)
		}
		if r.Fail != nil && r.Fail.ProviderRetryAfterMs != nil {
			c := clone(s)
			f := *c.Requests[i].Fail
			f.ProviderRetryAfterMs = nil
			c.Requests[i].Fail = &f
			out = append(out, c)
		}
		if len(r.ToolCalls) > 0 && r.ToolCalls[0].LatencyMs > 0 {
			c := clone(s)
			c.Requests[i].ToolCalls = slices.Clone(r.ToolCalls)
			c.Requests[i].ToolCalls[0].LatencyMs = 0
			out = append(out, c)
		}
	}
	for i, o := range s.Outages {
		// Earlier, then shorter: an outage that starts with the run often
		// makes the later turns its plan needed removable.
		if o.FromMs > 0 {
			c := clone(s)
			c.Outages[i].FromMs, c.Outages[i].ToMs = 0, o.ToMs-o.FromMs
			out = append(out, c)
		}
		if length := o.ToMs - o.FromMs; length >= 2 {
			c := clone(s)
			c.Outages[i].ToMs = o.FromMs + float64(int(length/2))
			out = append(out, c)
		}
	}
	for i, a := range s.World {
		if a.PlusMs > 0 {
			c := clone(s)
			c.World[i].PlusMs = 0
			out = append(out, c)
		}
		if a.After != "" && a.Nth > 1 {
			c := clone(s)
			c.World[i].Nth--
			out = append(out, c)
		}
		if a.KeepInbox {
			c := clone(s)
			c.World[i].KeepInbox = false
			out = append(out, c)
		}
	}
	return out
}

// clone copies what shrinking changes.
func clone(s *sim.Scenario) *sim.Scenario {
	c := *s
	c.Requests = slices.Clone(s.Requests)
	c.Summaries = slices.Clone(s.Summaries)
	c.Inputs = slices.Clone(s.Inputs)
	c.World = slices.Clone(s.World)
	c.Outages = slices.Clone(s.Outages)
	return &c
}

// plainStatus is the plain failure's status: SERVER 500.
var plainStatus = 500

// plainFailure reports a request that fails as plainly as a plan can: a
// SERVER 500 before any chunk, at once, with nothing else.
func plainFailure(r *sim.Outcome) bool {
	f := r.Fail
	return f != nil && f.Code == "SERVER" && f.Status != nil && *f.Status == plainStatus && f.ProviderRetryAfterMs == nil &&
		!r.Hang && r.AfterChunks == 0 && r.Stream == nil && r.LatencyMs == 0 && !r.ListenerThrows
}
