package sim

import (
	"math/rand/v2"

	"github.com/turnsim/turnsim/internal/arena"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
)

// Storage is the memory one worker's runs reuse, run after run (RunIn):
// the log's events and payloads, the slices of the run's facts, and the
// oracle's records (Checker). Once
// it has grown to a run's size, a run allocates none of them, and the
// garbage collector has none of them to free.
//
// The zero value is ready to use. A result made in a storage is read
// until the storage's next run; a result that must outlive that (a
// failing run kept for its report) is left in its storage, and the worker
// goes on with a new one.
type Storage struct {
	log        session.Storage
	timeNs     []int64
	facts      []oracle.Request
	decisions  []oracle.Decision
	requests   []RequestRecord
	chunks     arena.Slices[session.StreamChunk]
	names      names
	oracle     oracle.Checker
	second     *Storage
	counts     map[string]int
	agent      loop.Memory
	streams    arena.Arena[scriptedStream]
	queue      []timed
	actions    []AppliedAction
	waterfalls []oracle.Waterfall
	budgets    []oracle.Budget
	inputs     []oracle.Input
	statuses   []loop.Status
	triggered  []triggered
	ids        []idCount
	// kept is the world, its result and what it hands the agent.
	kept *worldMemory
}

// worldMemory is the world itself, its result, its method values (made
// once for it), its routes and its summarizer: a run in the storage is
// its world made again in place. It is behind a pointer, so that a
// storage set to a new one (Storage{}) leaves a kept result as it is.
type worldMemory struct {
	world    World
	res      Result
	hooks    *worldHooks
	routeMap map[string]*loop.Route
	route    loop.Route
	summary  scriptedSummarizer
	// The jitter stream, seeded again in place.
	pcg    rand.PCG
	random rand.Rand
	// The built-in listeners, installed again in place (InstallIn).
	executor  retry.Executor
	compactor compact.Compactor
}

// jitter is the named stream "jitter" of seed (Stream), in the storage.
func (m *Storage) jitter(seed uint64) *rand.Rand {
	if m == nil {
		return Stream(seed, "jitter")
	}
	k := m.kept
	k.pcg = *rand.NewPCG(seed, StreamHash("jitter"))
	k.random = *rand.New(&k.pcg)
	return &k.random
}

// executor is the storage's llm-retry executor (nil storage: a new one).
func (m *Storage) executor() *retry.Executor {
	if m == nil {
		return &retry.Executor{}
	}
	return &m.kept.executor
}

// compactor is the storage's compaction-basic (nil storage: a new one).
func (m *Storage) compactor() *compact.Compactor {
	if m == nil {
		return &compact.Compactor{}
	}
	return &m.kept.compactor
}

// newWorld is the storage's world, made new for s.
func (m *Storage) newWorld(s *Scenario) *World {
	if m.kept == nil {
		m.kept = &worldMemory{}
	}
	w := &m.kept.world
	w.reset(s)
	w.mem = m
	return w
}

// result is the storage's result, emptied (nil storage: a new one).
func (m *Storage) result() *Result {
	if m == nil {
		return &Result{}
	}
	m.kept.res = Result{}
	return &m.kept.res
}

// routes is the routes map of one provider (nil storage: a new one).
func (m *Storage) routes(provider string, r loop.Route) map[string]*loop.Route {
	if m == nil {
		return map[string]*loop.Route{provider: &r}
	}
	k := m.kept
	k.route = r
	routes := arena.Fresh(&k.routeMap)
	routes[provider] = &k.route
	return routes
}

// summarizer is the world's scripted summarizer, from its start.
func (m *Storage) summarizer(w *World) *scriptedSummarizer {
	if m == nil {
		return &scriptedSummarizer{w: w}
	}
	m.kept.summary = scriptedSummarizer{w: w}
	return &m.kept.summary
}

// worldHooks are a world's method values, handed to the agent: made once
// for the storage's world (the same world, run after run), not each run.
type worldHooks struct {
	w          *World
	observe    func(*session.Event)
	status     func(loop.Status)
	yield      func()
	warn       func(string)
	decided    func(*loop.Decision)
	throwOnCue loop.RequestErrorListener
}

// hooksOf are w's hooks: the storage's, or new ones (nil storage).
func (m *Storage) hooksOf(w *World) *worldHooks {
	if m != nil && m.kept.hooks != nil && m.kept.hooks.w == w {
		return m.kept.hooks
	}
	h := &worldHooks{w: w, observe: w.observe, status: w.status, yield: w.yield, warn: w.warn, decided: w.decided, throwOnCue: w.throwOnCue}
	if m != nil {
		m.kept.hooks = h
	}
	return h
}

// Second is a storage of the worker's beside this one, for a second run
// whose result is read beside the first's (a seed run twice for
// nondeterminism). Nil storage: nil.
func (m *Storage) Second() *Storage {
	if m == nil {
		return nil
	}
	if m.second == nil {
		m.second = &Storage{}
	}
	return m.second
}

// roomOf is s emptied, or a slice with room for n when there is none yet.
func roomOf[T any](s []T, n int) []T {
	if s == nil {
		return make([]T, 0, n)
	}
	return s[:0]
}

// agentMemory is the loop's memory in the storage (nil storage: none).
func (m *Storage) agentMemory() *loop.Memory {
	if m == nil {
		return nil
	}
	return &m.agent
}

// Checker is the oracle's checker, with its memory kept in the storage
// (nil storage: a checker of its own).
func (m *Storage) Checker() *oracle.Checker {
	if m == nil {
		return &oracle.Checker{}
	}
	return &m.oracle
}

// names are the ids and action names a worker's runs made, kept to be
// given again: run after run the same "message-3" and the same input's
// name would otherwise be formatted anew. A name is a string, never
// changed, so a result kept past the next run shares it safely.
type names struct{ made map[nameKey]string }

// nameKey is what a name is made of: an id's kind and number, or an
// input's kind and text.
type nameKey struct {
	kind, text string
	n, m       int // an id's number; a tool call's request and call
}

// maxNames bounds the names a storage keeps: a worker's runs repeat a few
// hundred.
const maxNames = 4096

// of is the name of k, made by make the first time (nil names: each time).
func (ns *names) of(k nameKey, make func() string) string {
	if ns == nil {
		return make()
	}
	if name, ok := ns.made[k]; ok {
		return name
	}
	name := make()
	if len(ns.made) < maxNames {
		if ns.made == nil {
			ns.made = map[nameKey]string{}
		}
		ns.made[k] = name
	}
	return name
}

// keep takes back the run's slices as they grew, for the next run.
func (m *Storage) keep(w *World) {
	m.timeNs, m.facts, m.decisions = w.facts.TimeNs, w.facts.Requests, w.facts.Decisions
	m.requests = w.requests
	m.waterfalls = w.facts.Waterfalls
	m.queue, m.actions = w.clock.queue[:0], w.actions
	m.budgets, m.inputs, m.statuses, m.triggered, m.ids = w.facts.Budgets, w.facts.Inputs, w.statuses, w.triggered, w.ids.counts
}
