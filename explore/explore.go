package explore

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// Policy is the recovery configuration a workload runs under.
type Policy struct {
	Name string
	// Recovery is the route's: its retry policy (nil: none), compaction-
	// basic's settings (nil: not installed) and the listeners' order
	// (nil: retry, then compaction).
	sim.Recovery
}

// DefaultPolicies are DSH's three retry modes with DSH's defaults, each
// with compaction-basic at its defaults — the normal policy a route
// resolves to when it configures none, always mode, and no policy — and
// the default policy with compaction's budget at its edge
// (maxOverflowRetries 0), where an unchecked counter shows at once: a
// one-turn workload has too little history to compact twice.
func DefaultPolicies() []Policy {
	always := &loop.RetryPolicy{Mode: loop.ModeAlways, InitialDelayMs: retry.DefaultInitialDelayMs,
		MaxDelayMs: retry.DefaultMaxDelayMs, JitterRatio: retry.DefaultJitterRatio}
	cfg := func(overflowRetries int) *compact.Config {
		c := compact.DefaultConfig()
		c.MaxOverflowRetries = overflowRetries
		return &c
	}
	return []Policy{
		{Name: "dsh-default", Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy(), Compaction: cfg(1)}},
		{Name: "always", Recovery: sim.Recovery{RetryPolicy: always, Compaction: cfg(1)}},
		{Name: "none", Recovery: sim.Recovery{Compaction: cfg(1)}},
		{Name: "dsh-default-no-overflow-retries", Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy(), Compaction: cfg(0)}},
	}
}

// Workload is the bounded workload explored: one turn of two steps, a tool
// call and then the answer. The tool's result is a few thousand characters,
// so that compaction has something to condense.
func Workload(p Policy) *sim.Scenario {
	seed := uint64(1)
	answer := "The notes say retries stay in their step."
	return &sim.Scenario{
		Name: "explore-" + p.Name, Provider: "mock", Model: "mock-model", ContextWindow: 128000,
		Recovery: sim.Recovery{RetryPolicy: p.RetryPolicy, Compaction: p.Compaction, ListenerOrder: p.Order()},
		Seed:     &seed, StreamIdleTimeoutMs: 300_000, MaxEvents: 2000,
		Requests: []sim.Outcome{
			{ToolCalls: []sim.ToolCallSpec{{Name: "read", Arguments: `{"path":"notes.md"}`,
				Result: strings.Repeat("notes: retries stay in the same turn and step; compaction replaces old history.\n", 40)}}},
			{Text: &answer},
		},
		Inputs: []sim.Input{{Kind: "send", Text: "Read the notes and say what they claim about retries.", Trigger: sim.Trigger{Nth: 1}}},
	}
}

// Options bound an exploration.
type Options struct {
	// MaxFaults is K: plans have at most this many faults.
	MaxFaults int
	// Sim is the system under test (a mutant's options, or the loop's).
	Sim sim.Options
	// Workers run plans in parallel; the report does not depend on it.
	Workers int
	// StopAt ends the exploration at the first plan that violates this
	// invariant (AnyInvariant: any; "": explore everything).
	StopAt oracle.ID
	// NoDedupe grows every plan, not one per state: the check that
	// de-duplication loses no reachable state (the distinct logs and
	// states must be the same with and without it).
	NoDedupe bool
}

// AnyInvariant as Options.StopAt stops at the first violating plan.
const AnyInvariant oracle.ID = "*"

// AlphabetSize is how many kinds of fault explore places.
func AlphabetSize() int { return len(alphabet) }

// Level is one plan size's count.
type Level struct {
	Faults int `json:"faults"`
	// Plans ran; Distinct of them wrote a log no earlier plan wrote, and
	// States reached a state no earlier plan reached (a state is more than
	// a log: see runPlan); Violating broke an invariant.
	Plans     int `json:"plans"`
	Distinct  int `json:"distinct"`
	States    int `json:"states"`
	Violating int `json:"violating"`
	// Extended is how many plans of this size the next size grew from.
	Extended int `json:"extended"`
	// Refused is how many plans the system under test could not be asked
	// (DSH's own loop refuses a failure code with no wire form, a
	// listener that throws on cue): counted apart, never grown from.
	Refused int `json:"refused,omitempty"`
}

