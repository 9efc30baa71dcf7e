package retry

import (
	"context"
	"errors"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
)

// ErrDisposed is the cause of a backoff wait cut by the executor's disposal.
var ErrDisposed = errors.New("llm-retry: disposed")

// Executor is the llm-retry plugin: one listener per agent, acting on each
// route's policy. Its lifetime ends with Dispose.
type Executor struct {
	agent    *loop.Agent
	remove   func()
	disposed bool
	// waits are the cancel functions of the backoff waits in flight.
	waits map[int]context.CancelCauseFunc
	next  int
	// Warn receives the warnings DSH logs (a downstream throw caught in
	// always mode); nil drops them.
	Warn func(string)
	// handle is x.Handle, made once for x; policy and key are the last
	// policy a failure came with and its key, which the next failure of
	// the same route reuses.
	handle loop.RequestErrorListener
	policy *loop.RetryPolicy
	key    string
}

// Install registers the executor's listener on the agent, after the
// listeners registered before it.
func Install(a *loop.Agent) *Executor { return InstallIn(&Executor{}, a) }

// InstallIn is Install with x the executor: a worker's, made again in
// place for each agent (one that must no longer run), its listener made
// once.
func InstallIn(x *Executor, a *loop.Agent) *Executor {
	handle, waits := x.handle, x.waits
	if handle == nil {
		handle = x.Handle
	}
	if waits == nil {
		waits = map[int]context.CancelCauseFunc{}
	}
	clear(waits)
	*x = Executor{agent: a, waits: waits, handle: handle}
	x.remove = a.AddRequestErrorListener("llm-retry", handle)
	return x
}

// keyOf is Key(p), kept for the next failure: a route's policy is the
// same policy, unchanged, for as long as the agent runs (one changed in
// place while it runs would log its old key).
func (x *Executor) keyOf(p *loop.RetryPolicy) string {
	if p != x.policy {
		x.policy, x.key = p, Key(p)
	}
	return x.key
}

// Dispose unregisters the listener and cancels every backoff wait in
// flight: such a wait resolves as cancelled and its listener returns no
// action. A callback an in-flight waterfall captured before disposal
// returns no action without entering downstream listeners.
func (x *Executor) Dispose() {
	if x.disposed {
		return
	}
	x.disposed = true
	if x.remove != nil {
		x.remove()
	}
	// In the order the waits began, so that a disposal is deterministic.
	for _, id := range slices.Sorted(maps.Keys(x.waits)) {
		x.waits[id](ErrDisposed)
	}
}

// Handle is the listener (docs/dsh.md#retry-listener).
func (x *Executor) Handle(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
	if x.disposed {
		return loop.NoAction, nil
	}
	p := ev.RetryPolicy
	if p == nil {
		return next()
	}
	if p.Mode == loop.ModeAlways {
		if x.aborted(ev) {
			return loop.NoAction, nil
		}
		act, err := next()
		if err != nil && x.Warn != nil {
			x.Warn("llm-retry: a downstream request-error listener threw; retrying in always mode: " + err.Error())
		}
		if x.aborted(ev) {
			return loop.NoAction, nil
		}
		if err == nil && act == loop.Retry {
			return loop.Retry, nil
		}
	} else if !slices.Contains(p.RetryableCodes, ev.Failure.Code) {
		return next()
	}
	key := x.keyOf(p)
	prev := latestRetry(ev.Agent.Log(), ev.Turn, ev.Step, ev.Provider, key)
	previous := 0
	if prev != nil {
		previous = prev.Retry
	}
	if p.Mode == loop.ModeNormal && previous >= p.MaxRetries {
		return next() // the budget is exhausted
	}
	retry := previous + 1
	var retryID string
	if prev != nil {
		retryID = prev.RetryID
	} else {
		retryID = ev.Agent.IDs().NewID(loop.IDRetry)
	}
	var delay float64
	if ra := ev.Failure.ProviderRetryAfterMs; ra != nil && *ra > 0 && !math.IsInf(*ra, 0) && !math.IsNaN(*ra) {
		switch {
		case *ra <= p.MaxDelayMs:
			delay = *ra // exactly, never jittered; equal to the cap is accepted
		case p.Mode == loop.ModeNormal:
			return next()
		default:
			delay = Delay(p, retry, ev.Agent.Random().Float64())
		}
	} else {
		delay = Delay(p, retry, ev.Agent.Random().Float64())
	}
	return x.backoff(ev, p, key, retryID, retry, delay)
}

func (x *Executor) aborted(ev *loop.RequestError) bool {
	return x.disposed || ev.Signal.Err() != nil
}

// backoff writes llm/retry, waits, and writes llm/retry-started.
func (x *Executor) backoff(ev *loop.RequestError, p *loop.RetryPolicy, key, retryID string, retry int, delay float64) (loop.Action, error) {
	if x.aborted(ev) {
		return loop.NoAction, nil
	}
	rec := session.LLMRetry{RetryID: retryID, Turn: ev.Turn, Step: ev.Step, Provider: ev.Provider, Mode: p.Mode,
		PolicyKey: key, Retry: retry, DelayMs: delay, Failure: ev.Failure}
	if p.Mode == loop.ModeNormal {
		rec.MaxRetries = ev.Agent.Log().KeepInt(p.MaxRetries)
	}
	loop.AppendCopy(ev.Agent, &rec)
	// The wait is cancellable by the turn signal and by the executor's
	// lifetime; if either is already aborted it resolves at once.
	ctx, cancel := context.WithCancelCause(ev.Signal)
	id := x.next
	x.next++
	x.waits[id] = cancel
	if x.disposed {
		cancel(ErrDisposed)
	}
	err := ev.Agent.Clock().Sleep(ctx, Duration(delay))
	cancelled := err != nil || ctx.Err() != nil
	delete(x.waits, id)
	cancel(nil) // release the child context
	if cancelled {
		return loop.NoAction, nil // no llm/retry-started
	}
	loop.AppendCopy(ev.Agent, &session.LLMRetryStarted{RetryID: retryID, Turn: ev.Turn, Step: ev.Step, Retry: retry})
	return loop.Retry, nil
}

// Duration converts a delay in (possibly fractional) milliseconds.
func Duration(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// latestRetry is the most recent llm/retry of the same turn, step,
// provider and policy key. DSH reads the whole log back; the search stops
// at the turn's own turn/start, before which no event of the turn stands,
// so that a long session's retries do not cost the square of its length.
func latestRetry(log *session.Log, turn, step int, provider, key string) *session.LLMRetry {
	events := log.Events()
	for i := len(events) - 1; i >= 0; i-- {
		switch p := events[i].Data.(type) {
		case *session.LLMRetry:
			if p.Turn == turn && p.Step == step && p.Provider == provider && p.PolicyKey == key {
				return p
			}
		case *session.TurnStart:
			if p.Turn == turn {
				return nil
			}
		}
	}
	return nil
}
