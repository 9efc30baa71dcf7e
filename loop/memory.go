package loop

import "github.com/turnsim/turnsim/internal/arena"

// Memory is what one worker's agents reuse, agent after agent
// (Config.Memory): the surface's nodes and the attempts. A new agent in
// a memory takes over what the one before it grew, which must no longer
// run. The zero value is ready to use.
type Memory struct {
	last     *Agent
	attempts arena.Arena[attemptMemory]
}

// take hands a's the memory the agent before it used.
func (m *Memory) take(a *Agent) {
	if last := m.last; last != nil {
		clear(last.surface.nodes)
		a.surface.nodes = last.surface.nodes[:0]
	}
	m.attempts.Reset()
	a.attempts, m.last = &m.attempts, a
}
