package oracle

import "github.com/turnsim/turnsim/loop/session"

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

func checkCancelled(events []session.Event, s *segmentation) []Violation {
	r := &reporter{id: CancelledTurnNeverRetries}
	marks := map[int]*cancelMark{} // turn → first evidence of cancellation
	reported := map[int]bool{}
	for i := range events {
		e := &events[i]
		switch p := e.Data.(type) {
		case *session.AssistantMessage:
			if p.Interrupted && marks[p.Turn] == nil {
				marks[p.Turn] = &cancelMark{seq: e.Seq, interrupted: true}
				continue
			}
		case *session.AssistantChunk:
			if p.Chunk.Type == session.ChunkFinish && p.Chunk.Reason.Kind == session.FinishAborted && marks[p.Turn] == nil {
				marks[p.Turn] = &cancelMark{seq: e.Seq}
				continue
			}
		case *session.TurnEnd:
			if m := marks[p.Turn]; m != nil && m.interrupted && p.Reason.Kind != session.EndAborted && p.Reason.Kind != session.EndInterrupted {
				r.add(p.Turn, 0, []int64{m.seq, e.Seq}, "turn %d was interrupted by a cancel but ends %s, not aborted", p.Turn, p.Reason.Kind)
			}
			delete(marks, p.Turn)
			delete(reported, p.Turn)
			continue
		}
		turn, step, what := attemptLike(e, s)
		if what == "" {
			continue
		}
		if m := marks[turn]; m != nil && !reported[turn] {
			reported[turn] = true
			cause := "an aborted finish"
			if m.interrupted {
				cause = "an interrupted message"
			}
			r.add(turn, step, []int64{m.seq, e.Seq}, "%s after %s in turn %d: a cancelled turn never retries", what, cause, turn)
		}
	}
	return r.out
}

// attemptLike says whether an event is new work in its turn: a new attempt,
// a retry record, a compaction, a new step or a tool call.
func attemptLike(e *session.Event, s *segmentation) (turn, step int, what string) {
	switch p := e.Data.(type) {
	case *session.AssistantChunk:
		if a := s.chunk(e.Seq); a != nil && a.chunks[0] == e.Seq {
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
