package conformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// Comparison is one scenario compared on both sides.
type Comparison struct {
	DSH, Model Side
	// Diff is the (-dsh +turnsim) diff of the two skeletons; empty when
	// they agree.
	Diff string
	// DSHViolations are the oracle's violations on DSH's log (log-only
	// checks); ModelViolations on the model's (with its run facts).
	DSHViolations, ModelViolations []oracle.Violation
	// Lines is the skeleton's length.
	Lines int
	// AgentErrors are what DSH's host reported as agent errors during the
	// run (a failure its loop could not log among them).
	AgentErrors []string

	// For a rendered run (simrun conformance --render): UIDiff is the
	// (-dsh ui +turnsim view) diff of the rows DSH's Web UI showed and the
	// rows turnsim's view derives from DSH's log under the UI's rule, at
	// the end and at each observe action; UIViolations are the rendering
	// invariants the rows break (findings about DSH's UI, kept with their
	// screenshot); UIRows counts the rows compared, Observed the looks.
	Rendered bool
	UIDiff   string
	// ViewDiff is the (-dsh ui +dsh view code) diff of the rows DSH's Web
	// UI showed and the rows DSH's own view code draws from the same log
	// in Node (with a RowDrawer: --dsh-view), at the end and at each
	// look; ViewRows counts the rows it drew.
	ViewDiff         string
	ViewRows         int
	UIViolations     []oracle.Violation
	UIRows, Observed int
	FinalScreenshot  string
}

// Agree reports whether both sides agree (their logs, and for a rendered
// run DSH's Web UI and turnsim's view under the UI's rule) and both logs
// are clean. What the UI's rule hides is a finding about the UI
// (UIViolations), not a difference.
func (c *Comparison) Agree() bool {
	return c.Diff == "" && c.UIDiff == "" && c.ViewDiff == "" && len(c.DSHViolations) == 0 && len(c.ModelViolations) == 0
}

// A RowDrawer draws a log's recovery rows as DSH's Web UI would: the
// whole log, and what a page that had the session open showed when the
// log ended at each of ends (DSH's own view code in Node: package
// dshview). It is given to Compare as the options' ViewCheck.
type RowDrawer interface {
	DrawRows(events []session.Event, ends []int) (whole []view.Row, live [][]view.Row, err error)
}

// Finding reports whether the comparison is a finding about DSH: DSH's
// log breaks an invariant that the model's log, of the same scenario,
// holds.
func (c *Comparison) Finding() bool {
	return len(c.DSHViolations) > 0 && len(c.ModelViolations) == 0
}

// WebUI names DSH's Web UI, read in Chromium, in a rendering violation.
const WebUI = "DSH's Web UI"

// UIRule is the rule DSH 0.1.0-rc.8's released Web UI renders turn
// errors by: the view is compared with the UI under it.
const UIRule = view.HiddenByRetry

// Compare reads the files a DSH run of s left in dir, runs the model on
// the same scenario (as opts build it: the correct model, or a mutant),
// and compares the two.
func Compare(s *sim.Scenario, dir string, opts sim.Options) (*Comparison, error) {
	dsh, err := ReadDSHSide(dir)
	if err != nil {
		return nil, err
	}
	drive, err := ReadDrive(dir)
	if err != nil {
		return nil, err
	}
	model, res := ModelSide(s, SessionCwd, opts)
	c := &Comparison{DSH: *dsh, Model: *model, AgentErrors: drive.AgentErrors}
	c.DSHViolations = oracle.Check(dsh.Events, oracle.Options{Strict: true})
	c.ModelViolations = oracle.Check(res.Events, opts.Oracle(res))
	want, got := dsh.Lines(), model.Lines()
	c.Diff = LineDiff(want, got, 2)
	c.Lines = len(want)
	drawer, _ := opts.ViewCheck.(RowDrawer)
	if err := c.compareRenders(dir, drawer); err != nil {
		return nil, err
	}
	return c, nil
}

// compareRenders holds what DSH's Web UI showed, if the run was rendered,
// to turnsim's view of DSH's log: node by node under the UI's rule, and
// to the rendering invariants.
func (c *Comparison) compareRenders(dir string, drawer RowDrawer) error {
	final, observed, err := ReadRenders(dir)
	if err != nil || final == nil {
		return err
	}
	c.Rendered, c.FinalScreenshot = true, filepath.Join(dir, final.Screenshot)
	rule := view.Options{TurnErrors: UIRule}
	var diffs []string
	ui, tv := view.RowLines(final.Rows), view.RowLines(view.Rows(view.DeriveWith(c.DSH.Events, rule), false))
	c.UIRows += len(ui)
	if d := LineDiff(ui, tv, 2); d != "" {
		diffs = append(diffs, "the session opened after the run ("+final.Screenshot+"):\n"+d)
	}
	for _, o := range observed {
		n := sort.Search(len(c.DSH.Events), func(i int) bool { return c.DSH.Events[i].Seq >= o.BeforeSeq })
		if n < len(c.DSH.Events) && c.DSH.Events[n].Time <= o.To {
			// The session moved before the page was read: the look says
			// nothing certain (the machine was slower than the window).
			return fmt.Errorf("the look at %s took %d ms and the session moved meanwhile (seq %d at %d ms): no comparison; aim it earlier in a longer wait",
				o.Field, o.To-o.From, c.DSH.Events[n].Seq, c.DSH.Events[n].Time-o.From)
		}
		ui, tv := view.RowLines(o.Rows), view.RowLines(view.Rows(view.DeriveWith(c.DSH.Events[:n], rule), true))
		c.UIRows += len(ui)
		c.Observed++
		if d := LineDiff(ui, tv, 2); d != "" {
			diffs = append(diffs, fmt.Sprintf("live, at %s before seq %d (%s):\n%s", o.Field, o.BeforeSeq, o.Screenshot, d))
		}
	}
	c.UIDiff = strings.Join(diffs, "")
	if drawer != nil {
		if err := c.compareDrawn(final, observed, drawer); err != nil {
			return err
		}
	}
	c.UIViolations = oracle.RenderViolations(c.DSH.Events, final.Rows, WebUI)
	return nil
}

