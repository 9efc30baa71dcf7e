package oracle

import (
	"strconv"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
)

// checkRendering derives the view of the full log and of the tail windows
// that contain each error turn/end, and checks the turn-error node of each.
//
// A tail window is a suffix of the log as it stood when the turn/end was
// appended (what a client that loaded the session's tail saw then), so it
// ends at that turn/end; the full log covers everything after it.
// Windows begin at every event of the failed turn except its chunks (and at
// the turn/end itself): a turn-error node reads only the turn's start, its
// end and the turn's last located step, and a chunk is always followed
// inside the turn by a step/end or message that locates the turn again, so
// windows that begin at chunks derive what their neighbours derive.
func checkRendering(events []session.Event, derive func([]session.Event) view.Nodes) []Violation {
	r := &reporter{id: ExhaustedTurnRendersError}
	full := derive(events)
	turnStart := map[int]int{}         // turn → index of its turn/start
	chainsOfTurn := map[int][]string{} // turn → retryIds of its chains, in order
	for i := range events {
		e := &events[i]
		switch p := e.Data.(type) {
		case *session.TurnStart:
			turnStart[p.Turn] = i
		case *session.LLMRetry:
			if p.Retry == 1 && p.RetryID != "" {
				chainsOfTurn[p.Turn] = append(chainsOfTurn[p.Turn], p.RetryID)
			}
		case *session.TurnEnd:
			if p.Reason.Kind != session.EndError || p.Reason.Error == nil {
				continue
			}
			want := view.TurnError{Seq: e.Seq, Turn: p.Turn, Message: view.DisplayFailureMessage(p.Reason.Error), Code: p.Reason.Error.Code}
			if !hasTurnError(r, full, want, "the full log") {
				continue
			}
			checkRetryRows(r, full, e.Seq, p.Turn, chainsOfTurn[p.Turn])
			start, ok := turnStart[p.Turn]
			if !ok {
				start = 0
			}
			for w := start; w <= i; w++ {
				if w != i && w != start {
					if _, chunk := events[w].Data.(*session.AssistantChunk); chunk {
						continue
					}
				}
				if w == 0 {
					continue // the full log, checked above
				}
				if !hasTurnError(r, derive(events[w:i+1]), want, "the tail window from seq "+strconv.FormatInt(events[w].Seq, 10)) {
					break // one report per turn is enough
				}
			}
		}
	}
	return r.out
}

// hasTurnError reports a missing or wrong node.
func hasTurnError(r *reporter, nodes view.Nodes, want view.TurnError, where string) bool {
	for _, n := range nodes.TurnErrors {
		if n.Seq != want.Seq {
			continue
		}
		if n.Turn != want.Turn || n.Message != want.Message || n.Code != want.Code {
			r.add(want.Turn, n.Step, []int64{want.Seq}, "in %s the turn-error node reads turn %d %q/%s, want turn %d %q/%s", where, n.Turn, n.Message, n.Code, want.Turn, want.Message, want.Code)
			return false
		}
		return true
	}
	r.add(want.Turn, 0, []int64{want.Seq}, "turn %d ended with error %s, but %s derives no turn-error node for it", want.Turn, want.Code, where)
	return false
}

// checkRetryRows checks that each retry chain of a failed turn renders its
// row beside the turn-error node.
func checkRetryRows(r *reporter, nodes view.Nodes, endSeq int64, turn int, chains []string) {
	for _, id := range chains {
		found := false
		for _, n := range nodes.ModelRetries {
			found = found || n.RetryID == id
		}
		if !found {
			r.add(turn, 0, []int64{endSeq}, "turn %d retried (chain %s) but the view derives no model-retry row beside its error", turn, id)
		}
	}
}
