package budget

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Figure is a figure of the report that a bound holds to a value, named as
// simrun budget's --assert names it.
type Figure string

// The figures a bound can name.
const (
	Exhaustion   Figure = "exhaustion"    // Report.Exhaustion
	ExhaustionHi Figure = "exhaustion_hi" // Report.ExhaustionHi, the upper end of its 95% interval
	// The two parts of exhaustion, as shares of the turns: after retries
	// (Report.Exhausted), and at once (Report.FailedAtOnce: a code not
	// retried, a Retry-After over the cap).
	ExhaustedShare    Figure = "exhausted_share"
	FailedAtOnceShare Figure = "failed_at_once_share"
	P50RecoveryMs     Figure = "p50_recovery_ms"
	P90RecoveryMs     Figure = "p90_recovery_ms"
	P99RecoveryMs     Figure = "p99_recovery_ms"
	MaxRecoveryMs     Figure = "max_recovery_ms"
	Amplification     Figure = "amplification"
	Violations        Figure = "violations" // turns the oracle failed
	Aborted           Figure = "aborted"    // turns aborted
)

// figures are each figure's value in a report.
var figures = map[Figure]func(r Report) float64{
	Exhaustion:        func(r Report) float64 { return r.Exhaustion },
	ExhaustionHi:      func(r Report) float64 { return r.ExhaustionHi },
	P50RecoveryMs:     func(r Report) float64 { return r.RecoveryP50 },
	P90RecoveryMs:     func(r Report) float64 { return r.RecoveryP90 },
	P99RecoveryMs:     func(r Report) float64 { return r.RecoveryP99 },
	MaxRecoveryMs:     func(r Report) float64 { return r.RecoveryMax },
	Amplification:     func(r Report) float64 { return r.Amplification },
	Violations:        func(r Report) float64 { return float64(len(r.Violations)) },
	Aborted:           func(r Report) float64 { return float64(r.Aborted) },
	ExhaustedShare:    func(r Report) float64 { return ofTurns(r.Exhausted, r.Turns) },
	FailedAtOnceShare: func(r Report) float64 { return ofTurns(r.FailedAtOnce, r.Turns) },
}

// Bound is a figure, a comparison and a value: ExhaustionHi.Below(0.001),
// or ParseBound("exhaustion_hi<0.001") for a flag.
type Bound struct {
	Figure Figure
	Op     string // <, <=, > or >=
	Value  float64
	text   string // as written, for ParseBound's
}

// Below is the bound f < v.
func (f Figure) Below(v float64) Bound { return Bound{Figure: f, Op: "<", Value: v} }

// AtMost is the bound f <= v.
func (f Figure) AtMost(v float64) Bound { return Bound{Figure: f, Op: "<=", Value: v} }

// Above is the bound f > v.
func (f Figure) Above(v float64) Bound { return Bound{Figure: f, Op: ">", Value: v} }

// AtLeast is the bound f >= v.
func (f Figure) AtLeast(v float64) Bound { return Bound{Figure: f, Op: ">=", Value: v} }

// String is the bound as ParseBound reads it: its text as written, or
// "exhaustion_hi<0.001" for one built in Go.
func (b Bound) String() string {
	if b.text != "" {
		return b.text
	}
	return string(b.Figure) + b.Op + strconv.FormatFloat(b.Value, 'g', -1, 64)
}

// decimal is a bound's number: digits, a point, an exponent.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// Longest operators first, so "<=" is not read as "<" and "=0.1".
var assertOps = []string{"<=", ">=", "<", ">"}

// ParseBound reads "FIGURE<VALUE" (or <=, >, >=).
func ParseBound(s string) (Bound, error) {
	for _, op := range assertOps {
		if i := strings.Index(s, op); i > 0 {
			figure, rest := Figure(strings.TrimSpace(s[:i])), strings.TrimSpace(s[i+len(op):])
			if _, ok := figures[figure]; !ok {
				return Bound{}, fmt.Errorf("%q: unknown figure %q (known: %s)", s, figure, strings.Join(figureNames(), ", "))
			}
			bound, err := strconv.ParseFloat(rest, 64)
			if err != nil {
				return Bound{}, fmt.Errorf("%q: %q is not a number", s, rest)
			}
			// A figure is never above NaN nor below it, and always below
			// +Inf: such a bound would fail, or hold, whatever was measured.
			if math.IsNaN(bound) || math.IsInf(bound, 0) {
				return Bound{}, fmt.Errorf("%q: the bound must be a finite number, got %s", s, rest)
			}
			// A decimal number, as a bound is written: ParseFloat alone took
			// 1_0 and 0x1p-3, and read 1e-400 as 0.
			if !decimal.MatchString(rest) {
				return Bound{}, fmt.Errorf("%q: %q is not a number (a decimal, as 0.001 or 1e-3)", s, rest)
			}
			if mantissa, _, _ := strings.Cut(strings.ToLower(rest), "e"); bound == 0 && strings.Trim(mantissa, "+-0.") != "" {
				return Bound{}, fmt.Errorf("%q: %q is too small to be told from 0", s, rest)
			}
			return Bound{Figure: figure, Op: op, Value: bound, text: s}, nil
		}
	}
	return Bound{}, fmt.Errorf("%q: want FIGURE<VALUE (or <=, >, >=), e.g. exhaustion<0.001", s)
}

// check says what is wrong with a bound built in Go, as ParseBound says
// it of a text.
func (b Bound) check() error {
	switch {
	case figures[b.Figure] == nil:
		return fmt.Errorf("%q: unknown figure %q (known: %s)", b, b.Figure, strings.Join(figureNames(), ", "))
	case !slices.Contains(assertOps, b.Op):
		return fmt.Errorf("%q: unknown comparison %q (want <, <=, > or >=)", b, b.Op)
	case math.IsNaN(b.Value) || math.IsInf(b.Value, 0):
		return fmt.Errorf("%q: the bound must be a finite number, got %v", b, b.Value)
	}
	return nil
}

func figureNames() []string {
	var names []string
	for n := range figures {
		names = append(names, string(n))
	}
	slices.Sort(names)
	return names
}

// Holds reports whether the report keeps the bound, and the figure. A
// bound of a figure or comparison that is none of the package's is not
// kept (its figure NaN when unknown).
func (b Bound) Holds(r Report) (bool, float64) {
	figure := figures[b.Figure]
	if figure == nil {
		return false, math.NaN()
	}
	v := figure(r)
	switch b.Op {
	case "<":
		return v < b.Value, v
	case "<=":
		return v <= b.Value, v
	case ">":
		return v > b.Value, v
	case ">=":
		return v >= b.Value, v
	}
	return false, v
}

func ofTurns(k, n int) float64 { return float64(k) / float64(max(n, 1)) }
