package loop

import "github.com/turnsim/turnsim/loop/session"

// The pieces of a step's attempt path (docs/dsh.md#attempts), for
// RunAttempts and for other designs of it: Config.Attempts runs another
// path on the same agent, so that a design under evaluation (or the mutant
// zoo's loop-level variants, built outside this package) meets the same
// world and oracle.

// StepOutcome is what a step concluded: tool calls ran and the turn goes
// on (the zero value), a reply without tool calls, or a reply that hit max
// tokens.
type StepOutcome = stepOutcome

// AttemptPath runs the attempts of the open step.
type AttemptPath func(st Step) (StepOutcome, error)

// Step is the open step, as an attempt path sees it.
type Step struct{ a *Agent }

// Attempt is one streamed attempt.
type Attempt struct {
	req   *Request
	route *Route
	res   *attemptResult
}

// Request is what the attempt sent.
func (at *Attempt) Request() *Request { return at.req }

// Failed reports an error or aborted finish.
func (at *Attempt) Failed() bool { return at.res.finish.Failed() }

// Failure is a failed attempt's failure, as its finish chunk records it.
func (at *Attempt) Failure() session.LlmFailure { return *at.res.finish.Reason.Failure }

// Prepare is step 1 of docs/dsh.md#attempts for the step's attempt n: the
// route, the header and context records, the derived messages, with the
// signal checked between them.
func (st Step) Prepare(n int) (*Request, *Route, error) { return st.a.prepare(n) }

// Stream is steps 2–3 of docs/dsh.md#attempts: the attempt's chunks, its
// finish, or the interrupted path when the turn is cancelled.
func (st Step) Stream(req *Request, route *Route) (*Attempt, error) {
	return st.a.stream(req, route)
}

// Succeed is step 5 of docs/dsh.md#attempts: the message, then the tool
// calls.
func (st Step) Succeed(at *Attempt) (StepOutcome, error) { return st.a.succeed(at.req, at.res) }

// Recover offers a failed attempt to the request-error waterfall
// (docs/dsh.md#waterfall) and reports how it settled, with the turn signal
// read after it.
func (st Step) Recover(at *Attempt) Settlement {
	a := st.a
	ev := a.failures.Put(&RequestError{Agent: a, Turn: a.turn, Step: a.step, Provider: at.req.Provider,
		Failure: *at.res.finish.Reason.Failure, Signal: a.ctx})
	if at.route != nil {
		ev.RetryPolicy = at.route.RetryPolicy
	}
	action, threw := a.runWaterfall(ev)
	return Settlement{Action: action, Threw: threw, Failure: ev.Failure, Signalled: a.signalled()}
}

// Settle applies the agent's settle rule (Config.Settle, or Settle).
func (st Step) Settle(s Settlement) (retry bool, err error) {
	if st.a.cfg.Settle != nil {
		return st.a.cfg.Settle(s)
	}
	return Settle(s)
}

// Agent is the step's agent: its log, ports and inputs.
func (st Step) Agent() *Agent { return st.a }

// Messages is the derived surface now: what a request would carry.
func (st Step) Messages() []SurfaceNode {
	nodes := st.a.surface.Nodes()
	return nodes[:len(nodes):len(nodes)]
}
