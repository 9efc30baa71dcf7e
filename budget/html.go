package budget

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Named is a report with the policy's name and configuration, for the page.
type Named struct {
	Policy string
	Report Report
	// Config is what was measured (its Env is Page's); the zero Config
	// leaves the policy's parameters off the page.
	Config Config
}

// Page is everything the page shows: the policies' reports side by side,
// the environment they met, and the bounds they were held to.
type Page struct {
	Reports []Named
	Env     *Environment
	Bounds  []Bound
	// Seed is the first turn's seed (or the horizon's), when known.
	Seed *uint64
}

// Bar is one bar of a chart, as drawn.
type Bar struct {
	Label      string
	Count      int
	X, Y, W, H float64
}

// Mark is a vertical line on a chart at a value: a percentile, or a bound
// (Bound set) the figure must keep.
type Mark struct {
	Label string
	X     float64
	// Row staggers labels that would overlap; Bound marks a threshold;
	// Anchor keeps a label near an end inside the chart.
	Row    int
	Bound  bool
	Anchor string
}

// Tick is a labelled level of the count axis.
type Tick struct {
	Label string
	Y     float64
}

// Chart is a bar chart's data and geometry, before any SVG: tests check it.
type Chart struct {
	Title         string
	Width, Height float64
	Bars          []Bar
	// Max is the tallest bar's count; From and To are the x-axis's ends,
	// the first bar's low value and the last bar's high one (the right
	// end once showed Max, read as the largest value).
	Max      int
	From, To string
	// Counts are on a log scale (log(1+n)): a bar of one turn in the tail
	// stays visible beside thousands. Ticks label the count axis.
	Ticks []Tick
	Marks []Mark
	// Beyond notes bounds past the axis's end.
	Beyond []string
	// Labelled draws each bar's label under it (instead of the ends').
	Labelled bool
}

// chartTop is the room above the bars for marks' labels; chartLeft for
// the count axis' labels.
const chartW, chartH, chartPad, chartTop, chartLeft = 360.0, 150.0, 24.0, 52.0, 46.0

// logHeight is a count's bar height on the log scale up to top.
func logHeight(n, top int) float64 {
	if top <= 0 || n <= 0 {
		return 0
	}
	return chartH * math.Log1p(float64(n)) / math.Log1p(float64(top))
}

// newChart lays out bars side by side, heights on a log scale of counts.
func newChart(title string, labels []string, counts []int) Chart {
	c := Chart{Title: title, Width: chartLeft + chartW, Height: chartTop + chartH + chartPad}
	for _, n := range counts {
		c.Max = max(c.Max, n)
	}
	if len(counts) == 0 {
		return c
	}
	for p := 1; p <= c.Max; p *= 10 {
		c.Ticks = append(c.Ticks, Tick{Label: fmt.Sprint(p), Y: chartTop + chartH - logHeight(p, c.Max)})
	}
	w := chartW / float64(len(counts))
	for i, n := range counts {
		h := logHeight(n, c.Max)
		c.Bars = append(c.Bars, Bar{Label: labels[i], Count: n, X: chartLeft + float64(i)*w, Y: chartTop + chartH - h, W: w * 0.9, H: h})
	}
	return c
}

// mark puts marks on a chart whose x-axis runs from 0 to top:
// percentiles' labels on three rows, staggered where they would run into
// each other, bounds' labels on a row of their own; a label near an end is
// anchored to stay inside the chart. A bound past the end is noted.
func (c *Chart) mark(top float64, marks []Mark, values []float64) {
	lastX := map[int]float64{}
	for i, m := range marks {
		v := values[i]
		if top <= 0 || v > top {
			if m.Bound {
				c.Beyond = append(c.Beyond, m.Label+" (past the axis' end)")
			}
			continue
		}
		m.X = chartLeft + chartW*v/top
		switch {
		case m.Bound:
			m.Row = 3
		default:
			for m.Row = 0; m.Row < 2; m.Row++ {
				if x, ok := lastX[m.Row]; !ok || m.X-x > 70 {
					break
				}
			}
			lastX[m.Row] = m.X
		}
		m.Anchor = "middle"
		switch {
		case m.X > chartLeft+chartW-60:
			m.Anchor = "end"
		case m.X < chartLeft+40:
			m.Anchor = "start"
		}
		c.Marks = append(c.Marks, m)
	}
}

// boundReach is how far past the largest value the recovery axis runs to
// show a bound: further than that, the bars would be squeezed to a
// sliver, and the bound is noted instead.
const boundReach = 4

