package budget

import (
	"encoding/json"
	"fmt"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/retry"
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

// validatePolicy holds the policy part to what its file would be: the
// policy as loop/retry reads one (retry.Validate), a bundle's compaction
// and order as the scenario reader does, one set of checks rather than a
// copy of them; and the budget to what a turn can spend.
func (c Config) validatePolicy() error {
	bundle := c.Compaction != nil || len(c.ListenerOrder) > 0
	if c.RetryPolicy != nil {
		if err := retry.Validate(c.RetryPolicy); err != nil {
			return fmt.Errorf("%s%w", prefix(bundle), err)
		}
	}
	if bundle {
		// The bundle's compaction and order as a bundle's file has them,
		// read by the scenario reader, which checks both.
		var policy any // null: no retry policy
		if c.RetryPolicy != nil {
			policy = retry.PolicyJSON(c.RetryPolicy)
		}
		fields := map[string]any{"retryPolicy": policy, "compaction": compactionJSON(c.Compaction)}
		if len(c.ListenerOrder) > 0 {
			fields["listenerOrder"] = c.ListenerOrder
		}
		raw, _ := json.Marshal(fields)
		if _, err := ParsePolicy(raw); err != nil {
			return err
		}
	}
	if p := c.RetryPolicy; p != nil && p.Mode == loop.ModeNormal && p.MaxRetries > maxBudgetRetries {
		// What DSH takes, but no turn of a budget can spend.
		return fmt.Errorf("%smaxRetries: %d is more retries than a turn can make within its bound of %d events (%d an attempt): at most %d",
			prefix(bundle), p.MaxRetries, eventCeiling, eventsPerAttempt, maxBudgetRetries)
	}
	if bundle {
		// A bundle's order may name a listener of one's own, which a file
		// cannot know of: the world refuses one nothing registered.
		return (&sim.Scenario{Recovery: sim.Recovery{ListenerOrder: c.ListenerOrder}}).CheckPlugged(c.Listeners)
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
