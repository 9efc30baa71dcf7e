package budget

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Figures are the report's figures a bound can name.
var Figures = map[string]func(r Report) float64{
	"exhaustion":      func(r Report) float64 { return r.Exhaustion },
	"exhaustion_hi":   func(r Report) float64 { return r.ExhaustionHi },
	"p50_recovery_ms": func(r Report) float64 { return r.RecoveryP50 },
	"p90_recovery_ms": func(r Report) float64 { return r.RecoveryP90 },
	"p99_recovery_ms": func(r Report) float64 { return r.RecoveryP99 },
	"max_recovery_ms": func(r Report) float64 { return r.RecoveryMax },
	"amplification":   func(r Report) float64 { return r.Amplification },
	"violations":      func(r Report) float64 { return float64(len(r.Violations)) },
	"aborted":         func(r Report) float64 { return float64(r.Aborted) },
	// The two parts of exhaustion, as shares of the turns: after retries,
	// and at once (a code not retried, a Retry-After over the cap).
	"exhausted_share":      func(r Report) float64 { return ofTurns(r.Exhausted, r.Turns) },
	"failed_at_once_share": func(r Report) float64 { return ofTurns(r.FailedAtOnce, r.Turns) },
}

// Bound is a figure, a comparison and a value: "exhaustion<0.001".
type Bound struct {
	Text, Figure, Op string
	Value            float64
}

// decimal is a bound's number: digits, a point, an exponent.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// Longest operators first, so "<=" is not read as "<" and "=0.1".
var assertOps = []string{"<=", ">=", "<", ">"}

// ParseBound reads "FIGURE<VALUE" (or <=, >, >=).
func ParseBound(s string) (Bound, error) {
	for _, op := range assertOps {
		if i := strings.Index(s, op); i > 0 {
			figure, rest := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+len(op):])
			if _, ok := Figures[figure]; !ok {
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
			return Bound{Text: s, Figure: figure, Op: op, Value: bound}, nil
		}
	}
	return Bound{}, fmt.Errorf("%q: want FIGURE<VALUE (or <=, >, >=), e.g. exhaustion<0.001", s)
}

func figureNames() []string {
	var names []string
	for n := range Figures {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Holds reports whether the report keeps the bound, and the figure.
func (b Bound) Holds(r Report) (bool, float64) {
	v := Figures[b.Figure](r)
	switch b.Op {
	case "<":
		return v < b.Value, v
	case "<=":
		return v <= b.Value, v
	case ">":
		return v > b.Value, v
	}
	return v >= b.Value, v
}

func ofTurns(k, n int) float64 { return float64(k) / float64(max(n, 1)) }
