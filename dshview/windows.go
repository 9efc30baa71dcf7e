package dshview

import (
	"fmt"
	"slices"

	"github.com/turnsim/turnsim/loop/session"
)

// MaxWindowsPerTurn bounds the tail windows of one turn: a turn of more
// candidate starts has this many, spread evenly from its first to its
// last (its turn/start and its turn/end always among them), so that a
// turn of thousands of tool calls costs a bounded number of derivations.
const MaxWindowsPerTurn = 64

// Views is what turnsim asks DSH's view code of a log, each compared with
// turnsim's view of the same events:
//   - the whole log, its rows drawn by DSH's renderers;
//   - the tail windows of every turn with recovery in it (an error
//     turn/end, a retry): the log as it stood at the turn's end, loaded
//     from each event of the turn but its chunks, with older history
//     before it (the oracle's tail windows of exhausted-turn-renders-
//     error, and the same for a turn that retried and went on);
//   - the history as the Web UI pages it in at the log's end: the tail
//     page, then each older page prepended, at its 50 messages a page and
//     at 1 (so that a short log is paged too);
//   - live: the log appended one event at a time to an open page, read
//     at each recovery turn's end and at the log's end, rows drawn.
func Views(events []session.Event) Query {
	n := len(events)
	q := Query{Views: []View{{Where: "the whole log", Steps: [][2]int{{0, n}}, Rows: true}}}
	var live []int
	for _, t := range recoveryTurns(events) {
		for _, from := range tailStarts(events, t.start, t.end) {
			if from == 0 && t.end+1 == n {
				continue // the whole log
			}
			q.Views = append(q.Views, View{Where: fmt.Sprintf("the tail window from seq %d to seq %d", events[from].Seq, events[t.end].Seq),
				Steps: [][2]int{{from, t.end + 1}}})
		}
		live = append(live, t.end+1)
	}
	for _, m := range []int{PageMessages, 1} {
		if v := pagedView(events, m); len(v.Steps) > 1 {
			q.Views = append(q.Views, v) // one page is the whole log
		}
	}
	if n > 0 {
		live = append(live, n)
	}
	q.Live = slices.Compact(live)
	return q
}

// turnSpan is a turn's turn/start (or its turn/end, when its start is
// not in the log) and its turn/end, by index.
type turnSpan struct{ start, end int }

// recoveryTurns are the ended turns of the log with a retry or an error
// end, in order.
func recoveryTurns(events []session.Event) []turnSpan {
	var out []turnSpan
	start := map[int]int{}
	retried := map[int]bool{}
	for i := range events {
		switch p := events[i].Data.(type) {
		case *session.TurnStart:
			start[p.Turn] = i
		case *session.LLMRetry:
			retried[p.Turn] = true
		case *session.LLMRetryStarted:
			retried[p.Turn] = true
		case *session.TurnEnd:
			if retried[p.Turn] || p.Reason.Kind == session.EndError {
				s, ok := start[p.Turn]
				if !ok || s > i {
					s = i
				}
				out = append(out, turnSpan{s, i})
			}
			delete(start, p.Turn)
			delete(retried, p.Turn)
		}
	}
	return out
}

// tailStarts are where the tail windows of a turn begin: at every event
// from its start to its end but its chunks (a chunk is always followed,
// inside the turn, by an event that locates the turn again), bounded by
// MaxWindowsPerTurn.
func tailStarts(events []session.Event, start, end int) []int {
	var starts []int
	for i := start; i <= end; i++ {
		if _, chunk := events[i].Data.(*session.AssistantChunk); chunk && i != start && i != end {
			continue
		}
		starts = append(starts, i)
	}
	if len(starts) <= MaxWindowsPerTurn {
		return starts
	}
	spread := make([]int, MaxWindowsPerTurn)
	for k := range spread {
		spread[k] = starts[k*(len(starts)-1)/(MaxWindowsPerTurn-1)]
	}
	return spread
}
