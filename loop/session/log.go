package session

import (
	"slices"
	"time"
)

// Clock is the port the log takes append times from: the wall clock in
// production, the virtual clock in simulation.
type Clock interface {
	Now() time.Time
}

// Log is an append-only session log. Append assigns seq (the event's index)
// and time (the clock's epoch milliseconds); nothing is ever changed or
// removed. It is not safe for concurrent use: the loop owns it.
type Log struct {
	header Header
	clock  Clock
	events []Event
}

// NewLog starts an empty log with header h.
func NewLog(h Header, clock Clock) *Log {
	return &Log{header: h, clock: clock}
}

// Header is the log's header.
func (l *Log) Header() Header { return l.header }

// Len is the number of events; the next event gets seq Len().
func (l *Log) Len() int { return len(l.events) }

// Events returns the events in seq order. The slice must not be modified.
func (l *Log) Events() []Event { return l.events }

// At returns the event with the given seq.
func (l *Log) At(seq int64) *Event { return &l.events[seq] }

// Grow makes room for n more events without reallocating.
func (l *Log) Grow(n int) { l.events = slices.Grow(l.events, n) }

// Append appends a non-surface event and returns it.
func (l *Log) Append(p Payload) Event {
	return l.append(Event{Data: p})
}

// AppendSurface appends a surface event with its surface operation and the
// seqs it was derived from.
func (l *Log) AppendSurface(p Payload, op SurfaceOp, sourceEventSeqs []int64) Event {
	return l.append(Event{Data: p, SurfaceOp: &op, SourceEventSeqs: sourceEventSeqs})
}

func (l *Log) append(e Event) Event {
	e.Seq = int64(len(l.events))
	e.Time = l.clock.Now().UnixMilli()
	l.events = append(l.events, e)
	return e
}
