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
	a.listeners = append(a.listeners, namedListener{name, l})
	return a.removeListener(name)
}

// PrependRequestErrorListener registers a listener before all others.
func (a *Agent) PrependRequestErrorListener(name string, l RequestErrorListener) (remove func()) {
	a.listeners = append([]namedListener{{name, l}}, a.listeners...)
	return a.removeListener(name)
}

// Decision is one listener's answer to a failure, as the waterfall saw it.
type Decision struct {
	Listener string
	Event    *RequestError
	Action   Action
	Err      error
	// PassedOn says the listener's next() returned a retry (without a
	// throw) at least once: a retry it then returns is its downstream's,
	// not its own.
	PassedOn bool
	// Outermost says the listener is the waterfall's first: its answer
	// is the waterfall's.
	Outermost bool
}

// OnDecision registers an observer of every listener's answer (the
// simulator's run facts), called as the listener returns; the decision is
// read during the call, not kept.
func (a *Agent) OnDecision(f func(*Decision)) { a.onDecision = append(a.onDecision, f) }

// Listening is how many listeners are running, one inside the next():
// 0 outside the waterfall.
func (a *Agent) Listening() int { return a.listening }

// removeListener is the function that unregisters the listener of that
// name: made once per name for an agent kept in a Memory, which installs
// the same listeners run after run.
func (a *Agent) removeListener(name string) func() {
	for _, r := range a.removers {
		if r.name == name {
			return r.remove
		}
	}
	remove := func() {
		for i, l := range a.listeners {
			if l.name == name {
				a.listeners = append(a.listeners[:i:i], a.listeners[i+1:]...)
				return
			}
		}
	}
	if len(a.removers) < maxRemovers {
		a.removers = append(a.removers, remover{name, remove})
	}
	return remove
}

// remover is a listener name's remove function, kept for the next agent.
type remover struct {
	name   string
	remove func()
}

// maxRemovers bounds the remove functions an agent keeps: a run installs
// a handful of listeners.
const maxRemovers = 16

// frame is one listener call's place in a waterfall: the chain it
// belongs to and where its next() leads. Each call has a frame of its own
// for the agent's life, so that a next() kept and called after its
// listener returned runs the rest of its own chain, as a closure kept in
// DSH's JavaScript would. An agent in a Memory hands its frames out again
// to the next agent, each with its next() made once.
type frame struct {
	a     *Agent
	chain []namedListener
	ev    *RequestError
	// next is the index in chain that the listener's next() calls,
	// advancing on each call; passedOn says a call returned a retry.
	next     int
	passedOn bool
	nextFn   Next
}

// newFrame is a frame for one listener call: a new one, or for an agent
// in a Memory the next of the frames its runs keep (a run's are handed
// out once; an agent of its own keeps none, so that a long-lived agent's
// memory does not grow with its failures).
func (a *Agent) newFrame() *frame {
	if !a.keepFrames || a.framesUsed == len(a.frames) {
		f := &frame{a: a}
		f.nextFn = f.callNext
		if !a.keepFrames {
			return f
		}
		a.frames = append(a.frames, f)
	}
	f := a.frames[a.framesUsed]
	a.framesUsed++
	return f
}

// callNext is a frame's next(): the next listener, or no action past the
// end of the chain.
func (f *frame) callNext() (Action, error) {
	n := f.next
	f.next++
	act, err := f.a.callListener(f.chain, n, f.ev)
	f.passedOn = f.passedOn || (act == Retry && err == nil)
	return act, err
}

// runWaterfall offers a failure to the listeners, outermost first. Any
// returned value other than Retry is no action.
func (a *Agent) runWaterfall(ev *RequestError) (Action, error) {
	// The chain as it is now: a listener removed or added during the
	// waterfall changes the next one, not this one.
	base := len(a.chains)
	a.chains = append(a.chains, a.listeners...)
	act, err := a.callListener(a.chains[base:len(a.chains):len(a.chains)], 0, ev)
	clear(a.chains[base:])
	a.chains = a.chains[:base]
	if err != nil {
		return NoAction, err
	}
	if act != Retry {
		act = NoAction
	}
	return act, nil
}

// callListener runs chain[i] with a frame of its own, and tells the
// decision observers what it answered.
func (a *Agent) callListener(chain []namedListener, i int, ev *RequestError) (Action, error) {
	if i >= len(chain) {
		return NoAction, nil
	}
	f := a.newFrame()
	f.chain, f.ev, f.next, f.passedOn = chain, ev, i+1, false
	a.listening++
	act, err := chain[i].fn(ev, f.nextFn)
	a.listening--
	passedOn := f.passedOn
	if len(a.onDecision) > 0 {
		// The agent's own memory, not a Decision per answer: observers
		// read it as they are called, and keep no pointer to it.
		a.decision = Decision{Listener: chain[i].name, Event: ev, Action: act, Err: err, PassedOn: passedOn, Outermost: a.listening == 0}
		for _, observe := range a.onDecision {
			observe(&a.decision)
		}
	}
	return act, err
}
