package conformance_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// keptRun writes what a rendered DSH run leaves in a folder, with the
// model's own log standing in for DSH's and the given rows for what its
// Web UI showed.
func keptRun(t *testing.T, s *sim.Scenario, rows func(events []session.Event) []view.Row) string {
	t.Helper()
	dir := t.TempDir()
	res := sim.Run(s)
	var b bytes.Buffer
	if err := session.WriteLog(&b, res.Header, res.Events); err != nil {
		t.Fatal(err)
	}
	write := func(name string, v any) {
		data, ok := v.([]byte)
		if !ok {
			data, _ = json.Marshal(v)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(conformance.SessionFile, b.Bytes())
	write(conformance.DriveFile, conformance.Drive{})
	write(conformance.RequestsFile, []byte{})
	write(conformance.FinalRender+".json", conformance.Render{BeforeSeq: -1, Rows: rows(res.Events), Screenshot: "ui-final.png"})
	return dir
}

// TestRenderedRuns: the rows DSH's released UI shows for an exhausted
// turn (the retry row, no error) agree with the view under the UI's rule
// and break exhausted-turn-renders-error; a wrong count is a difference.
func TestRenderedRuns(t *testing.T) {
	s, err := sim.ParseScenario([]byte(`{"name":"x","retryPolicy":{"maxRetries":2,"retryableCodes":["SERVER"],"backoff":{"initialDelayMs":10,"maxDelayMs":10,"jitterRatio":0}},
		"requests":[{"fail":{"code":"SERVER","message":"busy","status":500}},{"fail":{"code":"SERVER","message":"busy","status":500}},{"fail":{"code":"SERVER","message":"busy","status":500}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	released := func(events []session.Event) []view.Row {
		return view.Rows(view.DeriveWith(events, view.Options{TurnErrors: view.HiddenByRetry}), false)
	}
	for _, row := range []struct {
		why        string
		rows       func([]session.Event) []view.Row
		differs    bool
		invariants []oracle.ID
	}{
		{"the released UI: the retry row alone", released, false, []oracle.ID{oracle.ExhaustedTurnRendersError}},
		{"DSH's later UI: the retry row and the error", func(e []session.Event) []view.Row { return view.Rows(view.Derive(e), false) }, true, nil},
		{"a retry row with the wrong count", func(e []session.Event) []view.Row {
			rows := released(e)
			rows[0].Status = strings.Replace(rows[0].Status, "(2/2)", "(1/2)", 1)
			return rows
		}, true, []oracle.ID{oracle.ExhaustedTurnRendersError, oracle.ExhaustedTurnRendersError}},
	} {
		c, err := conformance.Compare(s, keptRun(t, s, row.rows), sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !c.Rendered || (c.UIDiff != "") != row.differs {
			t.Errorf("%s: rendered %v, diff %q", row.why, c.Rendered, c.UIDiff)
		}
		var got []oracle.ID
		for _, v := range c.UIViolations {
			got = append(got, v.Invariant)
		}
		if !slices.Equal(got, row.invariants) {
			t.Errorf("%s: the UI breaks %v, want %v", row.why, got, row.invariants)
		}
	}
}

func TestRowLine(t *testing.T) {
	live := view.Row{Kind: "model-retry", Status: "Retrying model request (1/2) · 4s", Active: true, Details: []string{"Retry delay: 6000ms", "Failure reason: busy"}}
	settled := live
	settled.Status = "Retrying model request (1/2) · 6s"
	if live.Line() != settled.Line() {
		t.Errorf("a live row's countdown is part of its line: %q vs %q", live.Line(), settled.Line())
	}
	settled.Active = false
	if live.Line() == settled.Line() {
		t.Errorf("a live row reads like a settled one: %q", live.Line())
	}
}

// TestAuthShown: a retry row that shows an AUTH failure's provider text
// breaks display-safe-failure; the masked text does not.
func TestAuthShown(t *testing.T) {
	s, err := sim.ParseScenario([]byte(`{"name":"x","retryPolicy":{"mode":"always","backoff":{"initialDelayMs":10,"maxDelayMs":10,"jitterRatio":0}},
		"requests":[{"fail":{"code":"AUTH","message":"invalid api key sk-live-123","status":401}},{"text":"ok"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res := sim.Run(s)
	rows := view.Rows(view.Derive(res.Events), false) // the details show the failure raw, as DSH's do
	vs := oracle.RenderViolations(res.Events, rows, conformance.WebUI)
	if len(vs) != 1 || vs[0].Invariant != oracle.DisplaySafeFailure || !strings.Contains(vs[0].Message, "sk-live-123") {
		t.Fatalf("violations %v, want one display-safe-failure", vs)
	}
	rows[0].Details[1] = "Failure reason: API key is invalid"
	if vs := oracle.RenderViolations(res.Events, rows, conformance.WebUI); len(vs) != 0 {
		t.Errorf("masked rows: %v", vs)
	}
}

// TestLookThatTookTooLong: a look whose page was read after the session
// had moved on compares nothing and says why.
func TestLookThatTookTooLong(t *testing.T) {
	s, err := sim.ParseScenario([]byte(`{"name":"x","retryPolicy":{"maxRetries":1,"retryableCodes":["SERVER"],"backoff":{"initialDelayMs":6000,"maxDelayMs":6000,"jitterRatio":0}},
		"requests":[{"fail":{"code":"SERVER","message":"busy","status":500}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	dir := keptRun(t, s, func(e []session.Event) []view.Row {
		return view.Rows(view.DeriveWith(e, view.Options{TurnErrors: view.HiddenByRetry}), false)
	})
	res := sim.Run(s)
	// The look lands in the 6 s wait after the llm/retry.
	n := slices.IndexFunc(res.Events, func(e session.Event) bool { return e.Type() == session.TypeLLMRetry }) + 1
	waitFrom, waitTo := res.Events[n-1].Time, res.Events[n].Time
	for _, row := range []struct {
		why   string
		to    int64
		fails bool
	}{
		{"read inside the wait", waitFrom + 2000, false},
		{"read after the session moved", waitTo + 1, true},
	} {
		data, _ := json.Marshal(conformance.Render{Field: "world[0]", BeforeSeq: res.Events[n].Seq, From: waitFrom + 500, To: row.to,
			Rows: view.Rows(view.Derive(res.Events[:n]), true)})
		os.WriteFile(filepath.Join(dir, "ui-world-0.json"), data, 0o644)
		_, err := conformance.Compare(s, dir, sim.Options{})
		if (err != nil) != row.fails || (err != nil && !strings.Contains(err.Error(), "moved meanwhile")) {
			t.Errorf("%s: %v", row.why, err)
		}
	}
}