// Failure is a violating plan: the first found for its invariant.
type Failure struct {
	Plan      Plan
	Scenario  *sim.Scenario
	Violation oracle.Violation
	// Index is the plan's place in the exploration order, from 1.
	Index int
}

// Report is an exploration's outcome.
type Report struct {
	Policy    string
	MaxFaults int
	Levels    []Level
	// Plans, Distinct, States, Violating and Refused add up the levels.
	Plans, Distinct, States, Violating, Refused int
	// Failures hold the first violating plan of each invariant, in the
	// order found; Found says whether StopAt was reached.
	Failures []Failure
	Found    bool
	// Stopped says the exploration ended before its bound (Ctrl-C).
	Stopped bool
	// Blocked names the plug-in that blocked outside virtual time, which
	// ended the exploration at that plan (its failure is among
	// Failures): every plan that reaches it would wait out the watchdog.
	Blocked string
}

// outcome is what one plan's run gave.
type outcome struct {
	state, log [16]byte
	violations []oracle.Violation
	scenario   *sim.Scenario
	blocked    string
	refused    string
}

// Explore runs every plan of at most o.MaxFaults faults over the workload.
// Plans are generated level by level, each new fault at or after the last
// (canonical order), and run in batches; results are read in generation
// order, so the report is the same for any number of workers. It stops
// early, marked Stopped, when ctx ends (Ctrl-C).
func Explore(ctx context.Context, p Policy, o Options) Report {
	base := Workload(p)
	// Listeners plugged in join the workload's order; one placed Anywhere
	// goes first, where it meets every failure.
	base.ListenerOrder = sim.Order(base.ListenerOrder, o.Sim.Listeners, sim.Outermost)
	if o.Workers < 1 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	r := Report{Policy: p.Name, MaxFaults: o.MaxFaults}
	// seen maps a state to the rank of the earliest last fault that
	// reached it: a plan reaching it with an earlier last fault can grow
	// where the first could not, and is extended too.
	seen := map[[16]byte]rank{}
	logs := map[[16]byte]struct{}{}
	frontier := []Plan{nil}
	for size := 0; size <= o.MaxFaults && len(frontier) > 0; size++ {
		level := Level{Faults: size}
		var next []Plan
		// Each plan of this size is a parent's extension (the root is the
		// empty plan), made a batch at a time: a level of three faults
		// has millions of plans, and only its distinct states are kept.
		gen := &generator{base: base, frontier: frontier, sim: o.Sim, root: size == 0}
		const batch = 512
		for {
			if ctx.Err() != nil {
				r.Stopped = true
				break
			}
			chunk := gen.next(batch)
			if len(chunk) == 0 {
				break
			}
			outs := runAll(base, chunk, o)
			for i, out := range outs {
				plan := chunk[i]
				level.Plans++
				if out.refused != "" {
					level.Refused++
					continue
				}
				place := lastOf(plan)
				prev, ok := seen[out.state]
				if !ok {
					level.States++
				}
				if _, logged := logs[out.log]; !logged {
					logs[out.log] = struct{}{}
					level.Distinct++
				}
				earlier := !ok || place.before(prev)
				if earlier {
					seen[out.state] = place
				}
				if (earlier || o.NoDedupe) && size < o.MaxFaults {
					next = append(next, plan)
				}
				if len(out.violations) == 0 {
					continue
				}
				level.Violating++
				for _, v := range out.violations {
					if !slices.ContainsFunc(r.Failures, func(f Failure) bool { return f.Violation.Invariant == v.Invariant }) {
						r.Failures = append(r.Failures, Failure{Plan: plan, Scenario: out.scenario, Violation: v, Index: r.Plans + level.Plans})
					}
					if o.StopAt == AnyInvariant || o.StopAt != "" && v.Invariant == o.StopAt {
						r.Found = true
					}
				}
				if out.blocked != "" {
					r.Blocked = out.blocked
				}
				if r.Found || r.Blocked != "" {
					break
				}
			}
			if r.Found || r.Blocked != "" {
				break
			}
		}
		level.Extended = len(next)
		r.Levels = append(r.Levels, level)
		r.Plans += level.Plans
		r.Distinct += level.Distinct
		r.States += level.States
		r.Violating += level.Violating
		r.Refused += level.Refused
		if r.Found || r.Stopped || r.Blocked != "" {
			break
		}
		frontier = next
	}
	return r
}

