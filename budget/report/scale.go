package report

import (
	"math"
	"strings"

	"github.com/turnsim/turnsim/budget"
)

// exhaustionScale places every policy's exhaustion and its interval on one
// axis, with the bounds on exhaustion, so side-by-side policies compare at
// a glance. When the figures span more than a factor of 30 the axis is
// logarithmic (a linear one drew a passing policy's interval as a dot on
// zero beside a failing one's), with 0 at its left end.
type exhaustionScale struct {
	Top         float64 // the axis' end: the largest interval end or bound
	Log         bool
	Dot, Lo, Hi []float64
	Bounds      []mark
	Ticks       []axisTick
}

func newExhaustionScale(reports []Named, bounds []budget.Bound) exhaustionScale {
	var s exhaustionScale
	var values []float64
	for _, n := range reports {
		values = append(values, n.Report.Exhaustion, n.Report.ExhaustionLo, n.Report.ExhaustionHi)
	}
	for _, b := range bounds {
		if strings.HasPrefix(string(b.Figure), "exhaustion") {
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
	s.Ticks = []axisTick{{Label: "0", X: 0}, {Label: share(s.Top), X: chartW}}
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
			s.Ticks = append(s.Ticks, axisTick{Label: label, X: chartW * (d - lo) / (hi - lo)})
		}
	}
	s.Ticks[0].Anchor, s.Ticks[len(s.Ticks)-1].Anchor = "start", "end"
	for _, n := range reports {
		s.Dot = append(s.Dot, x(n.Report.Exhaustion))
		s.Lo = append(s.Lo, x(n.Report.ExhaustionLo))
		s.Hi = append(s.Hi, x(n.Report.ExhaustionHi))
	}
	for _, b := range bounds {
		if strings.HasPrefix(string(b.Figure), "exhaustion") {
			s.Bounds = append(s.Bounds, mark{Label: b.String(), X: x(b.Value), Bound: true})
		}
	}
	return s
}
