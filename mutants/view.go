package mutants

import (
	"slices"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
)

// suppressOnRetry is the retired turn-error rule, as DSH 0.1.0-rc.8's
// released Web UI still renders by (view.HiddenByRetry): a turn that has
// any retry record hides its turn-error node, on the theory that the retry
// node already tells the story — but an exhausted turn's retry node says
// "retried", not why the turn failed.
func suppressOnRetry(events []session.Event) view.Nodes {
	return view.DeriveWith(events, view.Options{TurnErrors: view.HiddenByRetry})
}

// tailWindowDrift derives a turn error only for turns whose turn/start is
// inside the window, which holds for a whole log and fails for the tail
// windows the Web view actually renders.
func tailWindowDrift(events []session.Event) view.Nodes {
	n := view.Derive(events)
	started := map[int]bool{}
	for i := range events {
		if t, ok := events[i].Data.(*session.TurnStart); ok {
			started[t.Turn] = true
		}
	}
	n.TurnErrors = slices.DeleteFunc(n.TurnErrors, func(te view.TurnError) bool { return !started[te.Turn] })
	return n
}
