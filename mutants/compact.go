package mutants

import (
	"math"
	"strings"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/sim"
)

// unboundedCompaction is the real compaction-basic with its counter out of
// reach: the bound it was configured with is never checked. The oracle
// still knows the configured bound from the scenario.
func unboundedCompaction(env sim.Env) loop.RequestErrorListener {
	if env.Compaction == nil {
		return nil
	}
	cfg := *env.Compaction
	cfg.MaxOverflowRetries = math.MaxInt32 // the bug
	c := compact.Install(env.Agent, cfg, env.Summarizer)
	c.Warn = env.Warn
	// The world registers the listener in the scenario's place; the
	// compactor keeps its observers (the counter's resets).
	c.Remove()
	return c.Handle
}

// retryAfterFailedCompaction wraps the real compaction-basic in a listener
// that retries when compaction threw and kept the original error: the
// surface did not change, so the same request overflows again.
func retryAfterFailedCompaction(env sim.Env) loop.RequestErrorListener {
	if env.Compaction == nil {
		return nil
	}
	failed := false
	c := compact.Install(env.Agent, *env.Compaction, env.Summarizer)
	c.Warn = func(msg string) {
		if strings.HasPrefix(msg, "compaction failed; preserving") {
			failed = true
		}
		if env.Warn != nil {
			env.Warn(msg)
		}
	}
	c.Remove()
	return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
		failed = false
		act, err := c.Handle(ev, next)
		if err == nil && act != loop.Retry && failed {
			return loop.Retry, nil // the bug: "it failed, try again"
		}
		return act, err
	}
}
