package dshview

import (
	"fmt"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
)

// DiffersFromDSHView is the violation of a log on which DSH's own view
// code and turnsim's view, under the rule DSH renders turn errors by,
// derive different nodes or rows (oracle.DiffersFromDSHView).
const DiffersFromDSHView = oracle.DiffersFromDSHView

// MaxEvents bounds the logs DSH's view code derives: a longer log is
// refused with its length (a page holds 50 messages; its whole history
// in one process is a test of the evaluator's memory, not of DSH's view).
const MaxEvents = 200_000

// Checker derives every log with DSH's view code on a pool of
// evaluators (sim.ViewChecker): --dsh-view.
type Checker struct {
	Pool *Pool
	// Rule is the rule DSH renders turn errors by, which turnsim's view
	// follows for the comparison ("" reads as view.HiddenByRetry, rc.8's).
	Rule view.TurnErrorRule
}

// Name is the checker's name in corpus entries.
func (Checker) Name() string { return "dsh" }

// rule is the checker's rule, rc.8's by default.
func (c Checker) rule() view.TurnErrorRule {
	if c.Rule == "" {
		return view.HiddenByRetry
	}
	return c.Rule
}

// Derive asks DSH's view code the log's views (Views) and compares them
// with turnsim's view.
func (c Checker) Derive(events []session.Event) (Comparison, error) {
	if len(events) > MaxEvents {
		return Comparison{}, fmt.Errorf("a log of %d events is over the %d DSH's view code derives here", len(events), MaxEvents)
	}
	q := Views(events)
	a, err := c.Pool.Evaluate(events, q)
	if err != nil {
		return Comparison{}, err
	}
	return Compare(events, q, a, c.rule()), nil
}

// CheckView derives the log with DSH's view code (sim.ViewChecker): a
// difference from turnsim's view is a violation (the first one, with
// how many views differ), as is a rendering invariant no recorded
// finding explains; the recorded findings come back apart. An evaluator
// that fails is turnsim's own error (a panic the run reports as its
// internal error), never a silent pass.
func (c Checker) CheckView(events []session.Event) ([]oracle.Violation, []oracle.Finding) {
	cmp, err := c.Derive(events)
	if err != nil {
		panic(fmt.Sprintf("DSH's view code could not derive the log: %v", err))
	}
	return cmp.Verdict()
}

// Verdict is the comparison as violations and recorded findings.
func (cmp Comparison) Verdict() ([]oracle.Violation, []oracle.Finding) {
	var vs []oracle.Violation
	if n := len(cmp.Differences); n > 0 {
		msg := cmp.Differences[0].Line()
		if n > 1 {
			msg += fmt.Sprintf(" (and in %d more views)", n-1)
		}
		vs = append(vs, oracle.Violation{Invariant: DiffersFromDSHView, Message: msg})
	}
	var recorded []oracle.Finding
	for _, f := range cmp.Findings {
		if f.Class == "" {
			vs = append(vs, f.Violation)
		} else {
			recorded = append(recorded, f)
		}
	}
	return vs, recorded
}

// DrawRows draws a log's recovery rows with DSH's own view code: the
// whole log as a page opened after it draws them, and as a page that had
// the session open saw them when the log ended at each of ends
// (conformance.RowDrawer: what Chromium read off DSH's Web UI is held to
// them). A look at a page whose last flush threw is the rows it showed
// before.
func (c Checker) DrawRows(events []session.Event, ends []int) (whole []view.Row, live [][]view.Row, err error) {
	q := Query{Views: []View{{Where: "the whole log", Steps: [][2]int{{0, len(events)}}, Rows: true}}, Live: ends}
	a, err := c.Pool.Evaluate(events, q)
	if err != nil {
		return nil, nil, err
	}
	if e := a.Views[0].Error; e != "" {
		return nil, nil, fmt.Errorf("%s", e)
	}
	if a.LiveError != "" {
		return nil, nil, fmt.Errorf("%s", a.LiveError)
	}
	for _, snap := range a.Live {
		live = append(live, snap.Rows)
	}
	return a.Views[0].Rows, live, nil
}
