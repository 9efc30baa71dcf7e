package session

import "github.com/turnsim/turnsim/internal/arena"

// Storage is the memory a log's events live in: the events themselves,
// the payloads appended by copy and the surface operations. A worker that
// runs log after run hands each new log the storage of the last
// (NewLogIn), so that a run allocates no event once the storage has grown
// to a run's size: appending is then writing into memory already there,
// and the garbage collector, which ran every few dozen runs to free the
// last ones' events, has nothing of them to free.
//
// The zero value is ready to use. A storage is one worker's: the log in it
// is read until the next NewLogIn, and a log that must outlive that (a
// failing run kept for its report) is left in its storage, the worker
// taking a new one.
type Storage struct {
	log      Log
	events   []Event
	payloads [storedKinds]resetter
	ops      arena.Arena[SurfaceOp]
	bytes    arena.Slices[byte] // what Room hands out
	// What the log's events point to besides their payloads: finish
	// reasons and failures, messages, citations and ids (Keep*,
	// *Room).
	reasons  arena.Arena[FinishReason]
	failures arena.Arena[LlmFailure]
	ints     arena.Arena[int]
	messages arena.Slices[UserMessage]
	seqs     arena.Slices[int64]
	strings  arena.Slices[string]
}

// reset gives the storage's memory back for a new log. What the last log
// held is cleared, so that a reused payload starts as a new one would and
// memory the last run referred to is not kept alive by its old events.
func (s *Storage) reset() {
	clear(s.events)
	s.events = s.events[:0]
	for _, p := range s.payloads {
		if p != nil {
			p.Reset()
		}
	}
	s.ops.Reset()
	s.bytes.Reset()
	s.reasons.Reset()
	s.failures.Reset()
	s.ints.Reset()
	s.messages.Reset()
	s.seqs.Reset()
	s.strings.Reset()
}

type resetter interface{ Reset() }

// payloadPointer is a payload type's pointer.
type payloadPointer[T any] interface {
	*T
	Payload
}

// keep is a copy of *v in the storage's arena of its type; a type with
// none (one of another package's) is copied to memory of its own.
func keep[T any, P payloadPointer[T]](s *Storage, v *T) P {
	k := storedKind(P(nil))
	if k < 0 {
		p := P(new(T))
		*p = *v
		return p
	}
	a, _ := s.payloads[k].(*arena.Arena[T])
	if a == nil {
		a = &arena.Arena[T]{}
		s.payloads[k] = a
	}
	return P(a.Put(v))
}

// storedKinds are the payload types a Storage keeps arenas of: those the
// loop appends.
const storedKinds = 18

func storedKind(p Payload) int {
	switch p.(type) {
	case *AssistantChunk:
		return 0
	case *AssistantMessage:
		return 1
	case *UserMessage:
		return 2
	case *TurnStart:
		return 3
	case *TurnEnd:
		return 4
	case *StepStart:
		return 5
	case *StepEnd:
		return 6
	case *RequestHeader:
		return 7
	case *RequestContext:
		return 8
	case *LLMRetry:
		return 9
	case *LLMRetryStarted:
		return 10
	case *ToolCall:
		return 11
	case *ToolResult:
		return 12
	case *InboxSpliced:
		return 13
	case *CompactionStart:
		return 14
	case *CompactionEnd:
		return 15
	case *CompactionSummary:
		return 16
	case *CompactionPrune:
		return 17
	}
	return -1
}
