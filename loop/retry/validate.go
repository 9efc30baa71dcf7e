package retry

import (
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop"
)

// Validate holds a policy built in Go to what ParsePolicy takes from a
// file, with its checks and messages: the policy is written as the JSON it
// would be read from and read back. What JSON cannot carry is refused
// first: a delay or ratio that is NaN or infinite, a retryable code that is
// not UTF-8 (JSON would carry it as U+FFFD, which is not the code that
// runs). Always mode's normal-only fields are not read, as a file's are
// not.
func Validate(p *loop.RetryPolicy) error {
	if p == nil {
		// A route without a policy is a nil *RetryPolicy wherever one is
		// optional; asked to validate one, it is no policy (it once
		// panicked).
		return &ConfigError{"policy", "no policy given (nil)"}
	}
	for _, f := range []struct {
		field string
		v     float64
	}{{"backoff.initialDelayMs", p.InitialDelayMs}, {"backoff.maxDelayMs", p.MaxDelayMs}, {"backoff.jitterRatio", p.JitterRatio}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return &ConfigError{f.field, fmt.Sprintf("must be a finite number, got %v", f.v)}
		}
	}
	for i, code := range p.RetryableCodes {
		if !utf8.ValidString(code) {
			return &ConfigError{fmt.Sprintf("retryableCodes[%d]", i), "not valid UTF-8: " + strictjson.Printable(code)}
		}
	}
	raw, err := json.Marshal(PolicyJSON(p))
	if err != nil {
		return &ConfigError{"", err.Error()}
	}
	_, err = ParsePolicy(raw)
	return err
}

// PolicyJSON is a policy in DSH's RetryPolicyConfig shape
// (docs/dsh.md#retry-config), for encoding/json.
func PolicyJSON(p *loop.RetryPolicy) map[string]any {
	return map[string]any{"mode": p.Mode, "maxRetries": p.MaxRetries, "retryableCodes": p.RetryableCodes,
		"backoff": map[string]float64{"initialDelayMs": p.InitialDelayMs, "maxDelayMs": p.MaxDelayMs, "jitterRatio": p.JitterRatio}}
}
