package session

import (
	"encoding/json"
	"sync"
	"unsafe"
)

// A reader allocates what each event keeps (its payload, the bytes of its
// data) in runs, not one at a time: a line's own allocations were most of
// what reading it cost, and a payload or a data is never freed before the
// events around it. A run is small, so that what a streaming check keeps
// of a turn holds at most a run's worth more.

// slab hands out the elements of a run of T, and makes the next run when
// it is spent: each twice the last, from 4 to 32, so that a log of a few
// events (DSH's fixtures) makes small runs.
type slab[T any] struct {
	free []T
	size int
}

// maxSlabRun is the longest run: what a log leaves unused of its last
// run is half a run on average (at 64, of chunks of 192 bytes, a quarter
// of what the chunks of DSH's logs took).
const maxSlabRun = 32

func (s *slab[T]) next() *T {
	if len(s.free) == 0 {
		s.size = min(max(2*s.size, 4), maxSlabRun)
		s.free = make([]T, s.size)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// payloadSlabs are the runs of the payload types a log is made of.
type payloadSlabs struct {
	chunks     slab[AssistantChunk]
	messages   slab[AssistantMessage]
	users      slab[UserMessage]
	turnStarts slab[TurnStart]
	turnEnds   slab[TurnEnd]
	stepStarts slab[StepStart]
	stepEnds   slab[StepEnd]
	headers    slab[RequestHeader]
	contexts   slab[RequestContext]
	retries    slab[LLMRetry]
	started    slab[LLMRetryStarted]
	calls      slab[ToolCall]
	results    slab[ToolResult]
	inbox      slab[InboxSpliced]
}

// new is an empty payload of typ, from its run where it has one (nil when
// typ is opaque).
func (s *payloadSlabs) new(typ string) Payload {
	switch typ {
	case TypeAssistantChunk:
		return s.chunks.next()
	case TypeAssistantMessage:
		return s.messages.next()
	case TypeUserMessage:
		return s.users.next()
	case TypeTurnStart:
		return s.turnStarts.next()
	case TypeTurnEnd:
		return s.turnEnds.next()
	case TypeStepStart:
		return s.stepStarts.next()
	case TypeStepEnd:
		return s.stepEnds.next()
	case TypeRequestHeader:
		return s.headers.next()
	case TypeRequestContext:
		return s.contexts.next()
	case TypeLLMRetry:
		return s.retries.next()
	case TypeLLMRetryStarted:
		return s.started.next()
	case TypeToolCall:
		return s.calls.next()
	case TypeToolResult:
		return s.results.next()
	case TypeInboxSpliced:
		return s.inbox.next()
	}
	return newPayload(typ)
}

// byteRuns hands out copies of data from runs of bytes, each twice the
// last, from 1 KiB (or the input's size, when known) to 32 KiB; data
// larger than a run gets one of its own.
type byteRuns struct {
	run  []byte
	size int
}

// maxByteRun is the largest run of bytes.
const maxByteRun = 32 << 10

// sizeFor makes the first run room for all the data of an input of n
// bytes, up to a run's most: the data of a small log is less than the
// log, and took four runs from 1 KiB.
func (r *byteRuns) sizeFor(n int64) {
	if r.size == 0 && n > 0 {
		r.size = int(min(n, maxByteRun)) / 2 // doubled by the first copy
	}
}

// copyOf is a copy of b whose capacity is its length: an append to it
// makes a new array rather than write over the next copy.
func (r *byteRuns) copyOf(b []byte) json.RawMessage {
	if len(b) > cap(r.run)-len(r.run) {
		r.size = min(max(2*r.size, 1<<10), maxByteRun)
		r.run = make([]byte, 0, max(r.size, len(b)))
	}
	start := len(r.run)
	r.run = append(r.run, b...)
	return json.RawMessage(r.run[start:len(r.run):len(r.run)])
}

// stringOf is a copy of b as a string, in the runs: a string made on its
// own for every id and text was a fifth of a reader's allocations. The
// bytes of a run are never written again once handed out, so the string
// never changes.
func (r *byteRuns) stringOf(b []byte) string {
	c := r.copyOf(b)
	return unsafe.String(unsafe.SliceData(c), len(c))
}

// readerAllocs are what a reader allocates the values of its events from.
type readerAllocs struct {
	bytes byteRuns
	// interned holds the short strings made last, a slot per hash: a
	// map grown from empty for every log was a twentieth of reading a
	// check's many small logs, and a string that falls out of its slot
	// is only made again. A closed reader gives its table to the next
	// (internTables), whose logs repeat the same words.
	interned *internTable
	ops      slab[SurfaceOp]
}

type internTable [internSlots]string

// internTables hold the tables of closed readers. A string is the same
// whichever log it was read from, so one log's words serve the next.
var internTables = sync.Pool{New: func() any { return new(internTable) }}

// internBytes is the longest string interned: the kinds, roles, codes,
// types and names a log repeats on line after line, not its ids and texts.
const internBytes = 24

// internSlots is how many strings a reader holds for interning (a power
// of two).
const internSlots = 256

// string is b as a string, the one made before when a short string
// repeats, a longer one in the runs of bytes. Nil allocates each.
func (a *readerAllocs) string(b []byte) string {
	if a == nil {
		return string(b)
	}
	if len(b) > internBytes {
		return a.bytes.stringOf(b)
	}
	if a.interned == nil {
		return string(b)
	}
	// FNV-1a: what repeats are a few words of a few bytes each.
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &a.interned[h&(internSlots-1)]
	if *slot == string(b) {
		return *slot
	}
	s := string(b)
	*slot = s
	return s
}

// copyOf is a copy of b, from the runs of bytes (nil: on its own).
func (a *readerAllocs) copyOf(b []byte) json.RawMessage {
	if a == nil {
		return append(json.RawMessage(nil), b...)
	}
	return a.bytes.copyOf(b)
}