// RecoveryChart is the histogram of recovery times on a value axis, with
// p50, p90 and p99 marked, and the bounds on recovery figures drawn (the
// axis runs on to a bound within reach, so the gap shows).
func RecoveryChart(r Report, bounds ...Bound) Chart {
	var labels []string
	var counts []int
	for _, b := range r.RecoveryHistogram {
		labels = append(labels, fmt.Sprintf("%.0f–%.0f ms", b.Lo, b.Hi))
		counts = append(counts, b.Count)
	}
	c := newChart("recovery time (turns with a failure), count on a log scale", labels, counts)
	h := r.RecoveryHistogram
	if len(h) == 0 {
		return c
	}
	top := h[len(h)-1].Hi
	marks := []Mark{{Label: "p50 " + round(r.RecoveryP50)}, {Label: "p90 " + round(r.RecoveryP90)}, {Label: "p99 " + round(r.RecoveryP99)}}
	values := []float64{r.RecoveryP50, r.RecoveryP90, r.RecoveryP99}
	axis := top
	for _, b := range bounds {
		if strings.HasSuffix(b.Figure, "_recovery_ms") {
			marks = append(marks, Mark{Label: b.Text, Bound: true})
			values = append(values, b.Value)
			if b.Value > axis && b.Value <= boundReach*top {
				axis = b.Value * 1.05
			}
		}
	}
	if axis > 0 {
		for i, bin := range h { // bars where their values are
			c.Bars[i].X = chartLeft + chartW*bin.Lo/axis
			c.Bars[i].W = max(chartW*(bin.Hi-bin.Lo)/axis*0.9, 1)
		}
	}
	c.From, c.To = fmt.Sprintf("%.0f ms", h[0].Lo), fmt.Sprintf("%.0f ms", axis)
	c.mark(axis, marks, values)
	return c
}

// AttemptsChart is the distribution of attempts per turn.
func AttemptsChart(r Report) Chart {
	var labels []string
	var counts []int
	for n, c := range r.Attempts {
		if n == 0 {
			continue
		}
		labels = append(labels, fmt.Sprintf("%d", n))
		counts = append(counts, c)
	}
	c := newChart("attempts per turn, count on a log scale", labels, counts)
	if len(labels) > 0 {
		c.From, c.To = labels[0], labels[len(labels)-1]
	}
	c.Labelled = len(labels) <= 16 // a label under each bar, while they fit
	return c
}

// ExhaustionScale places every policy's exhaustion and its interval on one
// axis, with the bounds on exhaustion, so side-by-side policies compare at
// a glance. When the figures span more than a factor of 30 the axis is
// logarithmic (a linear one drew a passing policy's interval as a dot on
// zero beside a failing one's), with 0 at its left end.
type ExhaustionScale struct {
	Top         float64 // the axis' end: the largest interval end or bound
	Log         bool
	Dot, Lo, Hi []float64
	Bounds      []Mark
	Ticks       []AxisTick
}

func exhaustionScale(reports []Named, bounds []Bound) ExhaustionScale {
	var s ExhaustionScale
	var values []float64
	for _, n := range reports {
		values = append(values, n.Report.Exhaustion, n.Report.ExhaustionLo, n.Report.ExhaustionHi)
	}
	for _, b := range bounds {
		if strings.HasPrefix(b.Figure, "exhaustion") {
			values = append(values, b.Value)
		}
	}
	least := math.Inf(1)
	for _, v := range values {
		s.Top = max(s.Top, v)
		if v > 1e-12 {
			least = min(least, v)
		}
	}
	if s.Top == 0 {
		s.Top = 1
	}
	x := func(v float64) float64 { return chartW * v / s.Top }
	s.Ticks = []AxisTick{{Label: "0", X: 0}, {Label: share(s.Top), X: chartW}}
	if s.Top/least > 30 {
		s.Log = true
		lo, hi := math.Floor(math.Log10(least)), math.Ceil(math.Log10(s.Top))
		s.Top = math.Pow(10, hi)
		x = func(v float64) float64 {
			if v <= math.Pow(10, lo) {
				return 0
			}
			return chartW * (math.Log10(v) - lo) / (hi - lo)
		}
		s.Ticks = nil
		for d := lo; d <= hi; d++ {
			label := share(math.Pow(10, d))
			if d == lo {
				label = "≤ " + label
			}
			s.Ticks = append(s.Ticks, AxisTick{Label: label, X: chartW * (d - lo) / (hi - lo)})
		}
	}
	s.Ticks[0].Anchor, s.Ticks[len(s.Ticks)-1].Anchor = "start", "end"
	for _, n := range reports {
		s.Dot = append(s.Dot, x(n.Report.Exhaustion))
		s.Lo = append(s.Lo, x(n.Report.ExhaustionLo))
		s.Hi = append(s.Hi, x(n.Report.ExhaustionHi))
	}
	for _, b := range bounds {
		if strings.HasPrefix(b.Figure, "exhaustion") {
			s.Bounds = append(s.Bounds, Mark{Label: b.Text, X: x(b.Value), Bound: true})
		}
	}
	return s
}

