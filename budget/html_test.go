package budget

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/internal/headless"
	"github.com/turnsim/turnsim/loop/retry"
)

// TestChartData: the pictures draw the report's own numbers: the
// recovery histogram holds every turn that had a failure, the tallest bar
// is the largest count at full height, and the exhaustion axis ends at the
// largest interval end.
func TestChartData(t *testing.T) {
	env := &Environment{Failures: []Failure{{Code: "SERVER", Status: 503, P: 0.3}}}
	r := Run(retry.DefaultPolicy(), env, 1, 2000)
	failing := r.Turns - r.Attempts[1]
	sum := 0
	for _, b := range r.RecoveryHistogram {
		sum += b.Count
	}
	if sum != failing || len(r.RecoveryHistogram) != 20 {
		t.Errorf("histogram of %d bins holds %d turns, want %d", len(r.RecoveryHistogram), sum, failing)
	}
	c := AttemptsChart(r)
	if len(c.Bars) != len(r.Attempts)-1 || c.Bars[0].Count != r.Attempts[1] || c.Bars[0].H != chartH || c.Max != r.Attempts[1] {
		t.Errorf("attempts chart %+v for attempts %v", c, r.Attempts)
	}
	for _, b := range c.Bars {
		if want := chartH * float64(b.Count) / float64(c.Max); b.H != want || b.Y != chartTop+chartH-want {
			t.Errorf("bar %s: height %v at %v, want %v", b.Label, b.H, b.Y, want)
		}
	}
	// The x-axis runs from the first bar's low value to the last bar's
	// high one: its right end once showed the tallest bar's count.
	h := r.RecoveryHistogram
	rc := RecoveryChart(r)
	if wantTo := fmt.Sprintf("%.0f ms", h[len(h)-1].Hi); rc.To != wantTo || rc.From != fmt.Sprintf("%.0f ms", h[0].Lo) || rc.To == fmt.Sprintf("%d ms", rc.Max) {
		t.Errorf("recovery axis from %q to %q, want %q to %q (the tallest bar holds %d)", rc.From, rc.To, fmt.Sprintf("%.0f ms", h[0].Lo), wantTo, rc.Max)
	}
	if last := len(r.Attempts) - 1; c.From != "1" || c.To != fmt.Sprint(last) {
		t.Errorf("attempts axis from %q to %q, want 1 to %d", c.From, c.To, last)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, []Named{{"default", r}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), ">"+rc.To+"</text>") || strings.Contains(page.String(), ">max ") {
		t.Errorf("the page's recovery axis does not end at %s", rc.To)
	}
	tight := Run(normal(1), env, 1, 2000)
	s := exhaustionScale([]Named{{"default", r}, {"one retry", tight}})
	if s.Top != tight.ExhaustionHi || s.Hi[1] != chartW || s.Dot[0] >= s.Dot[1] {
		t.Errorf("exhaustion scale %+v", s)
	}
}

// TestBudgetPageRenders: the page has a section per policy, no script and
// no network reference, and loads in headless Chromium without errors.
func TestBudgetPageRenders(t *testing.T) {
	env := &Environment{Failures: []Failure{{Code: "SERVER", Status: 503, P: 0.2}}}
	reports := []Named{{"default", Run(retry.DefaultPolicy(), env, 1, 500)}, {"<one retry>", Run(normal(1), env, 1, 500)}}
	var b bytes.Buffer
	if err := WriteHTML(&b, reports); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if strings.Count(html, `class="policy"`) != 2 || !strings.Contains(html, "&lt;one retry&gt;") {
		t.Errorf("want two escaped policy sections")
	}
	page := headless.Check(t, "budget.html", b.Bytes())
	if n := strings.Count(page.DOM, "<svg"); n != 6 {
		t.Errorf("the rendered page has %d charts, want 6 (3 per policy)", n)
	}
}
