package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/budget"
)

// budgetFigures are the report's figures an --assert can bound, by name.
var budgetFigures = map[string]func(r budget.Report) float64{
	"exhaustion":      func(r budget.Report) float64 { return r.Exhaustion },
	"exhaustion_hi":   func(r budget.Report) float64 { return r.ExhaustionHi },
	"p50_recovery_ms": func(r budget.Report) float64 { return r.RecoveryP50 },
	"p90_recovery_ms": func(r budget.Report) float64 { return r.RecoveryP90 },
	"p99_recovery_ms": func(r budget.Report) float64 { return r.RecoveryP99 },
	"max_recovery_ms": func(r budget.Report) float64 { return r.RecoveryMax },
	"amplification":   func(r budget.Report) float64 { return r.Amplification },
	"violations":      func(r budget.Report) float64 { return float64(len(r.Violations)) },
	"aborted":         func(r budget.Report) float64 { return float64(r.Aborted) },
}

// budgetAssert is one --assert: a figure, a comparison, a bound.
type budgetAssert struct {
	text, figure, op string
	bound            float64
}

// Longest operators first, so "<=" is not read as "<" and "=0.1".
var assertOps = []string{"<=", ">=", "<", ">"}

func parseBudgetAssert(s string) (budgetAssert, error) {
	for _, op := range assertOps {
		if i := strings.Index(s, op); i > 0 {
			figure, rest := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+len(op):])
			if _, ok := budgetFigures[figure]; !ok {
				return budgetAssert{}, fmt.Errorf("--assert %q: unknown figure %q (known: %s)", s, figure, strings.Join(figureNames(), ", "))
			}
			bound, err := strconv.ParseFloat(rest, 64)
			if err != nil {
				return budgetAssert{}, fmt.Errorf("--assert %q: %q is not a number", s, rest)
			}
			return budgetAssert{text: s, figure: figure, op: op, bound: bound}, nil
		}
	}
	return budgetAssert{}, fmt.Errorf("--assert %q: want FIGURE<BOUND (or <=, >, >=), e.g. exhaustion<0.001", s)
}

func figureNames() []string {
	var names []string
	for n := range budgetFigures {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// holds reports whether the report keeps the bound, and the figure.
func (a budgetAssert) holds(r budget.Report) (bool, float64) {
	v := budgetFigures[a.figure](r)
	switch a.op {
	case "<":
		return v < a.bound, v
	case "<=":
		return v <= a.bound, v
	case ">":
		return v > a.bound, v
	}
	return v >= a.bound, v
}
