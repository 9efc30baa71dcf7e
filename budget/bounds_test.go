package budget

import "testing"

// TestParseBound: a bound is a known figure, an operator and a finite
// number; NaN was accepted and then failed whatever was measured, +Inf
// held whatever was.
func TestParseBound(t *testing.T) {
	tests := []struct {
		why, text string
		want      Bound // Text is the input's
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
		tt.want.Text = tt.text
		if err != nil || b != tt.want {
			t.Errorf("%s: %q gave %+v, %v; want %+v", tt.why, tt.text, b, err, tt.want)
		}
	}
}
