package timeline

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// RenderRun renders a simulated run: its log with the world's marks.
func RenderRun(w io.Writer, res *sim.Result) error {
	return Render(w, res.Events, Marks(res), sim.Epoch.UnixMilli())
}

// Marks are a run's marks: the world's applied actions, and the model
// requests that left nothing in the log, each where it happened.
func Marks(res *sim.Result) []Mark {
	type mark struct {
		order int64
		m     Mark
	}
	var marks []mark
	for _, a := range res.Actions {
		marks = append(marks, mark{a.Order, Mark{Seq: a.Seq, TimeMs: a.TimeMs, Text: a.What}})
	}
	// A request that logged nothing (sent on a cancelled turn, say) is
	// otherwise invisible in the timeline, though the oracle may cite it.
	for i, q := range res.Facts.Requests {
		if silentRequest(res.Events, q) && i < len(res.Requests) {
			text := fmt.Sprintf("model request, attempt %d: nothing of it reached the log", q.Attempt)
			marks = append(marks, mark{q.Order, Mark{Seq: q.Seq, TimeMs: res.Requests[i].TimeMs, Text: text}})
		}
	}
	slices.SortStableFunc(marks, func(a, b mark) int {
		if a.m.Seq != b.m.Seq {
			return cmp.Compare(a.m.Seq, b.m.Seq)
		}
		return cmp.Compare(a.order, b.order)
	})
	out := make([]Mark, len(marks))
	for i, m := range marks {
		out[i] = m.m
	}
	return out
}

// silentRequest: no chunk of the request's turn and step follows it before
// the step's next request or its end.
func silentRequest(events []session.Event, q oracle.Request) bool {
	for _, e := range events[min(int(q.Seq), len(events)):] {
		switch p := e.Data.(type) {
		case *session.AssistantChunk:
			if p.Turn == q.Turn && p.Step == q.Step {
				return false
			}
		case *session.StepEnd:
			return true
		}
	}
	return true
}
