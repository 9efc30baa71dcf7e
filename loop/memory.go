package loop

import (
	"github.com/turnsim/turnsim/internal/arena"
	"github.com/turnsim/turnsim/loop/session"
)

// Memory is what one worker's agents reuse, agent after agent
// (Config.Memory): the agent itself, its surface's nodes, its listeners
// and observers, and the attempts. A new agent in a memory is the one
// before it, emptied: that one must no longer run, nor be read.
// The zero value is ready to use.
type Memory struct {
	last     *Agent
	attempts arena.Arena[attemptMemory]
	requests arena.Arena[Request]
	failures arena.Arena[RequestError]
}

// agent is the memory's agent, emptied, for log, cfg and ports.
func (m *Memory) agent(log *session.Log, cfg Config, ports Ports) *Agent {
	a := m.last
	if a == nil {
		a = &Agent{}
		m.last = a
	}
	// What the last agent grew, emptied so that it keeps nothing alive.
	nodes, listeners := emptied(a.surface.nodes), emptied(a.listeners)
	onAppend, onStatus, onDecision := emptied(a.onAppend), emptied(a.onStatus), emptied(a.onDecision)
	// (Not the inbox: its messages are the log's, claimed into its
	// events.) The frames and remove functions are bound to this agent,
	// and so good for the next.
	frames, chains, removers := a.frames, emptied(a.chains), a.removers
	for _, f := range frames[:a.framesUsed] {
		f.chain, f.ev = nil, nil // the last agent's: not kept alive
	}
	*a = Agent{log: log, cfg: cfg, ports: ports, listeners: listeners, onAppend: onAppend, onStatus: onStatus, onDecision: onDecision,
		frames: frames, chains: chains, removers: removers, keepFrames: true}
	a.surface.nodes = nodes
	m.attempts.Reset()
	m.requests.Reset()
	m.failures.Reset()
	a.attempts, a.requests, a.failures = &m.attempts, &m.requests, &m.failures
	return a
}

// emptied is s with no elements and its room cleared.
func emptied[T any](s []T) []T {
	clear(s[:cap(s)])
	return s[:0]
}
