package oracle

import (
	"fmt"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
)

// DisplaySafeFailure is the rendering invariant that no row shows an AUTH
// failure's provider text, which may echo a key (DSH shows "API key is
// invalid" instead: docs/dsh.md#display-safe-message). It is held against
// DSH's rows only (read off its Web UI, or drawn by its own renderers in
// Node): DSH's retry row shows the failure raw in its details, and
// turnsim's view reproduces that row as DSH draws it. It is not among
// Invariants, which Check judges on a log.
const DisplaySafeFailure ID = "display-safe-failure"

// RenderViolations holds the oracle's rendering invariants against the rows
// DSH draws for a log (docs/dsh.md#web-view, whatever rule it renders by):
// every error turn shows a turn-error row with its display-safe message and
// code, and beside it a retry row for each of its retry chains, whose count
// is the chain's last attempt of its budget; and no row shows an AUTH
// failure's provider text. A turn-error row is its turn/end's by its seq
// where it carries one, else by what it reads (a page read in a browser).
// drawer names what drew the rows, for the messages ("DSH's Web UI").
func RenderViolations(events []session.Event, rows []view.Row, drawer string) []Violation {
	out := authShown(events, rows, drawer)
	used := make([]bool, len(rows))
	chains := map[int][]*session.LLMRetry{} // turn → each chain's last attempt
	for i := range events {
		switch p := events[i].Data.(type) {
		case *session.LLMRetry:
			cs := chains[p.Turn]
			if k := slices.IndexFunc(cs, func(c *session.LLMRetry) bool { return c.RetryID == p.RetryID }); k >= 0 {
				cs[k] = p
			} else if p.Retry == 1 {
				chains[p.Turn] = append(cs, p)
			}
		case *session.TurnEnd:
			if p.Reason.Kind != session.EndError || p.Reason.Error == nil {
				continue
			}
			f := p.Reason.Error
			msg := view.DisplayFailureMessage(f)
			found := false
			for k, r := range rows {
				if !used[k] && r.Kind == "turn-error" && (r.Seq == 0 || r.Seq == events[i].Seq) && r.Title == "This turn failed" && r.Message == msg && r.Code == f.Code {
					used[k], found = true, true
					break
				}
			}
			seqs := []int64{events[i].Seq}
			if !found {
				what := "no turn-error row for it"
				switch n := len(chains[p.Turn]); {
				case n == 1:
					what += ", only the turn's retry row"
				case n > 1:
					what += ", only the turn's retry rows"
				}
				out = append(out, Violation{Invariant: ExhaustedTurnRendersError, Turn: p.Turn, Seqs: seqs,
					Message: fmt.Sprintf("turn %d ended with error %s %q, and %s shows %s", p.Turn, f.Code, msg, drawer, what)})
			}
			for _, c := range chains[p.Turn] {
				want := retryCount(c)
				if !slices.ContainsFunc(rows, func(r view.Row) bool { return r.Kind == "model-retry" && strings.Contains(r.Status, want) }) {
					out = append(out, Violation{Invariant: ExhaustedTurnRendersError, Turn: p.Turn, Seqs: seqs,
						Message: fmt.Sprintf("turn %d's retry chain %s ended at %s, and %s shows no retry row with that count", p.Turn, c.RetryID, want, drawer)})
				}
			}
		}
	}
	return out
}

// retryCount is a retry row's count: "(n/max)", ∞ in always mode.
func retryCount(r *session.LLMRetry) string {
	maximum := "∞"
	if r.Mode != "always" && r.MaxRetries != nil {
		maximum = fmt.Sprint(*r.MaxRetries)
	}
	return fmt.Sprintf("(%d/%s)", r.Retry, maximum)
}

// authShown reports each AUTH failure whose provider text a row shows:
// at the row's own anchor and turn where the row carries one (the text a
// turn's row shows may be another turn's too), else once per text, at
// the first event that carries it.
func authShown(events []session.Event, rows []view.Row, drawer string) []Violation {
	var out []Violation
	reported := map[string]bool{}
	rowReported := make([]bool, len(rows))
	for i := range events {
		f, turn := authFailure(&events[i])
		if f == nil || reported[f.Message] {
			continue
		}
		for k, r := range rows {
			shown := strings.Join(append([]string{r.Status, r.Message}, r.Details...), "\n")
			if rowReported[k] || !strings.Contains(shown, f.Message) {
				continue
			}
			seq := events[i].Seq
			if r.Seq != 0 {
				rowReported[k] = true
				seq, turn = r.Seq, turnAt(events, r.Seq, turn)
			} else {
				reported[f.Message] = true
			}
			out = append(out, Violation{Invariant: DisplaySafeFailure, Turn: turn, Seqs: []int64{seq},
				Message: fmt.Sprintf("%s shows the AUTH failure's provider text %q (in a %s row), not %q", drawer, f.Message, r.Kind, view.DisplayFailureMessage(f))})
			break
		}
	}
	return out
}

// authFailure is an event's AUTH failure whose message is not what is
// displayed for it, and its turn.
func authFailure(e *session.Event) (*session.LlmFailure, int) {
	var f *session.LlmFailure
	turn := 0
	switch p := e.Data.(type) {
	case *session.LLMRetry:
		f, turn = &p.Failure, p.Turn
	case *session.TurnEnd:
		f, turn = p.Reason.Error, p.Turn
	}
	if f == nil || f.Code != "AUTH" || f.Message == view.DisplayFailureMessage(f) {
		return nil, 0
	}
	return f, turn
}

// turnAt is the turn of the llm/retry or turn/end at seq (or otherwise).
func turnAt(events []session.Event, seq int64, otherwise int) int {
	for i := range events {
		if events[i].Seq != seq {
			continue
		}
		switch p := events[i].Data.(type) {
		case *session.LLMRetry:
			return p.Turn
		case *session.TurnEnd:
			return p.Turn
		}
	}
	return otherwise
}
