package mutants

import (
	"math"
	"strings"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/sim"
)

// unboundedCompaction installs the real compaction-basic with its counter
// out of reach: the bound it was configured with is never checked. The
// oracle still knows the configured bound from the scenario.
func unboundedCompaction(a *loop.Agent, env sim.Env) {
	if env.Compaction == nil {
		return
	}
	cfg := *env.Compaction
	cfg.MaxOverflowRetries = math.MaxInt32 // the bug
	c := compact.Install(a, cfg, env.Summarizer)
	c.Warn = env.Warn
}

// retryAfterFailedCompaction wraps the real compaction-basic in a listener
// that retries when compaction threw and kept the original error: the
// surface did not change, so the same request overflows again.
func retryAfterFailedCompaction(a *loop.Agent, env sim.Env) {
	if env.Compaction == nil {
		return
	}
	failed := false
	c := compact.Install(a, *env.Compaction, env.Summarizer)
	c.Warn = func(msg string) {
		if strings.HasPrefix(msg, "compaction failed; preserving") {
			failed = true
		}
		if env.Warn != nil {
			env.Warn(msg)
		}
	}
	// Re-register under the same name with the wrapper in its place, so
	// the listener order is the scenario's.
	c.Remove()
	a.AddRequestErrorListener("compaction-basic", func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
		failed = false
		act, err := c.Handle(ev, next)
		if err == nil && act != loop.Retry && failed {
			return loop.Retry, nil // the bug: "it failed, try again"
		}
		return act, err
	})
}
