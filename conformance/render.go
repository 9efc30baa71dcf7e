package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/turnsim/turnsim/internal/atomicfile"

	"github.com/turnsim/turnsim/conformance/dshweb"
	"github.com/turnsim/turnsim/conformance/webui"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
)

// A rendered run keeps, beside DSH's log, what DSH's Web UI showed: the
// session opened afresh once the drive was done (its history), and at each
// observe action the page that had the session open while it ran (live).
const (
	FinalRender = "ui-final" // .json rows, .png screenshot, .html chat pane
)

// Render is what the Web UI showed at one point.
type Render struct {
	// Field is the observe action (world[i]), or "" for the final render.
	Field string `json:"field,omitempty"`
	// BeforeSeq is the first seq the driver had not yet seen when the page
	// was read: the page shows the log before it.
	BeforeSeq int64       `json:"beforeSeq"`
	Rows      []webui.Row `json:"rows"`
	// From and To bound the look in wall-clock epoch ms, as DSH's log
	// times events: a look is certain only if no event falls between.
	From int64 `json:"from"`
	To   int64 `json:"to"`
	// Screenshot is the PNG beside it, by file name.
	Screenshot string `json:"screenshot"`
}

// RenderHooks are the hooks that read DSH's Web UI during a run: the
// browser starts before the drive; each observe action opens the session
// in the page if it is not open yet and reads it; after the drive the page
// is loaded again and the session read from its history. Files land in
// dir. Close stops the browser.
func RenderHooks(chromium, dir string) (Hooks, func()) {
	var b *webui.Browser
	var hostURL string
	opened := false
	read := func(name, field string, beforeSeq int64, looked time.Time) error {
		r := Render{Field: field, BeforeSeq: beforeSeq, Screenshot: name + ".png", From: looked.UnixMilli()}
		var err error
		if r.Rows, err = b.Rows(); err != nil {
			return err
		}
		r.To = time.Now().UnixMilli()
		if err := b.Screenshot(filepath.Join(dir, name+".png")); err != nil {
			return err
		}
		if chat, err := b.Chat(); err == nil {
			if err := atomicfile.Write(filepath.Join(dir, name+".html"), []byte(chat)); err != nil {
				return err
			}
		}
		data, _ := json.MarshalIndent(r, "", "  ")
		return atomicfile.Write(filepath.Join(dir, name+".json"), append(data, '\n'))
	}
	hooks := Hooks{
		BeforeDrive: func(ctx context.Context, h *dshweb.Host, _ string) error {
			var err error
			hostURL = h.URL
			b, err = webui.Open(ctx, chromium, filepath.Join(dir, "chromium"))
			return err
		},
		Observe: func(field string, beforeSeq int64) error {
			// The page is loaded at the first look, not before the drive:
			// a page loaded on a blank session lists it only seconds after
			// it has a title.
			looked := time.Now()
			if !opened {
				if err := b.OpenSession(hostURL); err != nil {
					return err
				}
				opened = true
			}
			time.Sleep(300 * time.Millisecond) // the page's own event stream catches up
			return read("ui-"+strings.NewReplacer("[", "-", "]", "").Replace(field), field, beforeSeq, looked)
		},
		AfterDrive: func(ctx context.Context, h *dshweb.Host, _ string) error {
			if err := b.OpenSession(hostURL); err != nil { // a fresh load: the history
				return err
			}
			return read(FinalRender, "", -1, time.Now())
		},
	}
	return hooks, func() {
		if b != nil {
			b.Close()
		}
	}
}

// ReadRenders reads what a rendered run kept: the final render and the
// observations, or nil when the run was not rendered.
func ReadRenders(dir string) (final *Render, observed []Render, err error) {
	names, err := filepath.Glob(filepath.Join(dir, "ui-*.json"))
	if err != nil {
		return nil, nil, err
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, nil, err
		}
		var r Render
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", name, err)
		}
		if r.Field == "" {
			final = &r
		} else {
			observed = append(observed, r)
		}
	}
	slices.SortFunc(observed, func(a, b Render) int { return int(a.BeforeSeq - b.BeforeSeq) })
	return final, observed, nil
}

// HasRender reports whether a run in dir was rendered.
func HasRender(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, FinalRender+".json"))
	return !errors.Is(err, fs.ErrNotExist)
}

