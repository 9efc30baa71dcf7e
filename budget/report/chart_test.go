package report

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/budget"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/sim"
)

// TestChartData: the pictures draw the report's own numbers: the tallest
// bar is the largest count at full height, and the exhaustion axis ends at
// the largest interval end.
func TestChartData(t *testing.T) {
	env := &budget.Environment{Failures: []budget.Failure{{Code: "SERVER", Status: 503, P: 0.3}}}
	r := mustRun(t, budget.Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: env}, 1, 2000)
	c := attemptsChart(r)
	if len(c.Bars) != len(r.Attempts)-1 || c.Bars[0].Count != r.Attempts[1] || c.Bars[0].H != chartH || c.Max != r.Attempts[1] {
		t.Errorf("attempts chart %+v for attempts %v", c, r.Attempts)
	}
	// Counts on a log scale: the tail's single turns stay visible (a
	// linear scale drew them under a pixel beside the first bar's 1,400).
	for _, b := range c.Bars {
		if want := chartH * math.Log1p(float64(b.Count)) / math.Log1p(float64(c.Max)); math.Abs(b.H-want) > 1e-9 || b.Y != chartTop+chartH-b.H {
			t.Errorf("bar %s: height %v at %v, want %v", b.Label, b.H, b.Y, want)
		}
		if b.Count > 0 && b.H < 10 {
			t.Errorf("bar %s of %d turns is %v px high", b.Label, b.Count, b.H)
		}
	}
	// p50, p90 and p99 are marked where their values fall on the axis.
	rcm := recoveryChart(r)
	top := r.RecoveryHistogram[len(r.RecoveryHistogram)-1].Hi
	for i, v := range []float64{r.RecoveryP50, r.RecoveryP90, r.RecoveryP99} {
		m := rcm.Marks[i]
		if want := chartLeft + chartW*v/top; math.Abs(m.X-want) > 1e-9 || m.Bound || !strings.HasPrefix(m.Label, []string{"p50 ", "p90 ", "p99 "}[i]) {
			t.Errorf("mark %+v, want at %v", m, want)
		}
	}
	// The x-axis runs from the first bar's low value to the last bar's
	// high one: its right end once showed the tallest bar's count.
	h := r.RecoveryHistogram
	rc := recoveryChart(r)
	if wantTo := fmt.Sprintf("%.0f ms", h[len(h)-1].Hi); rc.To != wantTo || rc.From != fmt.Sprintf("%.0f ms", h[0].Lo) || rc.To == fmt.Sprintf("%d ms", rc.Max) {
		t.Errorf("recovery axis from %q to %q, want %q to %q (the tallest bar holds %d)", rc.From, rc.To, fmt.Sprintf("%.0f ms", h[0].Lo), wantTo, rc.Max)
	}
	if last := len(r.Attempts) - 1; c.From != "1" || c.To != fmt.Sprint(last) {
		t.Errorf("attempts axis from %q to %q, want 1 to %d", c.From, c.To, last)
	}
	var page bytes.Buffer
	if err := WritePage(&page, Page{Reports: []Named{{Policy: "default", Report: r}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), ">"+rc.To+"</text>") || strings.Contains(page.String(), ">max ") {
		t.Errorf("the page's recovery axis does not end at %s", rc.To)
	}
	// Figures within a factor of 30: a linear axis up to the largest
	// interval end.
	one, two := mustRun(t, budget.Config{Recovery: sim.Recovery{RetryPolicy: normal(1)}, Env: env}, 1, 2000), mustRun(t, budget.Config{Recovery: sim.Recovery{RetryPolicy: normal(2)}, Env: env}, 1, 2000)
	s := newExhaustionScale([]Named{{Policy: "two retries", Report: two}, {Policy: "one retry", Report: one}}, nil)
	if s.Log || s.Top != one.ExhaustionHi || s.Hi[1] != chartW || s.Dot[0] >= s.Dot[1] {
		t.Errorf("exhaustion scale %+v", s)
	}
	// The default policy's interval is a hundred times lower than one
	// retry's: a log axis by decades, each interval drawn apart from 0
	// (on a linear one it was a dot on zero), the bound where its value is.
	b := mustBound(t, "exhaustion_hi<0.01")
	s = newExhaustionScale([]Named{{Policy: "default", Report: r}, {Policy: "one retry", Report: one}}, []budget.Bound{b})
	decade := func(v float64) float64 {
		lo := math.Floor(math.Log10(r.ExhaustionHi))
		return chartW * (math.Log10(v) - lo) / (math.Ceil(math.Log10(one.ExhaustionHi)) - lo)
	}
	if !s.Log || s.Hi[0] <= 0 || math.Abs(s.Hi[1]-decade(one.ExhaustionHi)) > 1e-9 || math.Abs(s.Bounds[0].X-decade(0.01)) > 1e-9 || s.Ticks[0].X != 0 {
		t.Errorf("log exhaustion scale %+v for intervals [%v, %v] and [%v, %v]", s, r.ExhaustionLo, r.ExhaustionHi, one.ExhaustionLo, one.ExhaustionHi)
	}
}
