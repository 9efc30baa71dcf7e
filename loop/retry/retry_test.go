package retry_test

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/loop/session"
)

func policy(initial, max, jitter float64) *loop.RetryPolicy {
	return &loop.RetryPolicy{Mode: loop.ModeNormal, MaxRetries: 5, InitialDelayMs: initial, MaxDelayMs: max, JitterRatio: jitter}
}

// TestDelay: the figures of DSH's tests (docs/dsh.md#retry-delay).
func TestDelay(t *testing.T) {
	tests := []struct {
		why  string
		p    *loop.RetryPolicy
		n    int
		r    float64
		want float64
	}{
		{"no jitter takes the initial delay", policy(500, 10000, 0), 1, 0.5, 500},
		{"jitter 0.1 with r=0 shrinks by 10%", policy(500, 10000, 0.1), 1, 0, 450},
		{"jitter 0.1 with r=1 on the second retry", policy(500, 10000, 0.1), 2, 1, 1100},
		{"jitter 1 with r=0 gives zero", policy(1, 1, 1), 1, 0, 0},
		{"always 1/4/0.1, r=1, retry 1", policy(1, 4, 0.1), 1, 1, 1.1},
		{"always 1/4/0.1, r=1, retry 2", policy(1, 4, 0.1), 2, 1, 2.2},
		{"always 1/4/0.1, r=1, retry 3 hits the cap", policy(1, 4, 0.1), 3, 1, 4},
		{"always 2/4/0.5, r=1 (Retry-After over the cap falls back here)", policy(2, 4, 0.5), 1, 1, 3},
		{"2^1024 overflows to +Inf and is clamped", policy(500, 10000, 0), 1_000_000, 0.5, 10000},
	}
	for _, tt := range tests {
		if got := retry.Delay(tt.p, tt.n, tt.r); got != tt.want || math.IsNaN(got) {
			t.Errorf("%s: Delay = %v, want %v", tt.why, got, tt.want)
		}
	}
}

// TestKey: the examples of DSH's tests (docs/dsh.md#policykey).
func TestKey(t *testing.T) {
	tests := []struct{ config, want string }{
		{`{}`, `["normal",5,["EMPTY_RESPONSE","RATE_LIMIT","SERVER","TIMEOUT","TRANSPORT"],500,10000,0.1]`},
		{`{"maxRetries":2,"retryableCodes":["SERVER","RATE_LIMIT"],"backoff":{"jitterRatio":0}}`, `["normal",2,["RATE_LIMIT","SERVER"],500,10000,0]`},
		{`{"mode":"always"}`, `["always",500,10000,0.1]`},
		{`{"mode":"always","backoff":{"initialDelayMs":1,"maxDelayMs":4}}`, `["always",1,4,0.1]`},
	}
	for _, tt := range tests {
		p, err := retry.ParsePolicy(json.RawMessage(tt.config))
		if err != nil {
			t.Fatalf("%s: %v", tt.config, err)
		}
		if got := retry.Key(p); got != tt.want {
			t.Errorf("Key(%s) = %s, want %s", tt.config, got, tt.want)
		}
	}
}

// TestParsePolicy: defaults resolve as DSH's (fact 23); always mode ignores
// normal-only keys; each invalid field is named.
func TestParsePolicy(t *testing.T) {
	p, err := retry.ParsePolicy(json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(retry.DefaultPolicy(), p); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	always, err := retry.ParsePolicy(json.RawMessage(`{"mode":"always","maxRetries":3,"retryableCodes":["AUTH"]}`))
	if err != nil || always.MaxRetries != 0 || always.RetryableCodes != nil {
		t.Errorf("always mode kept normal-only keys: %+v, %v", always, err)
	}
	bad := []struct{ config, want string }{
		{`{"retryPolciy":{}}`, `unknown key "retryPolciy" (known: mode, maxRetries, retryableCodes, backoff)`},
		{`{"mode":"sometimes"}`, `mode: must be "normal" or "always"`},
		{`{"maxRetries":-1}`, `maxRetries: must be a non-negative safe integer`},
		{`{"maxRetries":1.5}`, `maxRetries: must be a non-negative safe integer`},
		{`{"retryableCodes":[]}`, `retryableCodes: must be a non-empty array`},
		{`{"retryableCodes":["SERVER",""]}`, `retryableCodes[1]: must be a non-empty string`},
		{`{"retryableCodes":["SERVER","SERVER"]}`, `retryableCodes[1]: duplicates "SERVER"`},
		{`{"backoff":{"initialDelayMs":0}}`, `backoff.initialDelayMs: must be finite, > 0`},
		{`{"backoff":{"maxDelayMs":2147483648}}`, `backoff.maxDelayMs: must be finite, > 0 and ≤ 2147483647`},
		{`{"backoff":{"jitterRatio":1.5}}`, `backoff.jitterRatio: must be in [0,1]`},
		{`{"backoff":{"initialDelayMs":20,"maxDelayMs":10}}`, `backoff.maxDelayMs: (10) must be ≥ backoff.initialDelayMs (20)`},
		{`{"backoff":{"delay":1}}`, `backoff: unknown key "delay" (known: initialDelayMs, maxDelayMs, jitterRatio)`},
		{`[]`, `must be an object`},
	}
	for _, tt := range bad {
		_, err := retry.ParsePolicy(json.RawMessage(tt.config))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParsePolicy(%s) = %v, want an error containing %q", tt.config, err, tt.want)
		}
	}
}

