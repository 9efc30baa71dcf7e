package oracle

import (
	"fmt"

	"github.com/turnsim/turnsim/internal/arena"

	"github.com/turnsim/turnsim/loop/session"
)

// stepRecovery is what the handled-failure check knows of a step.
type stepRecovery struct {
	last    *attempt // the latest attempt of the step
	retried bool     // an llm/retry already answered the latest attempt
}

// handledFailure checks that every retry, in-step compaction and new
// attempt follows a failed attempt of its step.
type handledFailure struct {
	reporter
	steps              map[[2]int]*stepRecovery
	openTurn, openStep int
	recoveries         *arena.Arena[stepRecovery] // nil: each on its own
}

func newHandledFailure() *handledFailure {
	h := &handledFailure{}
	h.reset()
	return h
}

func (h *handledFailure) reset() {
	*h = handledFailure{reporter: h.reporter.reused(RetryAfterHandledFailure), steps: arena.Emptied(h.steps), recoveries: h.recoveries}
}

func (h *handledFailure) get(turn, step int) *stepRecovery {
	k := [2]int{turn, step}
	if h.steps[k] == nil {
		h.steps[k] = h.recoveries.New()
	}
	return h.steps[k]
}

// recovery checks a recovery record against the latest attempt.
func (h *handledFailure) recovery(e *session.Event, turn, step int, what string) *stepRecovery {
	st := h.get(turn, step)
	switch {
	case st.last == nil:
		h.add(turn, step, []int64{e.Seq}, "%s before any attempt of turn %d step %d", what, turn, step)
	case st.last.finish == nil && st.last.closed:
		h.add(turn, step, []int64{st.last.chunks[0], e.Seq}, "%s after an attempt that succeeded (its stream ended without a finish)", what)
	case st.last.finish == nil:
		h.add(turn, step, []int64{st.last.chunks[0], e.Seq}, "%s while the latest attempt has not finished", what)
	case !st.last.failed():
		h.add(turn, step, []int64{st.last.finishSeq, e.Seq}, "%s after an attempt that finished %s, not after a failure", what, st.last.finish.Reason.Kind)
	default:
		return st
	}
	return nil
}

// event checks an event; a is its attempt when it is a chunk of one.
func (h *handledFailure) event(e *session.Event, a *attempt) {
	switch p := e.Data.(type) {
	case *session.TurnStart:
		h.openTurn, h.openStep = p.Turn, 0
	case *session.StepStart:
		h.openStep = p.Step
	case *session.StepEnd:
		h.openStep = 0
	case *session.TurnEnd:
		h.openTurn, h.openStep = 0, 0
	case *session.AssistantChunk:
		if a == nil || a.chunks[0] != e.Seq {
			return // not the first chunk of its attempt
		}
		st := h.get(a.turn, a.step)
		if prev := st.last; prev != nil {
			switch {
			case prev.interrupted:
				// a cancelled attempt: cancelled-turn-never-retries reports it
			case prev.finish == nil && !prev.closed:
				h.add(a.turn, a.step, []int64{prev.chunks[0], e.Seq}, "attempt %d starts before attempt %d finished", a.index+1, prev.index+1)
			case prev.finish == nil:
				h.add(a.turn, a.step, []int64{prev.chunks[0], e.Seq}, "attempt %d follows attempt %d, which succeeded (its stream ended without a finish)", a.index+1, prev.index+1)
			case !prev.failed():
				h.add(a.turn, a.step, []int64{prev.finishSeq, e.Seq}, "attempt %d follows an attempt that finished %s: only a failed attempt is retried", a.index+1, prev.finish.Reason.Kind)
			}
		}
		*st = stepRecovery{last: a}
	case *session.LLMRetry:
		st := h.recovery(e, p.Turn, p.Step, "llm/retry")
		if st == nil {
			return
		}
		f := st.last.finish.Reason.Failure
		if st.retried {
			h.add(p.Turn, p.Step, []int64{st.last.finishSeq, e.Seq}, "a second llm/retry answers the same failed attempt")
		}
		if f != nil && (f.Code != p.Failure.Code || f.Message != p.Failure.Message) {
			h.add(p.Turn, p.Step, []int64{st.last.finishSeq, e.Seq}, "llm/retry records failure %s, but the attempt failed with %s", describe(&p.Failure), describe(f))
		}
		st.retried = true
	case *session.CompactionStart:
		if h.openStep == 0 || p.Turn == nil || *p.Turn != h.openTurn {
			return // pressure or manual compaction, not a recovery
		}
		h.recovery(e, h.openTurn, h.openStep, "compaction/start inside a step")
	case *session.CompactionPrune:
		if h.openStep == 0 {
			return
		}
		h.recovery(e, h.openTurn, h.openStep, "compaction/prune inside a step")
	}
}

// turnEnded forgets the ended turn's steps.
func (h *handledFailure) turnEnded(turn int) {
	for key := range h.steps {
		if key[0] == turn {
			delete(h.steps, key)
		}
	}
}

func describe(f *session.LlmFailure) string {
	return fmt.Sprintf("%s %q", f.Code, f.Message)
}
