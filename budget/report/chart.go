package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/turnsim/turnsim/budget"
)

// bar is one bar of a chart, as drawn.
type bar struct {
	Label      string
	Count      int
	X, Y, W, H float64
}

// mark is a vertical line on a chart at a value: a percentile, or a bound
// (Bound set) the figure must keep.
type mark struct {
	Label string
	X     float64
	// Row staggers labels that would overlap; Bound marks a threshold;
	// Anchor keeps a label near an end inside the chart.
	Row    int
	Bound  bool
	Anchor string
}

// tick is a labelled level of the count axis.
type tick struct {
	Label string
	Y     float64
}

// axisTick is a labelled place on an axis; Anchor keeps a label at an
// end inside the chart ("" for the middle).
type axisTick struct {
	Label  string
	X      float64
	Anchor string
}

// chart is a bar chart's data and geometry, before any SVG: tests check it.
type chart struct {
	Title         string
	Width, Height float64
	Bars          []bar
	// Max is the tallest bar's count; From and To are the x-axis's ends,
	// the first bar's low value and the last bar's high one (the right
	// end once showed Max, read as the largest value).
	Max      int
	From, To string
	// Counts are on a log scale (log(1+n)): a bar of one turn in the tail
	// stays visible beside thousands. Ticks label the count axis.
	Ticks []tick
	Marks []mark
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
func newChart(title string, labels []string, counts []int) chart {
	c := chart{Title: title, Width: chartLeft + chartW, Height: chartTop + chartH + chartPad}
	for _, n := range counts {
		c.Max = max(c.Max, n)
	}
	if len(counts) == 0 {
		return c
	}
	for p := 1; p <= c.Max; p *= 10 {
		c.Ticks = append(c.Ticks, tick{Label: fmt.Sprint(p), Y: chartTop + chartH - logHeight(p, c.Max)})
	}
	w := chartW / float64(len(counts))
	for i, n := range counts {
		h := logHeight(n, c.Max)
		c.Bars = append(c.Bars, bar{Label: labels[i], Count: n, X: chartLeft + float64(i)*w, Y: chartTop + chartH - h, W: w * 0.9, H: h})
	}
	return c
}

// addMarks puts marks on a chart whose x-axis runs from 0 to top:
// percentiles' labels on three rows, staggered where they would run into
// each other, bounds' labels on a row of their own; a label near an end is
// anchored to stay inside the chart. A bound past the end is noted.
func (c *chart) addMarks(top float64, marks []mark, values []float64) {
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

// recoveryChart is the histogram of recovery times on a value axis, with
// p50, p90 and p99 marked, and the bounds on recovery figures drawn (the
// axis runs on to a bound within reach, so the gap shows).
func recoveryChart(r budget.Report, bounds ...budget.Bound) chart {
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
	marks := []mark{{Label: "p50 " + round(r.RecoveryP50)}, {Label: "p90 " + round(r.RecoveryP90)}, {Label: "p99 " + round(r.RecoveryP99)}}
	values := []float64{r.RecoveryP50, r.RecoveryP90, r.RecoveryP99}
	axis := top
	for _, b := range bounds {
		if strings.HasSuffix(string(b.Figure), "_recovery_ms") {
			marks = append(marks, mark{Label: b.String(), Bound: true})
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
	c.addMarks(axis, marks, values)
	return c
}

// attemptsChart is the distribution of attempts per turn.
func attemptsChart(r budget.Report) chart {
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
