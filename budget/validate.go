package budget

import (
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/sim"
)

// Validate checks a configuration as the loaders check what they read,
// with the same checks and messages: the policy part as ParsePolicy reads
// it (a bare RetryPolicyConfig, or with Compaction or Order a bundle), the
// environment as ParseEnvironment does (Environment.Validate), and the
// listeners as the world does (sim.CheckListeners), each error prefixed
// with the part it is in ("policy: maxRetries: …", "environment:
// failures[0].p: …"). Every run method calls it first: a value built in
// Go once panicked (MaxRetries: math.MaxInt, a horizon without arrivals),
// ran out of memory (a horizon of +Inf), or ran with a NaN delay and
// blamed the loop for the violations that followed.
func (c Config) Validate() error {
	if err := c.validatePolicy(); err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	if err := c.Env.Validate(); err != nil {
		return fmt.Errorf("environment: %w", err)
	}
	if err := sim.CheckListeners(c.Listeners); err != nil {
		return fmt.Errorf("listeners: %w", err)
	}
	return nil
}

// validatePolicy reads the policy part back through ParsePolicy, as the
// JSON it would be read from: one set of checks (loop/retry's for the
// policy, the scenario reader's for a bundle's compaction and order)
// rather than a copy of them. What JSON cannot write, a NaN or an
// infinite delay, is refused first.
func (c Config) validatePolicy() error {
	bundle := c.Compaction != nil || len(c.Order) > 0
	var policy any // null: no retry policy
	if p := c.Policy; p != nil {
		for _, f := range []struct {
			field string
			v     float64
		}{{"backoff.initialDelayMs", p.InitialDelayMs}, {"backoff.maxDelayMs", p.MaxDelayMs}, {"backoff.jitterRatio", p.JitterRatio}} {
			if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
				return fmt.Errorf("%s%s: must be a finite number, got %v", prefix(bundle), f.field, f.v)
			}
		}
		for i, code := range p.RetryableCodes {
			// JSON would carry it as U+FFFD, which is not the code run.
			if !utf8.ValidString(code) {
				return fmt.Errorf("%sretryableCodes[%d]: not valid UTF-8: %s", prefix(bundle), i, strictjson.Printable(code))
			}
		}
		policy = policyJSON(p)
	}
	var raw []byte
	if bundle {
		fields := map[string]any{"retryPolicy": policy, "compaction": compactionJSON(c.Compaction)}
		if len(c.Order) > 0 {
			fields["listenerOrder"] = c.Order
		}
		raw, _ = json.Marshal(fields)
	} else if policy != nil {
		raw, _ = json.Marshal(policy)
	} else {
		return nil // no retry policy, no compaction: nothing to read
	}
	if _, err := ParsePolicy(raw); err != nil {
		return err
	}
	if p := c.Policy; p != nil && p.Mode == loop.ModeNormal && p.MaxRetries > maxBudgetRetries {
		// What DSH takes, but no turn of a budget can spend.
		return fmt.Errorf("%smaxRetries: %d is more retries than a turn can make within its bound of %d events (%d an attempt): at most %d",
			prefix(bundle), p.MaxRetries, eventCeiling, eventsPerAttempt, maxBudgetRetries)
	}
	if bundle {
		// A bundle's order may name a listener of one's own, which a file
		// cannot know of: the world refuses one nothing registered.
		return (&sim.Scenario{ListenerOrder: c.Order}).CheckPlugged(c.Listeners)
	}
	return nil
}

// prefix is where a policy's fields are in a bundle.
func prefix(bundle bool) string {
	if bundle {
		return "retryPolicy."
	}
	return ""
}

// policyJSON is a policy in DSH's RetryPolicyConfig shape (SPEC 3.1).
func policyJSON(p *loop.RetryPolicy) map[string]any {
	return map[string]any{"mode": p.Mode, "maxRetries": p.MaxRetries, "retryableCodes": p.RetryableCodes,
		"backoff": map[string]float64{"initialDelayMs": p.InitialDelayMs, "maxDelayMs": p.MaxDelayMs, "jitterRatio": p.JitterRatio}}
}

// compactionJSON is compaction's settings as a bundle writes them; false
// for none.
func compactionJSON(c *compact.Config) any {
	if c == nil {
		return false
	}
	out := map[string]any{"maxOverflowRetries": c.MaxOverflowRetries, "maxTokens": c.MaxTokens, "pruner": false}
	if p := c.Pruner; p != nil {
		out["pruner"] = map[string]int{"thresholdChars": p.ThresholdChars, "headChars": p.HeadChars, "tailChars": p.TailChars}
	}
	return out
}
