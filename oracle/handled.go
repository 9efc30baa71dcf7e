package oracle

import (
	"fmt"

	"github.com/turnsim/turnsim/loop/session"
)

// stepRecovery is what the handled-failure check knows of a step.
type stepRecovery struct {
	last    *attempt // the latest attempt of the step
	retried bool     // an llm/retry already answered the latest attempt
}

func checkHandledFailure(events []session.Event, s *segmentation) []Violation {
	r := &reporter{id: RetryAfterHandledFailure}
	steps := map[[2]int]*stepRecovery{}
	get := func(turn, step int) *stepRecovery {
		k := [2]int{turn, step}
		if steps[k] == nil {
			steps[k] = &stepRecovery{}
		}
		return steps[k]
	}
	openTurn, openStep := 0, 0
	// recovery checks a recovery record against the latest attempt.
	recovery := func(e *session.Event, turn, step int, what string) *stepRecovery {
		st := get(turn, step)
		switch {
		case st.last == nil:
			r.add(turn, step, []int64{e.Seq}, "%s before any attempt of turn %d step %d", what, turn, step)
		case st.last.finish == nil && st.last.closed:
			r.add(turn, step, []int64{st.last.chunks[0], e.Seq}, "%s after an attempt that succeeded (its stream ended without a finish)", what)
		case st.last.finish == nil:
			r.add(turn, step, []int64{st.last.chunks[0], e.Seq}, "%s while the latest attempt has not finished", what)
		case !st.last.failed():
			r.add(turn, step, []int64{st.last.finishSeq, e.Seq}, "%s after an attempt that finished %s, not after a failure", what, st.last.finish.Reason.Kind)
		default:
			return st
		}
		return nil
	}
	for i := range events {
		e := &events[i]
		switch p := e.Data.(type) {
		case *session.TurnStart:
			openTurn, openStep = p.Turn, 0
		case *session.StepStart:
			openStep = p.Step
		case *session.StepEnd:
			openStep = 0
		case *session.TurnEnd:
			openTurn, openStep = 0, 0
		case *session.AssistantChunk:
			a := s.chunk(e.Seq)
			if a == nil || a.chunks[0] != e.Seq {
				continue // not the first chunk of its attempt
			}
			st := get(a.turn, a.step)
			if prev := st.last; prev != nil {
				switch {
				case prev.interrupted:
					// a cancelled attempt: cancelled-turn-never-retries reports it
				case prev.finish == nil && !prev.closed:
					r.add(a.turn, a.step, []int64{prev.chunks[0], e.Seq}, "attempt %d starts before attempt %d finished", a.index+1, prev.index+1)
				case prev.finish == nil:
					r.add(a.turn, a.step, []int64{prev.chunks[0], e.Seq}, "attempt %d follows attempt %d, which succeeded (its stream ended without a finish)", a.index+1, prev.index+1)
				case !prev.failed():
					r.add(a.turn, a.step, []int64{prev.finishSeq, e.Seq}, "attempt %d follows an attempt that finished %s: only a failed attempt is retried", a.index+1, prev.finish.Reason.Kind)
				}
			}
			*st = stepRecovery{last: a}
		case *session.LLMRetry:
			st := recovery(e, p.Turn, p.Step, "llm/retry")
			if st == nil {
				continue
			}
			f := st.last.finish.Reason.Failure
			if st.retried {
				r.add(p.Turn, p.Step, []int64{st.last.finishSeq, e.Seq}, "a second llm/retry answers the same failed attempt")
			}
			if f != nil && (f.Code != p.Failure.Code || f.Message != p.Failure.Message) {
				r.add(p.Turn, p.Step, []int64{st.last.finishSeq, e.Seq}, "llm/retry records failure %s, but the attempt failed with %s", describe(&p.Failure), describe(f))
			}
			st.retried = true
		case *session.CompactionStart:
			if openStep == 0 || p.Turn == nil || *p.Turn != openTurn {
				continue // pressure or manual compaction, not a recovery
			}
			recovery(e, openTurn, openStep, "compaction/start inside a step")
		case *session.CompactionPrune:
			if openStep == 0 {
				continue
			}
			recovery(e, openTurn, openStep, "compaction/prune inside a step")
		}
	}
	return r.out
}

func describe(f *session.LlmFailure) string {
	return fmt.Sprintf("%s %q", f.Code, f.Message)
}
