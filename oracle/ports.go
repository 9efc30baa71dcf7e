package oracle

import (
	"github.com/turnsim/turnsim/loop/session"
)

// The checks at the model port: what the loop asked of the model, against
// what the world did and what the waterfall answered. Only a run has these
// facts; a log alone shows a request only by its chunks, and a request on
// a cancelled turn logs none (the signal check precedes the append).

// checkRequestsAfterCancel is cancelled-turn-never-retries at the port: no
// model request leaves once a cancel or disposal took effect in its turn,
// even one whose chunks never reach the log.
func checkRequestsAfterCancel(run *run, r *reporter) {
	facts := run.facts
	// Requests and actions are both in Order: one pass over each, with
	// the turns a cancel has reached so far.
	var cancelled []Action // the first action of each turn reached, in order
	a := 0
	reported := 0
	for _, q := range facts.Requests {
		for ; a < len(facts.Actions) && facts.Actions[a].Order <= q.Order; a++ {
			act := facts.Actions[a]
			if act.Turn != 0 && (len(cancelled) == 0 || cancelled[len(cancelled)-1].Turn != act.Turn) {
				cancelled = append(cancelled, act)
			}
		}
		if q.Turn == reported {
			continue
		}
		// Turns run one after another: the cancel that counts for q is
		// the latest one, if it reached q's turn.
		if n := len(cancelled); n > 0 && cancelled[n-1].Turn == q.Turn {
			act := cancelled[n-1]
			reported = q.Turn
			r.add(q.Turn, q.Step, []int64{act.Seq, q.Seq}, "model request for attempt %d of turn %d step %d after the %s (%s) took effect before seq %d",
				q.Attempt, q.Turn, q.Step, act.Kind, act.Cause, act.Seq)
		}
	}
	return
}

// checkSettledRetries is retry-after-handled-failure at the port: a step's
// next attempt is made only when the waterfall of its failed attempt
// settled on retry — never on no answer, never on a throw (a thrown
// recovery produces no action).
func checkSettledRetries(run *run, r *reporter) {
	facts := run.facts
	w := 0
	var settled *Waterfall // the latest waterfall before the request
	for i, q := range facts.Requests {
		for ; w < len(facts.Waterfalls) && facts.Waterfalls[w].Order < q.Order; w++ {
			settled = &facts.Waterfalls[w]
		}
		if q.Attempt == 1 {
			continue
		}
		// The waterfall must have settled after the step's previous
		// request (a NO_ADAPTER attempt makes none).
		if i > 0 {
			if p := facts.Requests[i-1]; p.Turn == q.Turn && p.Step == q.Step && settled != nil && settled.Order < p.Order {
				settled = nil
			}
		}
		switch {
		case settled == nil:
			r.add(q.Turn, q.Step, []int64{q.Seq}, "attempt %d of turn %d step %d was made, but no request-error waterfall settled since attempt %d", q.Attempt, q.Turn, q.Step, q.Attempt-1)
		case settled.Threw:
			r.add(q.Turn, q.Step, []int64{settled.Seq, q.Seq}, "attempt %d of turn %d step %d was made after the request-error waterfall threw: a thrown recovery produces no action", q.Attempt, q.Turn, q.Step)
		case !settled.Retry:
			r.add(q.Turn, q.Step, []int64{settled.Seq, q.Seq}, "attempt %d of turn %d step %d was made, but the request-error waterfall answered no action", q.Attempt, q.Turn, q.Step)
		}
		settled = nil // one answer, one retry
	}
	return
}

// checkInputsReachRequests is no-lost-input at the port: a user's message
// that entered the history of a turn is carried by every later request of
// that turn — a retry re-derives its messages from the history and must
// not drop one. Requests after a surface replacement in the turn are not
// checked here: a compaction may fold the message into its checkpoint.
func checkInputsReachRequests(run *run, r *reporter) {
	events, facts := run.events, run.facts
	q := 0
	turn := 0
	replaced := false
	var room [16]int64
	entered := room[:0] // the open turn's user messages, by seq: on the stack for a turn's few
	check := func(upTo int64) {
		for ; q < len(facts.Requests) && facts.Requests[q].Seq <= upTo; q++ {
			req := facts.Requests[q]
			if req.Turn != turn || replaced {
				continue
			}
			for _, m := range entered {
				if m < req.Seq && !containsFromEnd(req.Messages, m) {
					r.add(req.Turn, req.Step, []int64{m, req.Seq}, "the user message at seq %d entered turn %d's history, but attempt %d of step %d was sent without it", m, turn, req.Attempt, req.Step)
					break
				}
			}
		}
	}
	for i := range events {
		e := &events[i]
		check(e.Seq)
		switch p := e.Data.(type) {
		case *session.TurnStart:
			turn, replaced, entered = p.Turn, false, entered[:0]
		case *session.TurnEnd:
			turn = 0
		case *session.UserMessage:
			if p.Source.Kind == "user" && e.SurfaceOp != nil && e.SurfaceOp.Op == session.SurfaceAppend {
				entered = append(entered, e.Seq)
			}
		}
		if e.SurfaceOp != nil && e.SurfaceOp.Op == session.SurfaceReplace {
			replaced = true
		}
	}
	check(int64(len(events)))
	return
}

// containsFromEnd is slices.Contains searching from the end: the open
// turn's messages stand at the end of a request's history, and searching
// from the start cost a long run the square of its length.
func containsFromEnd(s []int64, v int64) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == v {
			return true
		}
	}
	return false
}
