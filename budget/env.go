package budget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Environment is the provider a policy faces.
type Environment struct {
	// Failures fail each request independently: entry i with probability
	// P, checked in order (the first that fires is the failure).
	Failures []Failure `json:"failures"`
	// Outages fail every request from FromMs for ForMs of virtual time.
	Outages []Outage `json:"outages"`
}

// Failure is one code's independent failure probability.
type Failure struct {
	Code   string  `json:"code"`
	Status int     `json:"status"`
	P      float64 `json:"p"`
}

// Outage is a window in which every request fails with Code.
type Outage struct {
	FromMs float64 `json:"fromMs"`
	ForMs  float64 `json:"forMs"`
	Code   string  `json:"code"`
	Status int     `json:"status"`
}

// LoadEnvironment reads and validates an environment file.
func LoadEnvironment(path string) (*Environment, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	env, err := ParseEnvironment(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return env, nil
}

// ParseEnvironment decodes an environment; errors name the line of a JSON
// error and the field of an invalid value.
func ParseEnvironment(raw []byte) (*Environment, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var env Environment
	if err := dec.Decode(&env); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, fmt.Errorf("line %d: invalid JSON: %v", 1+bytes.Count(raw[:syntax.Offset], []byte("\n")), syntax)
		}
		return nil, fmt.Errorf("invalid environment: %v", err)
	}
	for i, f := range env.Failures {
		switch {
		case f.Code == "":
			return nil, fmt.Errorf("failures[%d].code: missing", i)
		case !(f.P >= 0 && f.P <= 1):
			return nil, fmt.Errorf("failures[%d].p: must be in [0,1], got %v", i, f.P)
		case f.Status < 0:
			return nil, fmt.Errorf("failures[%d].status: must not be negative", i)
		}
	}
	for i, o := range env.Outages {
		switch {
		case o.Code == "":
			return nil, fmt.Errorf("outages[%d].code: missing", i)
		case !(o.FromMs >= 0):
			return nil, fmt.Errorf("outages[%d].fromMs: must be ≥ 0, got %v", i, o.FromMs)
		case !(o.ForMs > 0):
			return nil, fmt.Errorf("outages[%d].forMs: must be > 0, got %v", i, o.ForMs)
		}
	}
	return &env, nil
}
