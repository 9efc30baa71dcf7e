package budget

import (
	"encoding/json"
	"fmt"
	"math"

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
				if bundle {
					f.field = "retryPolicy." + f.field
				}
				return fmt.Errorf("%s: must be a finite number, got %v", f.field, f.v)
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
	if bundle {
		// A bundle's order may name a listener of one's own, which a file
		// cannot know of: the world refuses one nothing registered.
		return (&sim.Scenario{ListenerOrder: c.Order}).CheckPlugged(c.Listeners)
	}
	return nil
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