// TestExecutorConfig: fact 18.
func TestExecutorConfig(t *testing.T) {
	if err := retry.ParseExecutorConfig(json.RawMessage(`{}`)); err != nil {
		t.Errorf("an empty config: %v", err)
	}
	if err := retry.ParseExecutorConfig(json.RawMessage(`{"retryPolicy":{}}`)); err == nil || !strings.Contains(err.Error(), "retryPolicy belongs under each provider") {
		t.Errorf("retryPolicy: %v", err)
	}
	if err := retry.ParseExecutorConfig(json.RawMessage(`{"retryPolciy":{}}`)); err == nil || !strings.Contains(err.Error(), `unknown key "retryPolciy"`) {
		t.Errorf("a typo: %v", err)
	}
}

// TestValidateIsParsePolicy: a policy built in Go is held to what
// ParsePolicy takes from a file, with its messages, and what JSON cannot
// carry is refused by name.
func TestValidateIsParsePolicy(t *testing.T) {
	with := func(edit func(p *loop.RetryPolicy)) *loop.RetryPolicy {
		p := retry.DefaultPolicy()
		edit(p)
		return p
	}
	for _, tt := range []struct {
		why  string
		p    *loop.RetryPolicy
		want string
	}{
		{"the default", retry.DefaultPolicy(), ""},
		{"always mode, whose normal-only fields a file's reader skips", with(func(p *loop.RetryPolicy) { p.Mode, p.MaxRetries = loop.ModeAlways, -7 }), ""},
		{"a budget past a safe integer", with(func(p *loop.RetryPolicy) { p.MaxRetries = math.MaxInt }), "maxRetries: must be a non-negative safe integer, got 9223372036854775807"},
		{"a negative budget", with(func(p *loop.RetryPolicy) { p.MaxRetries = -1 }), "maxRetries: must be a non-negative safe integer, got -1"},
		{"neither mode", with(func(p *loop.RetryPolicy) { p.Mode = "bogus" }), `mode: must be "normal" or "always", got "bogus"`},
		{"a NaN delay, which JSON cannot carry", with(func(p *loop.RetryPolicy) { p.InitialDelayMs = math.NaN() }), "backoff.initialDelayMs: must be a finite number, got NaN"},
		{"an infinite cap", with(func(p *loop.RetryPolicy) { p.MaxDelayMs = math.Inf(1) }), "backoff.maxDelayMs: must be a finite number, got +Inf"},
		{"a jitter ratio past 1", with(func(p *loop.RetryPolicy) { p.JitterRatio = 7 }), "backoff.jitterRatio: must be in [0,1], got 7"},
		{"a cap under the first delay", with(func(p *loop.RetryPolicy) { p.MaxDelayMs = 100 }), "backoff.maxDelayMs: (100) must be ≥ backoff.initialDelayMs (500)"},
		{"no retryable code", with(func(p *loop.RetryPolicy) { p.RetryableCodes = nil }), "retryableCodes: must be a non-empty array of non-empty strings, got null"},
		{"a code that is not UTF-8 (JSON would carry U+FFFD)", with(func(p *loop.RetryPolicy) { p.RetryableCodes = []string{"SERVER", "\xff"} }), `retryableCodes[1]: not valid UTF-8: \xff`},
	} {
		got := ""
		if err := retry.Validate(tt.p); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.why, got, tt.want)
		}
	}
}

// TestValidateNoPolicy: Validate(nil) is an error naming the policy, not
// a panic.
func TestValidateNoPolicy(t *testing.T) {
	err := retry.Validate(nil)
	if err == nil || !strings.Contains(err.Error(), "no policy given") {
		t.Errorf("Validate(nil) = %v, want an error saying no policy was given", err)
	}
}

// keyByJSON is Key as encoding/json writes the array (Key's definition
// before it was written by hand).
func keyByJSON(p *loop.RetryPolicy) string {
	var v []any
	if p.Mode == loop.ModeAlways {
		v = []any{loop.ModeAlways, p.InitialDelayMs, p.MaxDelayMs, p.JitterRatio}
	} else {
		codes := slices.Clone(p.RetryableCodes)
		slices.Sort(codes)
		v = []any{loop.ModeNormal, p.MaxRetries, codes, p.InitialDelayMs, p.MaxDelayMs, p.JitterRatio}
	}
	b, err := session.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// FuzzKey: Key writes what encoding/json writes, for any mode, budget,
// codes (escapes, non-ASCII, none, nil) and numbers (tiny, huge,
// negative, exponents).
func FuzzKey(f *testing.F) {
	f.Add(false, 5, "SERVER,RATE_LIMIT", 500.0, 10000.0, 0.1, false)
	f.Add(true, 0, "", 1.0, 4.0, 0.0, true)
	f.Add(false, -1, "a\"b,<c>,é,\u2028", 1e-7, 1e21, 123456789.125, false)
	f.Add(false, 3, "", 0.000001, 9.99e20, -0.0, true)
	f.Fuzz(func(t *testing.T, always bool, maxRetries int, codes string, initial, maximum, jitter float64, nilCodes bool) {
		for _, x := range []float64{initial, maximum, jitter} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return // no JSON: both refuse (encoding/json with an error, Key with a panic)
			}
		}
		p := &loop.RetryPolicy{Mode: loop.ModeNormal, MaxRetries: maxRetries, InitialDelayMs: initial, MaxDelayMs: maximum, JitterRatio: jitter}
		if always {
			p.Mode = loop.ModeAlways
		}
		if !nilCodes {
			p.RetryableCodes = strings.Split(codes, ",")
		}
		if got, want := retry.Key(p), keyByJSON(p); got != want {
			t.Fatalf("Key = %s, encoding/json writes %s", got, want)
		}
	})
}
