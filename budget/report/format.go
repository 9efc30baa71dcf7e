package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/turnsim/turnsim/budget"
)

// Clock writes a time on the horizon as a clock reading from its start,
// hh:mm:ss, with the day after the first: "03:12:05", "day 2 00:00:10".
func Clock(ms float64) string {
	s := int64(math.Floor(ms / 1e3))
	sign := ""
	if s < 0 {
		sign, s = "-", -s
	}
	day, s := s/86400, s%86400
	hms := fmt.Sprintf("%s%02d:%02d:%02d", sign, s/3600, s/60%60, s%60)
	if day > 0 {
		return fmt.Sprintf("day %d %s", day+1, hms)
	}
	return hms
}

// Span writes a length of virtual time for a reader: 30 s, 2.5 min, 24 h.
func Span(ms float64) string {
	switch {
	case ms < 60e3:
		return fmt.Sprintf("%.3g s", ms/1e3)
	case ms < 3600e3:
		return fmt.Sprintf("%.3g min", ms/60e3)
	}
	return fmt.Sprintf("%.3g h", ms/3600e3)
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

// figureText writes a bound's figure to what it means: times in whole
// ms, shares and ratios with three significant digits.
func figureText(figure budget.Figure, v float64) string {
	if strings.HasSuffix(string(figure), "_ms") {
		return round(v) + " ms"
	}
	return share(v)
}
