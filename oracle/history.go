package oracle

import (
	"encoding/json"
	"slices"

	"github.com/turnsim/turnsim/internal/arena"
	"github.com/turnsim/turnsim/loop/session"
)

// history checks that messages cite their own successful attempt and that
// only a successful message's tool calls run.
type history struct {
	reporter
	// toolCalls are the contents of the steps' successful messages, whose
	// tool-call blocks are the calls each step may run: asked of each
	// call (session.HasToolCallID), never made into a list.
	toolCalls map[[2]int]json.RawMessage
}

func newHistory() *history {
	h := &history{}
	h.reset()
	return h
}

func (h *history) reset() {
	*h = history{reporter: h.reporter.reused(FailedAttemptNotInHistory), toolCalls: arena.Emptied(h.toolCalls)}
}

func (h *history) event(e *session.Event, s *segmenter) {
	switch p := e.Data.(type) {
	case *session.AssistantMessage:
		if !p.Interrupted {
			h.toolCalls[[2]int{p.Turn, p.Step}] = p.Message.Content
		}
		h.checkCitations(e, p, s)
	case *session.ToolCall:
		if !session.HasToolCallID(h.toolCalls[[2]int{p.Turn, p.Step}], p.CallID) {
			h.add(p.Turn, p.Step, []int64{e.Seq}, "tool call %s runs, but no successful message of its step asked for it", p.CallID)
		}
	}
}

// turnEnded forgets the ended turn's steps.
func (h *history) turnEnded(turn int) {
	for key := range h.toolCalls {
		if key[0] == turn {
			delete(h.toolCalls, key)
		}
	}
}

// checkCitations checks that a message cites the chunks of exactly one
// attempt of its own step, that attempt did not fail, and a successful
// message cites all of it.
func (h *history) checkCitations(e *session.Event, p *session.AssistantMessage, s *segmenter) {
	if len(e.SourceEventSeqs) == 0 || e.Legacy {
		return
	}
	var own *attempt
	for _, seq := range e.SourceEventSeqs {
		a := s.chunk(seq)
		switch {
		case a == nil && seq < s.base && s.inTurn:
			h.add(p.Turn, p.Step, []int64{e.Seq, seq}, "assistant/message cites seq %d, which stands before its turn began", seq)
			return
		case a == nil:
			h.add(p.Turn, p.Step, []int64{e.Seq, seq}, "assistant/message cites seq %d, which is not a chunk of an attempt in a turn", seq)
			return
		case a.turn != p.Turn || a.step != p.Step:
			h.add(p.Turn, p.Step, []int64{e.Seq, seq}, "assistant/message cites a chunk of turn %d step %d", a.turn, a.step)
			return
		case a.failed():
			h.add(p.Turn, p.Step, []int64{a.finishSeq, e.Seq}, "assistant/message cites chunk %d of failed attempt %d (%s)", seq, a.index+1, a.finish.Reason.Failure.Code)
			return
		case own != nil && a != own:
			h.add(p.Turn, p.Step, []int64{e.Seq, seq}, "assistant/message cites chunks of attempts %d and %d", own.index+1, a.index+1)
			return
		}
		own = a
	}
	if p.Interrupted {
		return
	}
	// A stream may end without a finish chunk; it counts as stop.
	if !slices.Equal(own.chunks, e.SourceEventSeqs) {
		h.add(p.Turn, p.Step, []int64{e.Seq}, "a successful assistant/message must cite every chunk of its attempt %v, cites %v", own.chunks, e.SourceEventSeqs)
	}
}
