package sim

import (
	"fmt"
	"slices"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/session"
)

// Listener is a request-error listener of your own, plugged into the
// world: the one way Go code enters the waterfall, for a policy author's
// listener, a mutant of the zoo, or a test's. The world, the seeded swarm
// (package faults), explore, budget and hunt all take it.
type Listener struct {
	// Name is its name in a scenario's listenerOrder and in the run's
	// facts. A built-in name (ListenerRetry, ListenerCompaction) replaces
	// that listener; any other adds one.
	Name string
	// New makes the listener for one run, with what the world gives a
	// listener; state it keeps (a count, a budget) starts fresh with every
	// run, as it would with every agent. A campaign calls it from several
	// workers at once: keep state inside what it returns. A panic in it
	// is the system under test's (sut-panic), as one in the listener is.
	New func(env Env) loop.RequestErrorListener
	// Place is where the seeded swarm puts an added listener in the
	// waterfall; a scenario's listenerOrder places it exactly.
	Place Place
	// MaxRetries is the most retries it may answer in one step, judged by
	// attempts-within-policy whether or not it logs anything; Unbounded
	// for a listener without a budget of its own. The zero value is a
	// budget of none: a listener that never retries. A replacement of a
	// built-in has the built-in's budget (the route's policy, or
	// maxOverflowRetries) and place, and leaves these fields zero.
	MaxRetries int
	// Codes are the failure codes it acts on (SERVER, RATE_LIMIT, …: the
	// codes of docs/dsh.md#codes), for the seeded swarm to aim at: runs of
	// one of them longer than its budget, in one step. Empty: the swarm
	// draws from every code a provider fails with.
	Codes []string
}

// MaxListenerRetries is the largest budget a listener may declare: the
// seeded swarm tests a budget with a run of failures longer than it, and
// a run of more than this many is no run's (it outgrows the run's bound on
// events). DSH takes any safe integer for its policies; a listener that
// retries without a bound is Unbounded.
const MaxListenerRetries = 10_000

// Unbounded is the MaxRetries of a listener whose retries have no bound
// of its own (always-mode's, say).
const Unbounded = -1

// Place is where an added listener sits in the waterfall (the first
// registered is the outermost: it sees a failure first).
type Place int

const (
	// Anywhere: the seeded swarm draws its place among the built-in
	// listeners, seed by seed, so that it meets failures both before and
	// after llm-retry and compaction-basic have seen them.
	Anywhere Place = iota
	// Outermost: before every built-in listener.
	Outermost
	// Innermost: after every built-in listener, seeing only what they
	// pass on.
	Innermost
)

func (p Place) String() string {
	switch p {
	case Outermost:
		return "outermost"
	case Innermost:
		return "innermost"
	}
	return "anywhere"
}

// Env is what the world gives a listener it makes.
type Env struct {
	// Agent is the agent the listener serves: its log, surface and ports.
	Agent *loop.Agent
	// Clock is virtual time. Waits belong on the turn's signal
	// (RequestError.Signal): a wait that outlives a cancel is a finding.
	Clock  loop.Clock
	IDs    loop.IDs
	Random loop.Random
	Log    *session.Log
	// Policy is the route's retry policy; nil when it has none.
	Policy *loop.RetryPolicy
	// Compaction is the scenario's compaction-basic configuration; nil
	// when the scenario does not install it.
	Compaction *compact.Config
	// Summarizer is the world's scripted summarizer.
	Summarizer compact.Summarizer
	// Warn records a warning of the system under test in the result.
	Warn func(string)
}

// AgentName is the name a listener of listenerOrder registers on the
// agent, which the run's facts carry: DSH's own names for the built-ins.
func AgentName(name string) string {
	switch name {
	case ListenerRetry:
		return "llm-retry"
	case ListenerCompaction:
		return "compaction-basic"
	}
	return name
}

// BuiltIn reports whether a listenerOrder name is one the world installs
// by itself.
func BuiltIn(name string) bool {
	switch name {
	case ListenerRetry, ListenerCompaction, ListenerAlwaysRetry, ListenerThrow, ListenerCancelThenNext,
		ListenerCancelThenRetry, ListenerThrowOnCue:
		return true
	}
	return false
}