// generator makes a level's plans in order: each parent's extensions, in
// canonical order, parent after parent.
type generator struct {
	base     *sim.Scenario
	frontier []Plan
	sim      sim.Options
	root     bool
	pending  []Plan
}

func (g *generator) next(n int) []Plan {
	if g.root {
		g.root, g.frontier = false, nil
		return []Plan{nil}
	}
	for len(g.pending) < n && len(g.frontier) > 0 {
		// The parent runs again rather than keeping its result from the
		// level before: a frontier is tens of thousands of plans, and a
		// run's result is tens of kilobytes.
		parent := g.frontier[0]
		g.frontier = g.frontier[1:]
		res := sim.RunWith(apply(g.base, parent), g.sim)
		var last *Fault
		if len(parent) > 0 {
			last = &parent[len(parent)-1]
		}
		for _, f := range extensions(res, last) {
			g.pending = append(g.pending, append(slices.Clip(parent), f))
		}
	}
	k := min(n, len(g.pending))
	out := g.pending[:k:k]
	g.pending = g.pending[k:]
	return out
}

// lastOf is the rank of a plan's last fault, where the plan can grow
// from; the empty plan's comes before every fault.
func lastOf(p Plan) rank {
	if len(p) == 0 {
		return rank{at: position{-1, 0}, letter: -1}
	}
	return p[len(p)-1].rank()
}

// runAll runs plans on o.Workers goroutines; out[i] is plans[i]'s.
func runAll(base *sim.Scenario, plans []Plan, o Options) []outcome {
	out := make([]outcome, len(plans))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(o.Workers, len(plans)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = runPlan(base, plans[i], o.Sim)
			}
		}()
	}
	for i := range plans {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// runPlan runs and checks one plan and names the state it reached: its
// log, the requests the model received (a request that logged nothing is a
// state too), and whether the agent and llm-retry were disposed — which
// the log does not show and which change what follows: a disposed agent
// logs what a cancel with cause "disposed" logs, but refuses the messages
// after it; a disposed llm-retry retries nothing more. (Found by
// exploring without de-duplication: a state was missing when the state
// was the log and the requests alone.)
func runPlan(base *sim.Scenario, p Plan, opts sim.Options) outcome {
	s := apply(base, p)
	if planner, ok := opts.System.(faults.Planner); ok {
		s = planner.Plan(s) // the plan as that system enacts it
	}
	res, vs := judge.Check(s, opts)
	if res.Refused != "" {
		return outcome{refused: res.Refused}
	}
	h := fnv.New128a()
	h.Write(judge.LogBytes(res))
	var log [16]byte
	copy(log[:], h.Sum(nil))
	var buf [8]byte
	for _, rq := range res.Facts.Requests {
		binary.LittleEndian.PutUint64(buf[:], uint64(rq.Seq))
		h.Write(buf[:])
		binary.LittleEndian.PutUint64(buf[:], uint64(rq.Attempt))
		h.Write(buf[:])
	}
	h.Write([]byte{b2u(res.Disposed), b2u(res.RetryDisposed)})
	var state [16]byte
	copy(state[:], h.Sum(nil))
	out := outcome{state: state, log: log, violations: vs, blocked: res.Blocked}
	if len(vs) > 0 {
		out.scenario = s
	}
	return out
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}
