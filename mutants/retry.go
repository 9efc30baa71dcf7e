package mutants

import (
	"context"
	"math"
	"slices"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/loop/session"
)

// buggyRetry is llm-retry's normal mode as a policy author might rewrite
// it, with one bug switched on; it logs the route's real policy, so the
// log claims what the policy promised. Always mode is left to next().
type buggyRetry struct {
	offByOne   bool
	extraCodes []string
	// waitIgnoresCancel waits on a context the turn's cancel cannot reach.
	waitIgnoresCancel bool
	// waitFraction, when non-zero, waits that fraction of the logged delay.
	waitFraction float64
	// jitterUpOnly draws jitter in [1, 1+2j] instead of [1-j, 1+j].
	jitterUpOnly bool
}

func (b *buggyRetry) handle(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
	p := ev.RetryPolicy
	if p == nil || p.Mode != loop.ModeNormal {
		return next()
	}
	if !slices.Contains(p.RetryableCodes, ev.Failure.Code) && !slices.Contains(b.extraCodes, ev.Failure.Code) {
		return next()
	}
	key := retry.Key(p)
	previous, id := 0, ""
	events := ev.Agent.Log().Events()
	for i := len(events) - 1; i >= 0; i-- {
		if r, ok := events[i].Data.(*session.LLMRetry); ok && r.Turn == ev.Turn && r.Step == ev.Step && r.Provider == ev.Provider && r.PolicyKey == key {
			previous, id = r.Retry, r.RetryID
			break
		}
	}
	exhausted := previous >= p.MaxRetries
	if b.offByOne {
		exhausted = previous > p.MaxRetries // the bug
	}
	if exhausted {
		return next()
	}
	if ra := ev.Failure.ProviderRetryAfterMs; ra != nil && *ra > p.MaxDelayMs {
		return next()
	}
	if id == "" {
		id = ev.Agent.IDs().NewID(loop.IDRetry)
	}
	r := ev.Agent.Random().Float64()
	delay := retry.Delay(p, previous+1, r)
	if b.jitterUpOnly {
		delay = upOnlyDelay(p, previous+1, r)
	}
	if ra := ev.Failure.ProviderRetryAfterMs; ra != nil && *ra > 0 {
		delay = *ra
	}
	if ev.Signal.Err() != nil {
		return loop.NoAction, nil
	}
	maxRetries := p.MaxRetries
	ev.Agent.Append(&session.LLMRetry{RetryID: id, Turn: ev.Turn, Step: ev.Step, Provider: ev.Provider, Mode: p.Mode,
		PolicyKey: key, Retry: previous + 1, MaxRetries: &maxRetries, DelayMs: delay, Failure: ev.Failure})
	wait, waitCtx := delay, context.Context(ev.Signal)
	if b.waitFraction != 0 {
		wait = delay * b.waitFraction // the bug: the wait is not the delay
	}
	if b.waitIgnoresCancel {
		waitCtx = context.WithoutCancel(ev.Signal) // the bug
	}
	if err := ev.Agent.Clock().Sleep(waitCtx, retry.Duration(wait)); err != nil {
		return loop.NoAction, nil
	}
	ev.Agent.Append(&session.LLMRetryStarted{RetryID: id, Turn: ev.Turn, Step: ev.Step, Retry: previous + 1})
	return loop.Retry, nil
}

// upOnlyDelay is DSH's delay (docs/dsh.md#retry-delay) with a jitter that
// forgot to subtract its ratio: 1 + 2jr instead of (1 - j) + 2jr.
func upOnlyDelay(p *loop.RetryPolicy, n int, r float64) float64 {
	exponential := math.Min(p.InitialDelayMs*math.Pow(2, float64(min(n-1, 1024))), p.MaxDelayMs)
	return math.Min(exponential*(1+2*p.JitterRatio*r), p.MaxDelayMs)
}