// Added are the listeners that add to the waterfall (not replacing a
// built-in), in order.
func Added(ls []Listener) []Listener {
	return slices.DeleteFunc(slices.Clone(ls), func(l Listener) bool { return BuiltIn(l.Name) })
}

// Order is a listener order with the added listeners of ls placed in it:
// Outermost ones first, Innermost ones last, and those placed Anywhere
// where anywhere says (Outermost or Innermost) — for a run in one fixed
// order (budget, explore); the seeded swarm draws their places instead.
func Order(base []string, ls []Listener, anywhere Place) []string {
	var outer, inner []string
	for _, l := range Added(ls) {
		place := l.Place
		if place == Anywhere {
			place = anywhere
		}
		if place == Outermost {
			outer = append(outer, l.Name)
		} else {
			inner = append(inner, l.Name)
		}
	}
	return append(append(outer, base...), inner...)
}

// CheckListeners says what is wrong with a set of plug-ins: each needs a
// name and a constructor, and no two may share a name.
func CheckListeners(ls []Listener) error {
	seen := map[string]bool{}
	for i, l := range ls {
		switch {
		case l.Name == "":
			return fmt.Errorf("listener %d has no name", i+1)
		case l.New == nil:
			return fmt.Errorf("listener %q has no constructor (New)", l.Name)
		case seen[l.Name]:
			return fmt.Errorf("two listeners are named %q", l.Name)
		case l.MaxRetries < Unbounded:
			return fmt.Errorf("listener %q: MaxRetries %d (want ≥ 0, or Unbounded)", l.Name, l.MaxRetries)
		case l.MaxRetries > MaxListenerRetries:
			return fmt.Errorf("listener %q: MaxRetries %d is more than a run can put to the test (at most %d a step; Unbounded for none)", l.Name, l.MaxRetries, MaxListenerRetries)
		case l.Place < Anywhere || l.Place > Innermost:
			return fmt.Errorf("listener %q: Place %d (want Anywhere, Outermost or Innermost)", l.Name, l.Place)
		case !listenerName(l.Name):
			return fmt.Errorf("listener %q: a name is letters, digits and ._:- up to 64, as a scenario's listenerOrder spells it", l.Name)
		case BuiltIn(l.Name) && l.Name != ListenerRetry && l.Name != ListenerCompaction:
			return fmt.Errorf("listener %q: the name of one of turnsim's test listeners (pick another; only %q and %q may be replaced)",
				l.Name, ListenerRetry, ListenerCompaction)
		case l.Name == AgentName(ListenerRetry) || l.Name == AgentName(ListenerCompaction):
			// The facts know listeners by these names: a plug-in under one
			// would be judged as the built-in (its budget, its overflow
			// bound), and removed in its place.
			return fmt.Errorf("listener %q: the name the built-in %s registers on the agent (to replace it, name the listener %q; to add one, pick another name)",
				l.Name, builtInOf(l.Name), builtInOf(l.Name))
		case (l.Name == ListenerRetry || l.Name == ListenerCompaction) && (l.Place != Anywhere || l.MaxRetries != 0 || len(l.Codes) > 0):
			return fmt.Errorf("listener %q replaces the built-in, in its place and with its budget: Place, MaxRetries and Codes are for a listener that adds to the waterfall", l.Name)
		}
		for _, code := range l.Codes {
			if code == "" {
				return fmt.Errorf("listener %q: an empty failure code in Codes", l.Name)
			}
		}
		seen[l.Name] = true
	}
	return nil
}

// find is the plug-in of a name.
func find(ls []Listener, name string) (Listener, bool) {
	i := slices.IndexFunc(ls, func(l Listener) bool { return l.Name == name })
	if i < 0 {
		return Listener{}, false
	}
	return ls[i], true
}

// builtInOf is the listenerOrder name of a built-in's agent name.
func builtInOf(agentName string) string {
	if agentName == AgentName(ListenerCompaction) {
		return ListenerCompaction
	}
	return ListenerRetry
}