// round writes a figure to what it means: whole ms, three significant
// digits below ten.
func round(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "∞"
	case v == 0:
		return "0"
	case math.Abs(v) < 10:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3g", v), "0"), ".")
	}
	return fmt.Sprintf("%.0f", v)
}

// share writes a probability with three significant digits.
func share(v float64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%.3g", v)
}

// verdict is a bound's outcome for one policy.
type verdict struct {
	Bound Bound
	Value float64
	Holds bool
}

// verdicts are every bound's outcome for each policy, in the page's order.
func (p Page) verdicts() [][]verdict {
	out := make([][]verdict, len(p.Reports))
	for i, n := range p.Reports {
		for _, b := range p.Bounds {
			ok, v := b.Holds(n.Report)
			out[i] = append(out[i], verdict{Bound: b, Value: v, Holds: ok})
		}
	}
	return out
}

// figureText writes a bound's figure to what it means: times in whole
// ms, shares and ratios with three significant digits.
func figureText(figure string, v float64) string {
	if strings.HasSuffix(figure, "_ms") {
		return round(v) + " ms"
	}
	return share(v)
}

// whyLine says in a line why a policy's turns failed: how many, how many
// of them an incident hit, and the commonest reason.
func whyLine(r Report) string {
	failed := r.Turns - r.Completed
	if failed == 0 {
		return "no turn failed"
	}
	line := fmt.Sprintf("%d turns failed", failed)
	if tl := r.Timeline; tl != nil {
		line += fmt.Sprintf(", %d of them hit by an incident", tl.FailedHit)
	}
	if len(r.Failures) > 0 {
		f := r.Failures[0]
		line += fmt.Sprintf("; commonest: %d × %s: %s", f.Turns, f.Code, f.Why)
	}
	return line
}

// WriteHTML writes the page of reports without an environment or bounds.
func WriteHTML(w io.Writer, reports []Named) error { return WritePage(w, Page{Reports: reports}) }

// WritePage writes one self-contained page (no scripts, no network): the
// verdicts, the environment, every policy's parameters and figures side by
// side, its exhaustion interval on an axis shared by all of them with the
// bounds drawn, histograms of recovery time and attempts per turn on log
// count axes with percentiles and bounds marked, and, over a horizon, the
// incidents on a timeline above each policy's failed turns.
func WritePage(w io.Writer, p Page) error {
	if len(p.Reports) == 0 {
		return fmt.Errorf("budget page: no report to draw")
	}
	data := pageData{Page: p, Scale: exhaustionScale(p.Reports, p.Bounds), Width: chartW, Verdicts: p.verdicts()}
	for _, n := range p.Reports {
		data.Recovery = append(data.Recovery, RecoveryChart(n.Report, p.Bounds...))
		data.Attempts = append(data.Attempts, AttemptsChart(n.Report))
		data.Params = append(data.Params, policyParams(n.Config))
	}
	data.Env = envParams(p.Env)
	data.Timeline = newTimelineChart(p.Reports)
	for i := range data.Verdicts {
		var broken []string
		for _, v := range data.Verdicts[i] {
			if !v.Holds {
				broken = append(broken, fmt.Sprintf("%s (%s = %s)", v.Bound.Text, v.Bound.Figure, figureText(v.Bound.Figure, v.Value)))
			}
		}
		if n := len(p.Reports[i].Report.Violations); n > 0 {
			broken = append(broken, fmt.Sprintf("the oracle on %d turns", n))
		}
		data.Pass = append(data.Pass, len(broken) == 0)
		data.Broken = append(data.Broken, strings.Join(broken, ", "))
		data.Why = append(data.Why, whyLine(p.Reports[i].Report))
	}
	return page.Execute(w, data)
}

type pageData struct {
	Page
	Scale              ExhaustionScale
	Recovery, Attempts []Chart
	Width              float64
	Verdicts           [][]verdict
	Pass               []bool
	Broken             []string
	Why                []string
	Params             [][]setting
	Env                []setting
	Timeline           *timelineChart
}
