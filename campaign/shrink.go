package campaign

import (
	"slices"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// Shrunk is what Shrink made of a failing plan.
type Shrunk struct {
	// Scenario is the shrunk plan.
	Scenario *sim.Scenario
	// Violation is the shrunk plan's violation of the invariant shrunk
	// for, and Result the run that gave it. Both are empty when a
	// candidate blocked before any smaller plan kept the violation: the
	// plan is then the one given, whose violation the caller has.
	Violation oracle.Violation
	Result    *sim.Result
	// Runs is how many runs shrinking took.
	Runs int
	// Blocked: a candidate's plug-in blocked outside virtual time, and
	// shrinking ended there.
	Blocked bool
}

// Shrink makes a failing plan smaller while it still violates invariant
// id, and brings it to a canonical form, so that the seeds one bug fails
// shrink to one plan (and one corpus entry), or to a few where the
// failures really differ:
//
//   - it removes plan entries (world actions, late inputs, outages,
//     summaries, model answers, a throwing listener);
//   - it simplifies each (a plain SERVER 500 for any failure, no latency,
//     failures before any chunk, no Retry-After, the earliest trigger,
//     outages from 0 ms, and every time as early and every outage as
//     short as the violation allows);
//   - it moves the drawn configuration toward DSH's defaults (see
//     canonicalConfig), but for what keep names;
//
// and repeats until nothing changes. The result is 1-minimal: removing
// any single entry makes the violation disappear.
//
// A candidate whose plug-in blocks outside virtual time ends the
// shrinking where it is: every run that reaches the plug-in would wait
// out the watchdog's seconds again.
func Shrink(s *sim.Scenario, id oracle.ID, opts sim.Options, keep Keep) Shrunk {
	var out Shrunk
	violation := func(vs []oracle.Violation) (oracle.Violation, bool) {
		i := slices.IndexFunc(vs, func(v oracle.Violation) bool { return v.Invariant == id })
		if i < 0 {
			return oracle.Violation{}, false
		}
		return vs[i], true
	}
	out.Scenario = ShrinkWhile(s, keep, func(c *sim.Scenario) bool {
		if out.Blocked {
			return false
		}
		out.Runs++
		res, vs := judge.Check(c, opts)
		if res.Blocked != "" {
			out.Blocked = true
			return false
		}
		v, ok := violation(vs)
		if ok {
			out.Violation, out.Result = v, res
		}
		return ok
	})
	if out.Result == nil && !out.Blocked {
		// Nothing smaller kept the violation: the plan given is the
		// shrunk one, and its run says what it violates.
		out.Runs++
		res, vs := judge.Check(out.Scenario, opts)
		if v, ok := violation(vs); ok && res.Blocked == "" {
			out.Violation, out.Result = v, res
		}
	}
	return out
}

// ShrinkWhile makes a plan smaller while keeps holds, the way Shrink does
// for a violation: keeps may be anything that can be re-checked (a
// difference from the real DSH, say), and may bound its own cost by
// answering false once its budget is spent.
//
// The plan's entries are shrunk first, to a fixpoint; then its
// configuration is made canonical, and its outages as short and its
// inputs and actions as early as keeps allows;
// when either changed anything, the entries are shrunk again.
func ShrinkWhile(s *sim.Scenario, keep Keep, keeps func(*sim.Scenario) bool) *sim.Scenario {
	cur := clone(s)
	for {
		cur = shrinkEntries(cur, keeps)
		// The configuration before the times: an outage made as short as
		// a drawn backoff of 1 ms allows no longer covers DSH's 500 ms,
		// and the default would be refused where it is the one that is
		// kept when asked first.
		var shortened, canonical bool
		cur, canonical = canonicalConfig(cur, keep, keeps)
		cur, shortened = shortenTimes(cur, keep, keeps)
		if !shortened && !canonical {
			return cur
		}
	}
}

// shrinkEntries removes and simplifies the plan's entries until no single
// step keeps the plan failing.
func shrinkEntries(cur *sim.Scenario, keeps func(*sim.Scenario) bool) *sim.Scenario {
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

// PlanEntries counts a plan's entries (world actions, late inputs,
// outages, summaries, model answers, a throwing listener): what Shrink
// removes.
func PlanEntries(s *sim.Scenario) int {
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
		// A failure that must not be retried (by DSH's default codes)
		// becomes the plainest of those, INVALID_REQUEST 400, when the
		// plainest retryable one does not keep the plan failing.
		if rank := plainRank(&r); (r.Fail != nil || r.Hang) && rank > 0 {
			for _, p := range plainFailures[:rank] {
				c := clone(s)
				f, status := p, *p.Status
				f.Status = &status
				c.Requests[i] = sim.Outcome{Fail: &f}
				out = append(out, c)
			}
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
		// An outage that the plan needs only one request of is that
		// request failing: the same failure, which plans of a failing
		// request share. From 0 it is the first; later, whichever the
		// requests before it leave it (each place is tried).
		places := 0
		if o.FromMs > 0 && o.ToMs-o.FromMs <= 1 {
			places = len(s.Requests)
		}
		if o.FromMs == 0 || places > 0 {
			for at := 0; at <= places; at++ {
				c := clone(s)
				c.Outages = slices.Delete(c.Outages, i, i+1)
				f, status := plainFailures[0], *plainFailures[0].Status
				f.Status = &status
				c.Requests = slices.Insert(c.Requests, at, sim.Outcome{Fail: &f})
				out = append(out, c)
			}
		}
		// Earlier: an outage that starts with the run often makes the
		// later turns its plan needed removable (shortenTimes makes it
		// shorter).
		if o.FromMs > 0 {
			c := clone(s)
			c.Outages[i].FromMs, c.Outages[i].ToMs = 0, o.ToMs-o.FromMs
			out = append(out, c)
		}
	}
	for i := 1; i < len(s.Inputs); i++ {
		in := s.Inputs[i]
		// A followup, the plainest late input: a steer or an inject the
		// failure does not depend on becomes one. Else an inject becomes
		// a steer, which also wakes the agent: where a step must claim
		// the message, the two are one failure.
		if in.Kind == "steer" || in.Kind == "inject" {
			c := clone(s)
			c.Inputs[i].Kind = "followup"
			out = append(out, c)
		}
		if in.Kind == "inject" {
			c := clone(s)
			c.Inputs[i].Kind = "steer"
			out = append(out, c)
		}
		// The text the plan would draw for an input of its kind in its
		// place: "a late steer (3)" made a followup, the workload's
		// second prompt and "a late inject (4)" left second by a
		// removal are one input when the failure does not need the
		// words.
		if t := faults.LateText(in.Kind, i+1); in.Text != t {
			c := clone(s)
			c.Inputs[i].Text = t
			out = append(out, c)
		}
		// By the clock rather than after an event: "1 ms after the
		// first llm/retry" and "at 1 ms" are the same moment when the
		// first attempt fails at once, and one plan (shortenTimes then
		// makes it as early as it can be).
		if in.After != "" {
			c := clone(s)
			c.Inputs[i].Trigger = sim.Trigger{AtMs: 1, Nth: 1}
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
		// A cancel by the user, the plainest cause: plans that differ
		// only in who cancelled (a hook, a parent, a disposal) are one
		// when the cause does not matter.
		if a.Do == "cancel" && (a.Cause.Kind != session.CauseUser || a.Cause.Reason != "") {
			c := clone(s)
			c.World[i].Cause = session.Cause{Kind: session.CauseUser}
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

// plainFailures are the plain failures, plainest first: SERVER 500,
// which DSH's default policy retries, and INVALID_REQUEST 400, which it
// does not.
var plainFailures = []session.LlmFailure{
	{Code: "SERVER", Status: &serverStatus, Message: "upstream 500"},
	{Code: "INVALID_REQUEST", Status: &invalidStatus, Message: "invalid request"},
}

var serverStatus, invalidStatus = 500, 400

// plainRank is the index in plainFailures of the request's failure when
// it is one of them, failing before any chunk, at once, with nothing
// else; len(plainFailures) when it is none.
func plainRank(r *sim.Outcome) int {
	f := r.Fail
	if f == nil || f.ProviderRetryAfterMs != nil || r.Hang || r.AfterChunks != 0 || r.Stream != nil || r.LatencyMs != 0 || r.ListenerThrows || f.Status == nil {
		return len(plainFailures)
	}
	for i, p := range plainFailures {
		if f.Code == p.Code && *f.Status == *p.Status && f.Message == p.Message {
			return i
		}
	}
	return len(plainFailures)
}