// ViewRows are the rows turnsim's view derives, as DSH's Web UI draws
// them, in the page's order (by anchor seq). live: the log is the log as
// it stood, so a scheduled last attempt is an active row.
func ViewRows(nodes view.Nodes, live bool) []webui.Row {
	type anchored struct {
		seq int64
		row webui.Row
	}
	var rows []anchored
	for _, m := range nodes.ModelRetries {
		rows = append(rows, anchored{m.Seq, webui.Row{Kind: "model-retry", Status: m.Label(), Details: m.Details(),
			Active: live && m.Current().State == view.Scheduled}})
	}
	for _, t := range nodes.TurnErrors {
		rows = append(rows, anchored{t.Seq, webui.Row{Kind: "turn-error", Title: "This turn failed", Message: t.Message, Code: t.Code}})
	}
	slices.SortStableFunc(rows, func(a, b anchored) int { return int(a.seq - b.seq) })
	out := make([]webui.Row, len(rows))
	for i, r := range rows {
		out[i] = r.row
	}
	return out
}

// RowLines renders rows for a comparison: the recovery rows only (the
// Web UI's max-tokens notice has no node in turnsim's view).
func RowLines(rows []webui.Row) []string {
	var out []string
	for _, r := range rows {
		if r.Kind == "model-retry" || r.Kind == "turn-error" {
			out = append(out, r.Line())
		}
	}
	return out
}

// DisplaySafeFailure is the rendering invariant that no row shows an AUTH
// failure's provider text, which may echo a key (SPEC 6.4: the UI shows
// "API key is invalid" instead). It is held against the Web UI's rows
// only: SPEC 9 records that DSH's retry row shows the failure raw in its
// details, and turnsim's view reproduces that row as DSH draws it.
const DisplaySafeFailure = "display-safe-failure"

// RenderViolations holds the oracle's rendering invariants against what
// DSH's Web UI shows for a log (SPEC 6, whatever rule the UI renders by):
// every error turn shows a turn-error row with its display-safe message
// and code, and beside it a retry row for each of its retry chains, whose
// count is the chain's last attempt of its budget; and no row shows an
// AUTH failure's provider text.
func RenderViolations(events []session.Event, rows []webui.Row) []oracle.Violation {
	out := authShown(events, rows)
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
				if !used[k] && r.Kind == "turn-error" && r.Title == "This turn failed" && r.Message == msg && r.Code == f.Code {
					used[k], found = true, true
					break
				}
			}
			seqs := []int64{events[i].Seq}
			if !found {
				what := "no turn-error row for it"
				if n := len(chains[p.Turn]); n > 0 {
					what += fmt.Sprintf(", only the turn's retry row%s", map[bool]string{true: "s", false: ""}[n > 1])
				}
				out = append(out, oracle.Violation{Invariant: oracle.ExhaustedTurnRendersError, Turn: p.Turn, Seqs: seqs,
					Message: fmt.Sprintf("turn %d ended with error %s %q, and DSH's Web UI shows %s", p.Turn, f.Code, msg, what)})
			}
			for _, c := range chains[p.Turn] {
				want := retryCount(c)
				if !slices.ContainsFunc(rows, func(r webui.Row) bool { return r.Kind == "model-retry" && strings.Contains(r.Status, want) }) {
					out = append(out, oracle.Violation{Invariant: oracle.ExhaustedTurnRendersError, Turn: p.Turn, Seqs: seqs,
						Message: fmt.Sprintf("turn %d's retry chain %s ended at %s, and DSH's Web UI shows no retry row with that count", p.Turn, c.RetryID, want)})
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

// authShown reports each AUTH failure whose provider text a row shows.
func authShown(events []session.Event, rows []webui.Row) []oracle.Violation {
	var out []oracle.Violation
	reported := map[string]bool{}
	for i := range events {
		var f *session.LlmFailure
		turn := 0
		switch p := events[i].Data.(type) {
		case *session.LLMRetry:
			f, turn = &p.Failure, p.Turn
		case *session.TurnEnd:
			f, turn = p.Reason.Error, p.Turn
		}
		if f == nil || f.Code != "AUTH" || f.Message == view.DisplayFailureMessage(f) || reported[f.Message] {
			continue
		}
		for _, r := range rows {
			shown := strings.Join(append([]string{r.Status, r.Message}, r.Details...), "\n")
			if strings.Contains(shown, f.Message) {
				reported[f.Message] = true
				out = append(out, oracle.Violation{Invariant: DisplaySafeFailure, Turn: turn, Seqs: []int64{events[i].Seq},
					Message: fmt.Sprintf("DSH's Web UI shows the AUTH failure's provider text %q (in a %s row), not %q", f.Message, r.Kind, view.DisplayFailureMessage(f))})
				break
			}
		}
	}
	return out
}
