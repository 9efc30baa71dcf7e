package oracle

import "github.com/turnsim/turnsim/loop/session"

// An attempt is one model request of a step: its chunks up to and including
// a finish chunk. Replay tooling splits a step's chunks the same way.
type attempt struct {
	turn, step int
	index      int     // 0-based within its step
	chunks     []int64 // seqs of its chunks, in order
	finish     *session.StreamChunk
	finishSeq  int64
	// interrupted: a cancel ended the attempt before any finish, and its
	// interrupted message closed it.
	interrupted bool
	// closed: a message closed the attempt without a finish chunk: a
	// stream that ends without one counts as stop (SPEC 1.4), or a cancel.
	closed bool
}

// ended reports whether the attempt is over: finished, or closed by a
// message.
func (a *attempt) ended() bool { return a.finish != nil || a.closed }

// failed reports whether the attempt ended with an error or aborted finish.
func (a *attempt) failed() bool { return a.finish != nil && a.finish.Failed() }

// segmentation maps every chunk inside a turn to its attempt. Chunks outside
// any turn are a model-replay script, not attempts: DSH's LLM-replay fixtures
// list scripted responses that way, after or instead of recorded turns.
type segmentation struct {
	attempts []*attempt
	byIndex  []*attempt // by event index (seq); nil for other events
}

// chunk is the attempt of the chunk with seq, or nil.
func (s *segmentation) chunk(seq int64) *attempt {
	if seq < 0 || seq >= int64(len(s.byIndex)) {
		return nil
	}
	return s.byIndex[seq]
}

func segment(events []session.Event) *segmentation {
	s := &segmentation{byIndex: make([]*attempt, len(events))}
	current := map[[2]int]*attempt{} // (turn, step) → its open or last attempt
	count := map[[2]int]int{}
	inTurn := false
	for i := range events {
		switch p := events[i].Data.(type) {
		case *session.TurnStart:
			inTurn = true
		case *session.TurnEnd:
			inTurn = false
		case *session.AssistantMessage:
			if a := current[[2]int{p.Turn, p.Step}]; a != nil && a.finish == nil {
				a.closed, a.interrupted = true, p.Interrupted
			}
		}
		c, ok := events[i].Data.(*session.AssistantChunk)
		if !ok || !inTurn {
			continue
		}
		key := [2]int{c.Turn, c.Step}
		a := current[key]
		if a == nil || a.ended() {
			// Room for a typical answer's chunks at once: growing from
			// empty was a fifth of the oracle's allocations.
			a = &attempt{turn: c.Turn, step: c.Step, index: count[key], finishSeq: -1, chunks: make([]int64, 0, 8)}
			count[key]++
			current[key] = a
			s.attempts = append(s.attempts, a)
		}
		a.chunks = append(a.chunks, events[i].Seq)
		s.byIndex[i] = a
		if c.Chunk.Type == session.ChunkFinish {
			a.finish = &c.Chunk
			a.finishSeq = events[i].Seq
		}
	}
	return s
}
