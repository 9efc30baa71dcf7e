package sim

import (
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
)

// Storage is the memory one worker's runs reuse, run after run (RunIn):
// the log's events and payloads, and the slices of the run's facts. Once
// it has grown to a run's size, a run allocates none of them, and the
// garbage collector has none of them to free.
//
// The zero value is ready to use. A result made in a storage is read
// until the storage's next run; a result that must outlive that (a
// failing run kept for its report) is left in its storage, and the worker
// goes on with a new one.
type Storage struct {
	log       session.Storage
	timeNs    []int64
	facts     []oracle.Request
	decisions []oracle.Decision
	requests  []RequestRecord
	chunks    []session.StreamChunk
}

// keep takes back the run's slices as they grew, for the next run.
func (m *Storage) keep(w *World) {
	m.timeNs, m.facts, m.decisions = w.facts.TimeNs, w.facts.Requests, w.facts.Decisions
	m.requests, m.chunks = w.requests, w.room.run
}
