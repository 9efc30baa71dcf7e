package timeline_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/internal/headless"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/timeline"
)

// run is a scenario's page data, as simrun replay gathers it.
func run(t *testing.T, file string) timeline.Run {
	s, err := sim.LoadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	res := sim.Run(s)
	r := timeline.Run{Title: s.Name, Events: res.Events, TimeNs: res.Facts.TimeNs}
	for _, a := range res.Actions {
		r.Marks = append(r.Marks, timeline.Mark{Seq: a.Seq, TimeMs: a.TimeMs, Text: a.What})
	}
	for i, q := range res.Facts.Requests {
		r.Requests = append(r.Requests, timeline.Request{Seq: q.Seq, TimeMs: res.Requests[i].TimeMs, Turn: q.Turn, Step: q.Step, Attempt: q.Attempt})
	}
	return r
}

// TestSpansOfACancelInsideAWait: the chart's data for a cancel 700 ms into
// the second backoff wait: the turn aborted at 1,200 ms, two failed
// attempts, a wait that ran its 500 ms and one cut at 700 of its 1,000.
func TestSpansOfACancelInsideAWait(t *testing.T) {
	r := run(t, "../scenarios/cancel-at-an-offset-inside-the-second-wait.json")
	type span struct {
		Lane, Kind   string
		FromMs, ToMs float64
	}
	var got []span
	for _, s := range timeline.Spans(r) {
		got = append(got, span{s.Lane, s.Kind, s.FromMs, s.ToMs})
	}
	want := []span{
		{"turns", "aborted", 0, 1200},
		{"attempts", "failed", 0, 0},
		{"attempts", "failed", 500, 500},
		{"waits", "wait", 0, 500},
		{"waits", "cancelled", 500, 1200},
		{"world", "action", 0, 0},
		{"world", "action", 1200, 1200},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	var tags []string
	for _, sp := range timeline.Spans(r) {
		tags = append(tags, sp.Tag)
	}
	if diff := cmp.Diff([]string{"", "SERVER", "SERVER", "", "", "send", "cancel"}, tags); diff != "" {
		t.Errorf("tags drawn on the bars (-want +got):\n%s", diff)
	}
	c := timeline.Place(timeline.Spans(r))
	if c.TopMs != 1200 || c.Bars[0].W != 1000 || c.Bars[4].X != c.Bars[0].X+1000*500/1200.0 {
		t.Errorf("placement: top %v, turn width %v, cancelled wait at x %v", c.TopMs, c.Bars[0].W, c.Bars[4].X)
	}
}

// TestRunPageRenders: the page highlights the violations' witnesses, has
// no script or network reference, and loads in headless Chromium without
// errors.
func TestRunPageRenders(t *testing.T) {
	r := run(t, "../scenarios/cancel-at-an-offset-inside-the-second-wait.json")
	r.Violations = []timeline.Violation{{Invariant: "test-only", Message: "a made-up finding", Seqs: []int64{9, 11}}}
	r.Nodes = []string{"model-retry seq 8: Model request retry cancelled (2/3) · 1s"}
	var b bytes.Buffer
	if err := timeline.WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if n := strings.Count(html, `class="witness"`); n != 2 {
		t.Errorf("%d witness rows, want 2", n)
	}
	page := headless.Check(t, "run.html", b.Bytes())
	if n := strings.Count(page.DOM, "<rect"); n != 7 {
		t.Errorf("the rendered chart has %d bars, want 7", n)
	}
}

// TestTagsDoNotOverlap: failed attempts a few ms apart keep their codes
// in their titles, but the chart draws a tag only where the lane's
// previous one has ended (they once ran together as "SESERVERSERVER"); a
// tag far enough along is drawn again.
func TestTagsDoNotOverlap(t *testing.T) {
	spans := []timeline.Span{
		{Lane: "attempts", FromMs: 0, ToMs: 1, Kind: "failed", Tag: "SERVER"},
		{Lane: "attempts", FromMs: 2, ToMs: 3, Kind: "failed", Tag: "SERVER"},
		{Lane: "world", FromMs: 2, ToMs: 2, Kind: "action", Tag: "cancel"},
		{Lane: "attempts", FromMs: 900, ToMs: 1000, Kind: "failed", Tag: "TIMEOUT"},
	}
	var tags []string
	for _, b := range timeline.Place(spans).Bars {
		tags = append(tags, b.Lane+":"+b.Tag)
	}
	want := []string{"attempts:SERVER", "attempts:", "world:cancel", "attempts:TIMEOUT"}
	if !slices.Equal(tags, want) {
		t.Errorf("tags drawn %q, want %q", tags, want)
	}
}
