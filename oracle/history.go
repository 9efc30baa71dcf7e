package oracle

import (
	"slices"

	"github.com/turnsim/turnsim/loop/session"
)

func checkHistory(events []session.Event, s *segmentation) []Violation {
	r := &reporter{id: FailedAttemptNotInHistory}
	toolCalls := map[[2]int][]string{} // step → tool calls of its successful message
	for i := range events {
		e := &events[i]
		switch p := e.Data.(type) {
		case *session.AssistantMessage:
			if !p.Interrupted {
				toolCalls[[2]int{p.Turn, p.Step}] = session.ToolCallIDs(p.Message.Content)
			}
			checkCitations(r, e, p, s)
		case *session.ToolCall:
			if !slices.Contains(toolCalls[[2]int{p.Turn, p.Step}], p.CallID) {
				r.add(p.Turn, p.Step, []int64{e.Seq}, "tool call %s runs, but no successful message of its step asked for it", p.CallID)
			}
		}
	}
	return r.out
}

// checkCitations checks that a message cites the chunks of exactly one
// attempt of its own step, that attempt did not fail, and a successful
// message cites all of it.
func checkCitations(r *reporter, e *session.Event, p *session.AssistantMessage, s *segmentation) {
	if len(e.SourceEventSeqs) == 0 || e.Legacy {
		return
	}
	var own *attempt
	for _, seq := range e.SourceEventSeqs {
		a := s.chunk(seq)
		switch {
		case a == nil:
			r.add(p.Turn, p.Step, []int64{e.Seq, seq}, "assistant/message cites seq %d, which is not a chunk of an attempt in a turn", seq)
			return
		case a.turn != p.Turn || a.step != p.Step:
			r.add(p.Turn, p.Step, []int64{e.Seq, seq}, "assistant/message cites a chunk of turn %d step %d", a.turn, a.step)
			return
		case a.failed():
			r.add(p.Turn, p.Step, []int64{a.finishSeq, e.Seq}, "assistant/message cites chunk %d of failed attempt %d (%s)", seq, a.index+1, a.finish.Reason.Failure.Code)
			return
		case own != nil && a != own:
			r.add(p.Turn, p.Step, []int64{e.Seq, seq}, "assistant/message cites chunks of attempts %d and %d", own.index+1, a.index+1)
			return
		}
		own = a
	}
	if p.Interrupted {
		return
	}
	// A stream may end without a finish chunk; it counts as stop.
	if !slices.Equal(own.chunks, e.SourceEventSeqs) {
		r.add(p.Turn, p.Step, []int64{e.Seq}, "a successful assistant/message must cite every chunk of its attempt %v, cites %v", own.chunks, e.SourceEventSeqs)
	}
}
