package oracle

import (
	"github.com/turnsim/turnsim/loop/session"

	"github.com/turnsim/turnsim/internal/arena"
)

// An attempt is one model request of a step: its chunks up to and including
// a finish chunk. Replay tooling splits a step's chunks the same way.
type attempt struct {
	turn, step int
	index      int     // 0-based within its step
	chunks     []int64 // seqs of its chunks, in order
	// chunkBuf holds a typical answer's chunks (chunks starts in it): one
	// allocation an attempt, not two.
	chunkBuf  [8]int64
	finish    *session.StreamChunk
	finishSeq int64
	// interrupted: a cancel ended the attempt before any finish, and its
	// interrupted message closed it.
	interrupted bool
	// closed: a message closed the attempt without a finish chunk: a stream
	// that ends without one counts as stop (docs/dsh.md#events), or a
	// cancel.
	closed bool
}

// ended reports whether the attempt is over: finished, or closed by a
// message.
func (a *attempt) ended() bool { return a.finish != nil || a.closed }

// failed reports whether the attempt ended with an error or aborted finish.
func (a *attempt) failed() bool { return a.finish != nil && a.finish.Failed() }

// segmenter maps every chunk inside a turn to its attempt, as the events
// arrive. Chunks outside any turn are a model-replay script, not attempts:
// DSH's LLM-replay fixtures list scripted responses that way, after or
// instead of recorded turns.
//
// It remembers the chunks of the open turn only: a message cites chunks
// of its own turn, and what a log's earlier turns held would make memory
// grow with the log. A chunk is known by its index, which a well-formed
// log's seq equals.
type segmenter struct {
	current map[[2]int]*attempt // (turn, step) → its open or last attempt
	// last is current[lastKey], when set: chunks come in runs of one
	// step, and a map lookup a chunk was a twentieth of a check of
	// DSH's logs.
	last    *attempt
	lastKey [2]int
	count   map[[2]int]int
	inTurn  bool
	// window holds the attempt of each event since the open turn's
	// turn/start up to its latest chunk (nil for events that are not
	// chunks); base is the index of its first event. Events after the
	// latest chunk take no slot until a chunk follows them: a turn of
	// title/set events costs nothing.
	window []*attempt
	base   int64
	// attempts are where the attempts live (nil: each on its own).
	attempts *arena.Arena[attempt]
}

func newSegmenter() *segmenter {
	// Room for a typical turn's events: the window is reused from turn to
	// turn.
	s := &segmenter{window: make([]*attempt, 0, 64)}
	s.reset()
	return s
}

// reset makes the segmenter one that has seen no event, in the memory it
// has.
func (s *segmenter) reset() {
	clear(s.window)
	*s = segmenter{current: arena.Emptied(s.current), count: arena.Emptied(s.count), window: s.window[:0], attempts: s.attempts}
}

// add segments the event at index i, and returns the attempt it is a
// chunk of, if any.
func (s *segmenter) add(i int64, e *session.Event) *attempt {
	switch p := e.Data.(type) {
	case *session.TurnStart:
		s.inTurn, s.base = true, i
		clear(s.window)
		s.window = s.window[:0]
	case *session.TurnEnd:
		s.inTurn = false
	case *session.AssistantMessage:
		if a := s.current[[2]int{p.Turn, p.Step}]; a != nil && a.finish == nil {
			a.closed, a.interrupted = true, p.Interrupted
		}
	}
	c, ok := e.Data.(*session.AssistantChunk)
	if !ok || !s.inTurn {
		return nil
	}
	// The events since the latest chunk are not chunks.
	for int64(len(s.window)) < i-s.base {
		s.window = append(s.window, nil)
	}
	key := [2]int{c.Turn, c.Step}
	a := s.last
	if a == nil || key != s.lastKey {
		a = s.current[key]
	}
	if a == nil || a.ended() {
		// Room for a typical answer's chunks at once: growing from
		// empty was a fifth of the oracle's allocations.
		a = s.attempts.New()
		*a = attempt{turn: c.Turn, step: c.Step, index: s.count[key], finishSeq: -1}
		a.chunks = a.chunkBuf[:0]
		s.count[key]++
		s.current[key] = a
	}
	s.last, s.lastKey = a, key
	a.chunks = append(a.chunks, e.Seq)
	s.window = append(s.window, a)
	if c.Chunk.Type == session.ChunkFinish {
		a.finish = &c.Chunk
		a.finishSeq = e.Seq
	}
	return a
}

// chunk is the attempt of the chunk at index seq in the open turn, or nil.
func (s *segmenter) chunk(seq int64) *attempt {
	if seq < s.base || seq-s.base >= int64(len(s.window)) {
		return nil
	}
	return s.window[seq-s.base]
}

// turnEnded forgets the ended turn's steps and its chunks: no later
// event cites them (a citation reaches only the open turn's window).
func (s *segmenter) turnEnded(turn int) {
	clear(s.window)
	s.window = s.window[:0]
	s.last = nil
	for key := range s.current {
		if key[0] == turn {
			delete(s.current, key)
			delete(s.count, key)
		}
	}
}
