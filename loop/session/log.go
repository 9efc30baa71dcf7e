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
	mem    *Storage
}

// NewLog starts an empty log with header h, in memory of its own.
func NewLog(h Header, clock Clock) *Log {
	return &Log{header: h, clock: clock, mem: &Storage{}}
}

// NewLogIn starts an empty log with header h in st's memory, which the
// log before it in st gave back: that log's events, and the payloads
// appended to it by copy, must no longer be read.
func NewLogIn(st *Storage, h Header, clock Clock) *Log {
	st.reset()
	st.log = Log{header: h, clock: clock, mem: st}
	return &st.log
}

// Header is the log's header.
func (l *Log) Header() Header { return l.header }

// Len is the number of events; the next event gets seq Len().
func (l *Log) Len() int { return len(l.mem.events) }

// Events returns the events in seq order. The slice must not be modified.
func (l *Log) Events() []Event { return l.mem.events }

// At returns the event with the given seq.
func (l *Log) At(seq int64) *Event { return &l.mem.events[seq] }

// Grow makes room for n more events without reallocating.
func (l *Log) Grow(n int) { l.mem.events = slices.Grow(l.mem.events, n) }

// Append appends a non-surface event and returns it. The log keeps p
// itself; AppendCopy keeps a copy in the log's storage.
func (l *Log) Append(p Payload) Event {
	return l.append(Event{Data: p})
}

// AppendSurface appends a surface event with its surface operation and the
// seqs it was derived from.
func (l *Log) AppendSurface(p Payload, op SurfaceOp, sourceEventSeqs []int64) Event {
	return l.append(Event{Data: p, SurfaceOp: l.mem.ops.Put(&op), SourceEventSeqs: sourceEventSeqs})
}

// AppendCopy appends a non-surface event whose payload is a copy of *v in
// the log's storage: with a Storage reused run after run, appending
// allocates nothing once the storage has grown to a run's size. The
// caller's *v is not kept, so a literal can stay on its stack.
func AppendCopy[T any, P payloadPointer[T]](l *Log, v *T) Event {
	return l.append(Event{Data: keep[T, P](l.mem, v)})
}

// AppendSurfaceCopy is AppendSurface with a copy of *v, as AppendCopy.
func AppendSurfaceCopy[T any, P payloadPointer[T]](l *Log, v *T, op SurfaceOp, sourceEventSeqs []int64) Event {
	return l.append(Event{Data: keep[T, P](l.mem, v), SurfaceOp: l.mem.ops.Put(&op), SourceEventSeqs: sourceEventSeqs})
}

// Room is an empty slice with room for n bytes that an event of the log
// keeps (the JSON of a block or a content), from the log's storage: the
// storage's next log writes over them. A slice grown past n is copied to
// memory of its own, as any append would.
func (l *Log) Room(n int) []byte { return l.mem.bytes.Room(n, 4<<10) }

// MessagesRoom, SeqsRoom and StringsRoom are Room for the messages, seqs
// and ids an event keeps (an inbox splice's messages, a message's
// sources, a node's tool-call ids).
func (l *Log) MessagesRoom(n int) []UserMessage { return l.mem.messages.Room(n, 16) }
func (l *Log) SeqsRoom(n int) []int64           { return l.mem.seqs.Room(n, 64) }
func (l *Log) StringsRoom(n int) []string       { return l.mem.strings.Room(n, 16) }

// Holds reports whether b lies in bytes Room handed out, which keep their
// contents as long as the log: a string read from them can share them.
func (l *Log) Holds(b []byte) bool { return l.mem.bytes.Holds(b) }

// KeepReason, KeepFailure and KeepInt are copies of *v in the log's
// storage, for an event's chunk, end or field that points to them.
func (l *Log) KeepReason(v *FinishReason) *FinishReason { return l.mem.reasons.Put(v) }
func (l *Log) KeepFailure(v *LlmFailure) *LlmFailure    { return l.mem.failures.Put(v) }
func (l *Log) KeepInt(v int) *int                       { return l.mem.ints.Put(&v) }

// Keep is a copy of *v in the log's storage, for a payload an event
// points to from another (a tool result's message).
func Keep[T any, P payloadPointer[T]](l *Log, v *T) P { return keep[T, P](l.mem, v) }

func (l *Log) append(e Event) Event {
	e.Seq = int64(len(l.mem.events))
	e.Time = l.clock.Now().UnixMilli()
	l.mem.events = append(l.mem.events, e)
	return e
}
