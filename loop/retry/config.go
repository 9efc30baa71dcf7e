package retry

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop"
)

// Defaults of a normal policy (docs/dsh.md#retry-config).
var (
	DefaultMaxRetries     = 5
	DefaultRetryableCodes = []string{"EMPTY_RESPONSE", "RATE_LIMIT", "SERVER", "TIMEOUT", "TRANSPORT"}
)

const (
	DefaultInitialDelayMs = 500
	DefaultMaxDelayMs     = 10_000
	DefaultJitterRatio    = 0.1
	// maxTimerMs is the largest delay a timer takes.
	maxTimerMs = 2_147_483_647
)

// DefaultPolicy is the policy a route resolves to when it configures none.
func DefaultPolicy() *loop.RetryPolicy {
	p := DefaultPolicyValue()
	p.RetryableCodes = slices.Clone(p.RetryableCodes)
	return &p
}

// ConfigError is an invalid policy configuration; Field is the JSON path.
type ConfigError struct {
	Field string
	Msg   string
}

func (e *ConfigError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// ParsePolicy reads a RetryPolicyConfig in DSH's JSON shape:
//
//	{"mode":"normal","maxRetries":2,"retryableCodes":["SERVER"],
//	 "backoff":{"initialDelayMs":25,"maxDelayMs":50,"jitterRatio":0}}
//
// Omitted fields take DSH's defaults; always mode ignores the normal-only
// keys. Errors name the field.
func ParsePolicy(raw json.RawMessage) (*loop.RetryPolicy, error) {
	if err := strictjson.Check(raw); err != nil {
		return nil, &ConfigError{"", err.Error()}
	}
	fields, err := objectKeys(raw, "")
	if err != nil {
		return nil, err
	}
	p := DefaultPolicy()
	if v, ok := fields["mode"]; ok {
		if err := json.Unmarshal(v, &p.Mode); err != nil || (p.Mode != loop.ModeNormal && p.Mode != loop.ModeAlways) {
			return nil, &ConfigError{"mode", fmt.Sprintf(`must be "normal" or "always", got %s`, strictjson.Show(v))}
		}
	}
	for _, key := range sortedKeys(fields) {
		switch key {
		case "mode", "maxRetries", "retryableCodes", "backoff":
		default:
			return nil, &ConfigError{"", fmt.Sprintf("unknown key %q (known: mode, maxRetries, retryableCodes, backoff)", key)}
		}
	}
	if p.Mode == loop.ModeNormal {
		if v, ok := fields["maxRetries"]; ok {
			n, err := safeInteger(v)
			if err != nil || n < 0 {
				return nil, &ConfigError{"maxRetries", fmt.Sprintf("must be a non-negative safe integer, got %s", strictjson.Show(v))}
			}
			p.MaxRetries = int(n)
		}
		if v, ok := fields["retryableCodes"]; ok {
			var codes []string
			if err := json.Unmarshal(v, &codes); err != nil || len(codes) == 0 {
				return nil, &ConfigError{"retryableCodes", fmt.Sprintf("must be a non-empty array of non-empty strings, got %s", strictjson.Show(v))}
			}
			for i, c := range codes {
				if c == "" {
					return nil, &ConfigError{fmt.Sprintf("retryableCodes[%d]", i), "must be a non-empty string"}
				}
				if slices.Contains(codes[:i], c) {
					return nil, &ConfigError{fmt.Sprintf("retryableCodes[%d]", i), fmt.Sprintf("duplicates %q", c)}
				}
			}
			p.RetryableCodes = codes
		}
	} else {
		p.MaxRetries, p.RetryableCodes = 0, nil
	}
	if v, ok := fields["backoff"]; ok {
		if err := parseBackoff(v, p); err != nil {
			return nil, err
		}
	}
	if p.MaxDelayMs < p.InitialDelayMs {
		return nil, &ConfigError{"backoff.maxDelayMs", fmt.Sprintf("(%v) must be ≥ backoff.initialDelayMs (%v)", p.MaxDelayMs, p.InitialDelayMs)}
	}
	return p, nil
}

func parseBackoff(raw json.RawMessage, p *loop.RetryPolicy) error {
	fields, err := objectKeys(raw, "backoff")
	if err != nil {
		return err
	}
	for _, key := range sortedKeys(fields) {
		v := fields[key]
		var target *float64
		switch key {
		case "initialDelayMs":
			target = &p.InitialDelayMs
		case "maxDelayMs":
			target = &p.MaxDelayMs
		case "jitterRatio":
			target = &p.JitterRatio
		default:
			return &ConfigError{"backoff", fmt.Sprintf("unknown key %q (known: initialDelayMs, maxDelayMs, jitterRatio)", key)}
		}
		var f float64
		if err := json.Unmarshal(v, &f); err != nil {
			return &ConfigError{"backoff." + key, fmt.Sprintf("must be a number, got %s", strictjson.Show(v))}
		}
		if key == "jitterRatio" {
			if !(f >= 0 && f <= 1) {
				return &ConfigError{"backoff.jitterRatio", fmt.Sprintf("must be in [0,1], got %s", strictjson.Show(v))}
			}
		} else if !(f > 0 && f <= maxTimerMs) || math.IsInf(f, 0) {
			return &ConfigError{"backoff." + key, fmt.Sprintf("must be finite, > 0 and ≤ %d, got %s", maxTimerMs, strictjson.Show(v))}
		}
		*target = f
	}
	return nil
}

// objectKeys decodes a JSON object's keys; a null or non-object is an error
// naming field.
func objectKeys(raw json.RawMessage, field string) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, &ConfigError{field, fmt.Sprintf("must be an object, got %s", strictjson.Show(raw))}
	}
	return fields, nil
}

func safeInteger(v json.RawMessage) (int64, error) {
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53-1 {
		return 0, fmt.Errorf("not a safe integer")
	}
	return int64(f), nil
}

// ParseExecutorConfig checks the llm-retry plugin's own configuration,
// which has no keys: policies belong to each provider route
// (docs/dsh.md#retry-config).
func ParseExecutorConfig(raw json.RawMessage) error {
	fields, err := objectKeys(raw, "")
	if err != nil {
		return err
	}
	if _, ok := fields["retryPolicy"]; ok {
		return &ConfigError{"", "retryPolicy belongs under each provider configuration, not under llm-retry"}
	}
	if keys := sortedKeys(fields); len(keys) > 0 {
		return &ConfigError{"", fmt.Sprintf("unknown key %q", keys[0])}
	}
	return nil
}

// sortedKeys makes validation order, and so every error message,
// independent of map iteration order.
func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// DefaultPolicyValue is DefaultPolicy's policy as a value, its codes
// DefaultRetryableCodes themselves: a caller that keeps it copies them
// first (a seed's draw copies them into its own memory).
func DefaultPolicyValue() loop.RetryPolicy {
	return loop.RetryPolicy{Mode: loop.ModeNormal, MaxRetries: DefaultMaxRetries,
		RetryableCodes: DefaultRetryableCodes, InitialDelayMs: DefaultInitialDelayMs,
		MaxDelayMs: DefaultMaxDelayMs, JitterRatio: DefaultJitterRatio}
}
