package session

import "encoding/json"

// A reader allocates what each event keeps (its payload, the bytes of its
// data) in runs, not one at a time: a line's own allocations were most of
// what reading it cost, and a payload or a data is never freed before the
// events around it. A run is small, so that what a streaming check keeps
// of a turn holds at most a run's worth more.

// slab hands out the elements of a run of T, and makes the next run when
// it is spent: each twice the last, from 4 to 64, so that a log of a few
// events (DSH's fixtures) makes small runs.
type slab[T any] struct {
	free []T
	size int
}

func (s *slab[T]) next() *T {
	if len(s.free) == 0 {
		s.size = min(max(2*s.size, 4), 64)
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
// last, from 1 KiB to 32 KiB; data larger than a run gets one of its own.
type byteRuns struct {
	run  []byte
	size int
}

// copyOf is a copy of b whose capacity is its length: an append to it
// makes a new array rather than write over the next copy.
func (r *byteRuns) copyOf(b []byte) json.RawMessage {
	if len(b) > cap(r.run)-len(r.run) {
		r.size = min(max(2*r.size, 1<<10), 32<<10)
		r.run = make([]byte, 0, max(r.size, len(b)))
	}
	start := len(r.run)
	r.run = append(r.run, b...)
	return json.RawMessage(r.run[start:len(r.run):len(r.run)])
}

// readerAllocs are what a reader allocates the values of its events from.
type readerAllocs struct {
	bytes   byteRuns
	strings map[string]string
}

// internBytes is the longest string interned: the kinds, roles, codes,
// types and names a log repeats on line after line, not its ids and texts.
const internBytes = 24

// maxInterned bounds the strings a reader interns.
const maxInterned = 4096

// string is b as a string, the one made before when a short string
// repeats. Nil allocates each.
func (a *readerAllocs) string(b []byte) string {
	if a == nil || len(b) > internBytes {
		return string(b)
	}
	if s, ok := a.strings[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(a.strings) < maxInterned {
		if a.strings == nil {
			a.strings = map[string]string{}
		}
		a.strings[s] = s
	}
	return s
}

// copyOf is a copy of b, from the runs of bytes (nil: on its own).
func (a *readerAllocs) copyOf(b []byte) json.RawMessage {
	if a == nil {
		return append(json.RawMessage(nil), b...)
	}
	return a.bytes.copyOf(b)
}
