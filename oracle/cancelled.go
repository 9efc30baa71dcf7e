package oracle

import (
	"github.com/turnsim/turnsim/loop/session"

	"github.com/turnsim/turnsim/internal/arena"
)

// The log-level form of cancelled-turn-never-retries. An interrupted message
// is written only when the turn signal was aborted during streaming, so the
// turn must end aborted (or interrupted, by crash repair). A logged aborted
// finish means the request was aborted by its caller while the turn signal
// was not yet (the loop checks the signal before it appends a chunk): no
// further attempt may follow it, but the turn may still end with an error
// reason, code ABORTED, when no cancel of the turn follows, so its end
// reason is not constrained here.

// cancelMark is the evidence that a turn's request was cancelled.
type cancelMark struct {
	seq         int64
	interrupted bool // an interrupted message (else an aborted finish)
}

type cancelled struct {
	reporter
	marks    map[int]*cancelMark // turn → first evidence of cancellation
	reported map[int]bool
	// The maps mark makes, kept to be made again, and where the marks
	// live.
	spareMarks    map[int]*cancelMark
	spareReported map[int]bool
	markMemory    *arena.Arena[cancelMark] // nil: each on its own
}

func newCancelled() *cancelled {
	c := &cancelled{}
	c.reset()
	return c
}

func (c *cancelled) reset() {
	*c = cancelled{reporter: c.reporter.reused(CancelledTurnNeverRetries), spareMarks: c.spareMarks, spareReported: c.spareReported, markMemory: c.markMemory}
}

// newMark is a mark in the cancelled's memory.
func (c *cancelled) newMark(m cancelMark) *cancelMark {
	p := c.markMemory.New()
	*p = m
	return p
}

// event checks an event; a is its attempt when it is a chunk of one.
func (c *cancelled) event(e *session.Event, a *attempt) {
	switch p := e.Data.(type) {
	case *session.AssistantMessage:
		if p.Interrupted && c.marks[p.Turn] == nil {
			c.mark()
			c.marks[p.Turn] = c.newMark(cancelMark{seq: e.Seq, interrupted: true})
			return
		}
	case *session.AssistantChunk:
		if p.Chunk.Type == session.ChunkFinish && p.Chunk.Reason.Kind == session.FinishAborted && c.marks[p.Turn] == nil {
			c.mark()
			c.marks[p.Turn] = c.newMark(cancelMark{seq: e.Seq})
			return
		}
	case *session.TurnEnd:
		if m := c.marks[p.Turn]; m != nil && m.interrupted && p.Reason.Kind != session.EndAborted && p.Reason.Kind != session.EndInterrupted {
			c.add(p.Turn, 0, []int64{m.seq, e.Seq}, "turn %d was interrupted by a cancel but ends %s, not aborted", p.Turn, p.Reason.Kind)
		}
		delete(c.marks, p.Turn)
		delete(c.reported, p.Turn)
		return
	}
	turn, step, what := attemptLike(e, a != nil && a.chunks[0] == e.Seq)
	if what == "" {
		return
	}
	if m := c.marks[turn]; m != nil && !c.reported[turn] {
		c.reported[turn] = true
		cause := "an aborted finish"
		if m.interrupted {
			cause = "an interrupted message"
		}
		c.add(turn, step, []int64{m.seq, e.Seq}, "%s after %s in turn %d: a cancelled turn never retries", what, cause, turn)
	}
}

// mark makes the maps at the first evidence of a cancel: most runs have
// none.
func (c *cancelled) mark() {
	if c.marks == nil {
		c.marks, c.reported = arena.Fresh(&c.spareMarks), arena.Fresh(&c.spareReported)
	}
}

// attemptLike says whether an event is new work in its turn: a new attempt,
// a retry record, a compaction, a new step or a tool call. firstChunk
// says whether the event is the first chunk of an attempt.
func attemptLike(e *session.Event, firstChunk bool) (turn, step int, what string) {
	switch p := e.Data.(type) {
	case *session.AssistantChunk:
		if firstChunk {
			return p.Turn, p.Step, "a new attempt"
		}
	case *session.LLMRetry:
		return p.Turn, p.Step, "llm/retry"
	case *session.LLMRetryStarted:
		return p.Turn, p.Step, "llm/retry-started"
	case *session.CompactionStart:
		if p.Turn != nil {
			return *p.Turn, 0, "compaction/start"
		}
	case *session.StepStart:
		return p.Turn, p.Step, "step/start"
	case *session.ToolCall:
		return p.Turn, p.Step, "tool/call"
	}
	return 0, 0, ""
}
