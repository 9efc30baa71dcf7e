package loop

import (
	"context"

	"github.com/turnsim/turnsim/loop/session"
)

// Action is what the request-error waterfall decided.
type Action int

// Actions: no action lets the failure end the turn; Retry runs another
// attempt in the same turn and step.
const (
	NoAction Action = iota
	Retry
)

// RequestError is the payload of the agent/request-error waterfall
// (docs/dsh.md#waterfall).
type RequestError struct {
	Agent    *Agent
	Turn     int
	Step     int
	Provider string
	Failure  session.LlmFailure
	// RetryPolicy is the serving route's policy; nil when the route has
	// none or no adapter was prepared.
	RetryPolicy *RetryPolicy
	// Signal is the turn's cancellation context.
	Signal context.Context
}

// Next calls the next listener of the waterfall (or the default, which
// returns NoAction). Calling it again advances further along the chain.
type Next func() (Action, error)

// RequestErrorListener handles a failed attempt: an owner of the failure
// performs its repair and returns Retry without calling next; any other
// listener returns next(). A returned error is a throw: the turn ends with
// it.
type RequestErrorListener func(ev *RequestError, next Next) (Action, error)

type namedListener struct {
	name string
	fn   RequestErrorListener
}

// AddRequestErrorListener registers a listener after the ones registered
// before it: the first registered is the outermost. It returns a function
// that unregisters it.
func (a *Agent) AddRequestErrorListener(name string, l RequestErrorListener) (remove func()) {
	a.listeners = append(a.listeners, namedListener{name, a.wrap(name, l)})
	return a.removeListener(name)
}

// PrependRequestErrorListener registers a listener before all others.
func (a *Agent) PrependRequestErrorListener(name string, l RequestErrorListener) (remove func()) {
	a.listeners = append([]namedListener{{name, a.wrap(name, l)}}, a.listeners...)
	return a.removeListener(name)
}

// ObserveListeners wraps every listener registered afterwards, so that an
// observer (the simulator's run facts) sees each decision; the wrapper
// must call the listener it is given and return its result.
func (a *Agent) ObserveListeners(wrap func(name string, l RequestErrorListener) RequestErrorListener) {
	a.wrapListener = wrap
}

func (a *Agent) wrap(name string, l RequestErrorListener) RequestErrorListener {
	if a.wrapListener == nil {
		return l
	}
	return a.wrapListener(name, l)
}

func (a *Agent) removeListener(name string) func() {
	return func() {
		for i, l := range a.listeners {
			if l.name == name {
				a.listeners = append(a.listeners[:i:i], a.listeners[i+1:]...)
				return
			}
		}
	}
}

// runWaterfall offers a failure to the listeners, outermost first. Any
// returned value other than Retry is no action.
func (a *Agent) runWaterfall(ev *RequestError) (Action, error) {
	chain := append([]namedListener(nil), a.listeners...)
	var call func(i int) (Action, error)
	call = func(i int) (Action, error) {
		if i >= len(chain) {
			return NoAction, nil
		}
		next := i + 1
		return chain[i].fn(ev, func() (Action, error) {
			n := next
			next++
			return call(n)
		})
	}
	act, err := call(0)
	if err != nil {
		return NoAction, err
	}
	if act != Retry {
		act = NoAction
	}
	return act, nil
}
