package dshview

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
)

// Difference is one view in which DSH's view code and turnsim's view
// derive different nodes or rows.
type Difference struct {
	// Where is the view and step ("the tail window from seq 4 to seq 9").
	Where string
	// Diff is the (-turnsim +dsh) diff.
	Diff string
}

// Line is the difference in one line: where, and the diff's first lines
// squeezed.
func (d Difference) Line() string {
	diff := strings.Join(strings.Fields(d.Diff), " ")
	if len(diff) > 400 {
		diff = diff[:400] + " …"
	}
	return fmt.Sprintf("in %s, DSH's view code and turnsim's view derive different nodes (-turnsim +dsh): %s", d.Where, diff)
}

// Comparison is a log derived both ways.
type Comparison struct {
	// Differences are the views that differ, in the query's order.
	Differences []Difference
	// Findings are the rendering invariants DSH's nodes and rows break.
	Findings []Finding
	// Compared counts the snapshots compared (views' steps and live
	// checkpoints); Nodes the DSH nodes in them (all kinds), which is
	// never 0 for a log with a message: derived is not nothing. Stale
	// counts the live checkpoints not compared because the page's last
	// flush before them threw (Findings say what it threw).
	Compared, Nodes, Stale int
}

// nodeDiff compares two derivations, empty lists equal to none: a diff
// is made only for two that differ (cmp.Diff's reflection was most of a
// comparison's time, and nearly every pair agrees).
func nodeDiff(turnsim, dsh view.Nodes) string {
	if sameNodes(turnsim, dsh) {
		return ""
	}
	return cmp.Diff(turnsim, dsh, cmpopts.EquateEmpty())
}

func sameNodes(a, b view.Nodes) bool {
	return slices.Equal(a.TurnErrors, b.TurnErrors) && slices.EqualFunc(a.ModelRetries, b.ModelRetries, func(x, y view.ModelRetry) bool {
		return x.Seq == y.Seq && x.Time == y.Time && x.RetryID == y.RetryID && x.Turn == y.Turn && x.Step == y.Step &&
			slices.EqualFunc(x.Attempts, y.Attempts, sameAttempt)
	})
}

func sameAttempt(x, y view.RetryAttempt) bool {
	return x.Seq == y.Seq && x.Time == y.Time && x.Retry == y.Retry && samePtr(x.MaxRetries, y.MaxRetries) && x.Mode == y.Mode &&
		x.DelayMs == y.DelayMs && x.State == y.State && x.Failure.Message == y.Failure.Message && x.Failure.Code == y.Failure.Code &&
		samePtr(x.Failure.Status, y.Failure.Status) && samePtr(x.Failure.ProviderRetryAfterMs, y.Failure.ProviderRetryAfterMs) &&
		x.Failure.RequestID == y.Failure.RequestID
}

func samePtr[T comparable](a, b *T) bool { return a == b || a != nil && b != nil && *a == *b }

// rowDiff compares two lists of rows as the Web UI comparison does.
func rowDiff(turnsim, dsh []view.Row) string {
	a, b := view.RowLines(turnsim), view.RowLines(dsh)
	if slices.Equal(a, b) {
		return ""
	}
	return cmp.Diff(a, b, cmpopts.EquateEmpty())
}

// Compare holds DSH's answer to the query to turnsim's view of the same
// events, under the rule DSH renders turn errors by, and judges DSH's
// nodes and rows by the rendering invariants.
func Compare(events []session.Event, q Query, a *Answer, rule view.TurnErrorRule) Comparison {
	c := comparing{opts: view.Options{TurnErrors: rule}}
	for i, v := range q.Views {
		ans := a.Views[i]
		if ans.Error != "" {
			c.differ(v.Where, ans.Error)
			continue
		}
		for k := range v.Steps {
			where := v.Where
			if len(v.Steps) > 1 {
				where = fmt.Sprintf("%s, after page %d of %d", v.Where, k+1, len(v.Steps))
			}
			from, to := v.Window(k)
			snap := ans.Steps[k]
			if v.Rows && k == len(v.Steps)-1 {
				snap.Rows = ans.Rows
			}
			c.snapshot(events[from:to], snap, where, v.Rows && k == len(v.Steps)-1, false)
		}
	}
	if a.LiveError != "" {
		c.differ("the live view", a.LiveError)
	}
	for _, t := range a.Throws {
		c.Findings = append(c.Findings, liveThrow(events, t))
	}
	for k, snap := range a.Live {
		end := q.Live[k]
		where := "the live view"
		if end < len(events) {
			where = fmt.Sprintf("the live view after seq %d", events[end-1].Seq)
		}
		if snap.Stale {
			// The page still shows what it showed before the flush that
			// threw: the throw is the finding (above), not a comparison.
			c.Stale++
			continue
		}
		c.snapshot(events[:end], snap, where, true, true)
	}
	c.Findings = dedupe(c.Findings)
	return c.Comparison
}

// comparing is a Comparison being made.
type comparing struct {
	Comparison
	opts view.Options
}

func (c *comparing) differ(where, diff string) {
	if diff != "" {
		c.Differences = append(c.Differences, Difference{Where: where, Diff: diff})
	}
}

// snapshot compares one snapshot of DSH's with turnsim's view of the
// same window (its rows too, with rows: drawn live, a scheduled attempt
// is an active row) and judges it.
func (c *comparing) snapshot(window []session.Event, snap Snapshot, where string, rows, live bool) {
	c.Compared++
	c.Nodes += snap.Total
	dsh, err := snap.ViewNodes()
	if err != nil {
		c.differ(where, err.Error())
		return
	}
	ours := view.DeriveWith(window, c.opts)
	c.differ(where, nodeDiff(ours, dsh))
	found := judgeNodes(window, dsh, where)
	c.Findings = append(c.Findings, found...)
	if rows {
		c.differ(where+" (rows)", rowDiff(view.Rows(ours, live), snap.Rows))
		c.Findings = append(c.Findings, judgeRows(window, snap.Rows, where, found)...)
	}
}
