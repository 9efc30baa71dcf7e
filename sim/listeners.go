package sim

import (
	"errors"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
)

// Test listeners a scenario can put in its listenerOrder: the listeners
// DSH's own tests install around llm-retry and compaction.
const (
	// ListenerAlwaysRetry answers every failure with retry (a policy
	// author's listener that owns every failure).
	ListenerAlwaysRetry = "always-retry"
	// ListenerThrow throws from the waterfall.
	ListenerThrow = "throw"
	// ListenerCancelThenNext cancels the turn (user) and calls next().
	ListenerCancelThenNext = "cancel-then-next"
	// ListenerCancelThenRetry cancels the turn (user) and returns retry.
	ListenerCancelThenRetry = "cancel-then-retry"
	// ListenerThrowOnCue is installed outermost when a scripted failure
	// has listenerThrows: it throws handling that failure and passes every
	// other one on.
	ListenerThrowOnCue = "throw-on-cue"
)

func (w *World) throwOnCue(_ *loop.RequestError, next loop.Next) (loop.Action, error) {
	if w.answeringThrows {
		return loop.NoAction, errListenerThrew
	}
	return next()
}

// errListenerThrew is what the throwing test listener throws.
var errListenerThrew = errors.New("request-error listener threw")

// testListener builds a named test listener; its cancels go through the
// world, so that the run facts record them like any other cancel.
func (w *World) testListener(name string) loop.RequestErrorListener {
	cancel := func() {
		w.record("cancel user (by the " + name + " listener)")
		w.fact("cancel", session.CauseUser)
		w.agent.Cancel(session.Cause{Kind: session.CauseUser}, false)
	}
	switch name {
	case ListenerAlwaysRetry:
		return func(*loop.RequestError, loop.Next) (loop.Action, error) { return loop.Retry, nil }
	case ListenerThrow:
		return func(*loop.RequestError, loop.Next) (loop.Action, error) { return loop.NoAction, errListenerThrew }
	case ListenerCancelThenNext:
		return func(_ *loop.RequestError, next loop.Next) (loop.Action, error) {
			cancel()
			return next()
		}
	case ListenerCancelThenRetry:
		return func(*loop.RequestError, loop.Next) (loop.Action, error) {
			cancel()
			return loop.Retry, nil
		}
	}
	return nil
}