// ModelSide runs the model on s as DSH's composition would meet it: with
// the runtime-context snapshot DSH adds for a session working in cwd.
func ModelSide(s *sim.Scenario, cwd string, opts sim.Options) (*Side, *sim.Result) {
	ms := *s
	if ms.RuntimeContext == nil {
		ms.RuntimeContext = sim.DSHRuntimeContext(cwd)
	}
	res := sim.RunWith(&ms, opts)
	side := &Side{Events: res.Events, Summaries: res.Summaries, Unfired: res.Unfired}
	for _, a := range res.Actions {
		if a.Input == 0 {
			side.Actions = append(side.Actions, Landing{BeforeSeq: a.Seq, What: a.What})
		}
	}
	for _, r := range res.Requests {
		side.Requests = append(side.Requests, ModelRequestTags(res.Events, r.Messages))
	}
	return side, res
}

// ReadDSHSide reads what a DSH run left in dir: its log, the driver's
// record and the provider's request log.
func ReadDSHSide(dir string) (*Side, error) {
	_, events, err := session.ReadFile(filepath.Join(dir, SessionFile), session.ReadOptions{})
	if err != nil {
		return nil, fmt.Errorf("DSH's log: %w", err)
	}
	drive, err := ReadDrive(dir)
	if err != nil {
		return nil, err
	}
	side := &Side{Events: events, Unfired: drive.Unfired}
	for _, a := range drive.Applied {
		if a.Error != "" {
			return nil, fmt.Errorf("%s (%s) was refused by the web host: %s", a.Field, a.What, a.Error)
		}
		if strings.HasPrefix(a.Field, "world[") {
			side.Actions = append(side.Actions, Landing{BeforeSeq: a.BeforeSeq, What: a.What})
		}
	}
	if side.Requests, side.Summaries, err = readRequests(filepath.Join(dir, RequestsFile)); err != nil {
		return nil, err
	}
	return side, nil
}

// readRequests reads the fake provider's request log: each conversation
// request's message tags, and the number of summary requests.
func readRequests(path string) (conversation [][]string, summaries int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("the provider's request log: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for line := 1; sc.Scan(); line++ {
		var rec struct {
			Kind string          `json:"kind"`
			Body json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, 0, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if rec.Kind == "summary" {
			summaries++
			continue
		}
		tags, err := WireRequestTags(rec.Body)
		if err != nil {
			return nil, 0, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		conversation = append(conversation, tags)
	}
	return conversation, summaries, sc.Err()
}

// compareDrawn holds what DSH's Web UI showed to the rows DSH's own view
// code draws in Node from the same log: the session opened after the run,
// and each look at the page that had it open (its prefix of the log).
func (c *Comparison) compareDrawn(final *Render, observed []Render, drawer RowDrawer) error {
	var ends []int
	for _, o := range observed {
		ends = append(ends, sort.Search(len(c.DSH.Events), func(i int) bool { return c.DSH.Events[i].Seq >= o.BeforeSeq }))
	}
	whole, live, err := drawer.DrawRows(c.DSH.Events, ends)
	if err != nil {
		return fmt.Errorf("DSH's view code in Node: %v", err)
	}
	var diffs []string
	c.ViewRows += len(view.RowLines(whole))
	if d := LineDiff(view.RowLines(final.Rows), view.RowLines(whole), 2); d != "" {
		diffs = append(diffs, "the session opened after the run ("+final.Screenshot+"), -DSH's Web UI +DSH's view code in Node:\n"+d)
	}
	for k, o := range observed {
		c.ViewRows += len(view.RowLines(live[k]))
		if d := LineDiff(view.RowLines(o.Rows), view.RowLines(live[k]), 2); d != "" {
			diffs = append(diffs, fmt.Sprintf("live, at %s before seq %d (%s), -DSH's Web UI +DSH's view code in Node:\n%s", o.Field, o.BeforeSeq, o.Screenshot, d))
		}
	}
	c.ViewDiff = strings.Join(diffs, "")
	return nil
}
