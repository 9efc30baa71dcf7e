package oracle_test

import (
	"testing"

	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
)

// TestRowsAreMatchedByTheirSeq: two error turns with the same message, the
// first hidden behind its retry row: rows that carry their seq (drawn from
// nodes) put the missing row on the first turn, where it is missing; rows
// read off a page (no seq) are matched by what they read.
func TestRowsAreMatchedByTheirSeq(t *testing.T) {
	b := newLog()
	b.turnStart(1)
	b.stepStart(1, 1)
	b.failRetried(1, 1, "r1", 1, "1")
	b.fail(1, 1, "SERVER", "busy")
	b.stepEnd(1, 1)
	first := b.turnEnd(1, serverError("busy"))
	b.turnStart(2)
	b.stepStart(2, 1)
	b.fail(2, 1, "SERVER", "busy")
	b.stepEnd(2, 1)
	second := b.turnEnd(2, serverError("busy"))
	events := b.events(t)
	rows := view.Rows(view.DeriveWith(events, view.Options{TurnErrors: view.HiddenByRetry}), false)
	vs := oracle.RenderViolations(events, rows, "the test's rows")
	if len(vs) != 1 || vs[0].Turn != 1 || vs[0].Seqs[0] != first {
		t.Errorf("violations %v, want turn 1's error at seq %d missing", vs, first)
	}
	for i := range rows {
		rows[i].Seq = 0 // as read off a page
	}
	vs = oracle.RenderViolations(events, rows, "the test's rows")
	if len(vs) != 1 || vs[0].Invariant != oracle.ExhaustedTurnRendersError {
		t.Errorf("without seqs: violations %v, want one missing row (which turn's, a page cannot tell: turn %d's is shown)", vs, second)
	}
}

// TestAuthTextIsSaidOfTheRowThatShowsIt: a message that two turns' AUTH
// failures share is said of the turn whose row shows it, where the row
// carries its seq.
func TestAuthTextIsSaidOfTheRowThatShowsIt(t *testing.T) {
	b := newLog()
	b.turnStart(1)
	b.stepStart(1, 1)
	b.fail(1, 1, "AUTH", "key sk-1 invalid")
	b.retry(1, 1, "r1", 1, "", "25", "AUTH", "key sk-1 invalid")
	b.started(1, 1, "r1", 1)
	b.fail(1, 1, "SERVER", "busy")
	b.retry(1, 1, "r1", 2, "", "25", "SERVER", "busy")
	b.started(1, 1, "r1", 2)
	b.success(1, 1)
	b.stepEnd(1, 1)
	b.turnEnd(1, completed)
	b.turnStart(2)
	b.stepStart(2, 1)
	b.fail(2, 1, "AUTH", "key sk-1 invalid")
	anchor := b.retry(2, 1, "r2", 1, "", "25", "AUTH", "key sk-1 invalid")
	b.started(2, 1, "r2", 1)
	b.success(2, 1)
	b.stepEnd(2, 1)
	b.turnEnd(2, completed)
	events := b.events(t)
	rows := view.Rows(view.Derive(events), false) // each row shows its current attempt's failure
	vs := oracle.RenderViolations(events, rows, "the test's rows")
	if len(vs) != 1 || vs[0].Invariant != oracle.DisplaySafeFailure || vs[0].Turn != 2 || vs[0].Seqs[0] != anchor {
		t.Errorf("violations %v, want display-safe-failure of turn 2's row at seq %d", vs, anchor)
	}
}
