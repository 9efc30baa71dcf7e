package budget

import (
	"math"
	"testing"
)

// TestParseBound: a bound is a known figure, an operator and a finite
// number; NaN was accepted and then failed whatever was measured, +Inf
// held whatever was.
func TestParseBound(t *testing.T) {
	tests := []struct {
		why, text string
		want      Bound // its text is the input's
		err       string
	}{
		{why: "the common case", text: "exhaustion<0.001", want: Bound{Figure: "exhaustion", Op: "<", Value: 0.001}},
		{why: "<= is not read as < and =0.1", text: "p99_recovery_ms<=20000", want: Bound{Figure: "p99_recovery_ms", Op: "<=", Value: 20000}},
		{why: "NaN never holds", text: "exhaustion<NaN", err: `"exhaustion<NaN": the bound must be a finite number, got NaN`},
		{why: "+Inf always holds", text: "exhaustion<Inf", err: `"exhaustion<Inf": the bound must be a finite number, got Inf`},
		{why: "-Inf never holds", text: "violations>-inf", err: `"violations>-inf": the bound must be a finite number, got -inf`},
		{why: "past a float64", text: "exhaustion<1e999", err: `"exhaustion<1e999": "1e999" is not a number`},
		{why: "Go's digit separators, which ParseFloat took", text: "exhaustion<1_0", err: `"exhaustion<1_0": "1_0" is not a number (a decimal, as 0.001 or 1e-3)`},
		{why: "a hexadecimal float, which ParseFloat took", text: "exhaustion<0x1p-3", err: `"exhaustion<0x1p-3": "0x1p-3" is not a number (a decimal, as 0.001 or 1e-3)`},
		{why: "so small it read as 0", text: "exhaustion<1e-400", err: `"exhaustion<1e-400": "1e-400" is too small to be told from 0`},
		{why: "0 itself", text: "violations<=0", want: Bound{Figure: "violations", Op: "<=", Value: 0}},
		{why: "an exponent", text: "exhaustion<1e-3", want: Bound{Figure: "exhaustion", Op: "<", Value: 0.001}},
		{why: "an unknown figure", text: "exhaust<1", err: `"exhaust<1": unknown figure "exhaust" (known: aborted, amplification, exhausted_share, exhaustion, exhaustion_hi, failed_at_once_share, max_recovery_ms, p50_recovery_ms, p90_recovery_ms, p99_recovery_ms, violations)`},
	}
	for _, tt := range tests {
		b, err := ParseBound(tt.text)
		if tt.err != "" {
			if errText(err) != tt.err {
				t.Errorf("%s: %q gave %v, want %q", tt.why, tt.text, err, tt.err)
			}
			continue
		}
		tt.want.text = tt.text
		if err != nil || b != tt.want || b.String() != tt.text {
			t.Errorf("%s: %q gave %+v, %v; want %+v", tt.why, tt.text, b, err, tt.want)
		}
	}
}

// TestBoundsBuiltInGo: a bound built in Go reads as ParseBound reads its
// text, and holds as it does.
func TestBoundsBuiltInGo(t *testing.T) {
	r := Report{Turns: 1000, Exhausted: 3, FailedAtOnce: 1, Exhaustion: 0.004, ExhaustionHi: 0.01, RecoveryP99: 20000, Amplification: 1}
	for _, tt := range []struct {
		b     Bound
		text  string
		holds bool
	}{
		{ExhaustionHi.Below(0.001), "exhaustion_hi<0.001", false},
		{Exhaustion.AtMost(0.004), "exhaustion<=0.004", true},
		{P99RecoveryMs.Below(20000), "p99_recovery_ms<20000", false},
		{P99RecoveryMs.AtMost(2e4), "p99_recovery_ms<=20000", true},
		{Violations.Below(1), "violations<1", true},
		{Amplification.Above(1), "amplification>1", false},
		{ExhaustedShare.AtLeast(0.003), "exhausted_share>=0.003", true},
		{FailedAtOnceShare.Below(1e-7), "failed_at_once_share<1e-07", false},
	} {
		parsed, err := ParseBound(tt.text)
		if err != nil || tt.b.String() != tt.text || parsed.Figure != tt.b.Figure || parsed.Op != tt.b.Op || parsed.Value != tt.b.Value {
			t.Errorf("%+v reads %q; ParseBound of it gives %+v, %v", tt.b, tt.b, parsed, err)
		}
		if ok, _ := tt.b.Holds(r); ok != tt.holds {
			t.Errorf("%s holds %v, want %v", tt.b, ok, tt.holds)
		}
		if err := tt.b.check(); err != nil {
			t.Errorf("%s: %v", tt.b, err)
		}
	}
	// What no text could say is no bound.
	for _, tt := range []struct {
		b   Bound
		err string
	}{
		{Figure("exhaust").Below(1), `"exhaust<1": unknown figure "exhaust" (known: aborted, amplification, exhausted_share, exhaustion, exhaustion_hi, failed_at_once_share, max_recovery_ms, p50_recovery_ms, p90_recovery_ms, p99_recovery_ms, violations)`},
		{Bound{Figure: Exhaustion, Op: "=", Value: 0}, `"exhaustion=0": unknown comparison "=" (want <, <=, > or >=)`},
		{Exhaustion.Below(math.NaN()), `"exhaustion<NaN": the bound must be a finite number, got NaN`},
		{Violations.Above(math.Inf(-1)), `"violations>-Inf": the bound must be a finite number, got -Inf`},
	} {
		if got := errText(tt.b.check()); got != tt.err {
			t.Errorf("%+v: %s, want %s", tt.b, got, tt.err)
		}
	}
	// A figure or comparison the package has not is never kept.
	for _, b := range []Bound{Figure("exhaust").AtLeast(0), {Figure: Exhaustion, Op: "=", Value: 0.004}} {
		if ok, _ := b.Holds(r); ok {
			t.Errorf("%+v holds", b)
		}
	}
}

func mustBound(t *testing.T, text string) Bound {
	b, err := ParseBound(text)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
