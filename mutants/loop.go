package mutants

import (
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
)

// Loop-level variants run by the real agent in the real world: a different
// rule for what follows the request-error waterfall (loop.SettleRule), or
// a different attempt path (loop.AttemptPath) built from the step's own
// pieces.

// throwBecomesRetry settles a thrown waterfall as a retry: "the listener
// failed, so try the request again". In DSH a thrown recovery never
// produces an action; the turn ends with the thrown error
// (docs/dsh.md#waterfall).
func throwBecomesRetry(s loop.Settlement) (bool, error) {
	if s.Threw != nil && !s.Signalled {
		return true, nil // the bug
	}
	return loop.Settle(s)
}

// resendWithoutRecheck is the race of DSH's first design note
// (docs/dsh.md#design-notes). Once the waterfall answered retry, the
// request goes out again at once — the same target, the surface as it is
// now — without a look at the turn signal: a cancel that landed while a
// listener was deciding no longer stops the retry.
// (Dropping only the re-check after the waterfall would be an equivalent
// mutant here: Prepare checks the signal before every request, and so
// does the turn's end.)
func resendWithoutRecheck(st loop.Step) (loop.StepOutcome, error) {
	var none loop.StepOutcome
	req, route, err := st.Prepare(1)
	if err != nil {
		return none, err
	}
	for {
		at, err := st.Stream(req, route)
		if err != nil {
			return none, err
		}
		if !at.Failed() {
			return st.Succeed(at)
		}
		s := st.Recover(at)
		s.Signalled = false // the bug: the retry is consumed unchecked
		if retry, err := loop.Settle(s); !retry {
			return none, err
		}
		again := *req
		again.Attempt++
		again.Messages = st.Messages()
		req = &again
	}
}

// dropClaimsOnRetry is a retry that rebuilds its request from the history
// but leaves out the steering messages its step claimed — "they were for
// the attempt that failed". The turn's own prompt (the first claim of step
// 1) is kept. A steer that arrived mid-turn never reaches the model,
// though the log shows it entered the history.
func dropClaimsOnRetry(st loop.Step) (loop.StepOutcome, error) {
	var none loop.StepOutcome
	claimedFrom := int64(-1) // the step's first request: its claims are before it
	for attempt := 1; ; attempt++ {
		req, route, err := st.Prepare(attempt)
		if err != nil {
			return none, err
		}
		if attempt == 1 {
			claimedFrom = stepStart(req.Messages)
		} else {
			req.Messages = withoutSteers(req.Messages, claimedFrom, req.Step == 1) // the bug
			req.Tokens, req.Generation = 0, -1
			for _, m := range req.Messages {
				req.Tokens += m.Tokens
			}
		}
		at, err := st.Stream(req, route)
		if err != nil {
			return none, err
		}
		if !at.Failed() {
			return st.Succeed(at)
		}
		if retry, err := st.Settle(st.Recover(at)); !retry {
			return none, err
		}
	}
}

// stepStart is where the step's claimed user messages begin: after the
// last non-user node of the history (the previous step's reply or tool
// results), or at the start.
func stepStart(nodes []loop.SurfaceNode) int64 {
	from := int64(0)
	for _, n := range nodes {
		if n.Kind != loop.NodeUser {
			from = n.Seq + 1
		}
	}
	return from
}

// withoutSteers drops the user messages claimed from seq from on, but the
// turn's prompt when keepPrompt (it comes first in step 1's batch).
func withoutSteers(nodes []loop.SurfaceNode, from int64, keepPrompt bool) []loop.SurfaceNode {
	var kept []loop.SurfaceNode
	for _, n := range nodes {
		if n.Kind == loop.NodeUser && n.Seq >= from {
			if keepPrompt {
				keepPrompt = false
			} else {
				continue
			}
		}
		kept = append(kept, n)
	}
	return kept
}

// retryWindow is the retired Agent.retry() design: a failed attempt closes
// its turn with the error, and a retry the waterfall answered is carried
// out by queueing the turn's input again, as the input of a new numbered
// turn. The same message is then inserted into the inbox twice and, once
// that turn runs, enters the history twice (the model sees the prompt
// twice): it trips no-lost-input's "exactly once". It would also restart
// every budget with each turn, since budgets are per turn and step.
func retryWindow(st loop.Step) (loop.StepOutcome, error) {
	var none loop.StepOutcome
	at, out, done, err := firstAttempt(st)
	if done {
		return out, err
	}
	s := st.Recover(at)
	if s.Threw != nil {
		return none, s.Threw
	}
	if s.Action == loop.Retry {
		if m, ok := turnInput(st.Agent()); ok {
			st.Agent().Followup(m) // the retry window: the same input, as the next turn
		}
	}
	return none, &loop.LLMError{Failure: s.Failure}
}

// turnInput is the open turn's own input: its first user message from the
// user.
func turnInput(a *loop.Agent) (session.UserMessage, bool) {
	events := a.Log().Events()
	for i := len(events) - 1; i >= 0; i-- {
		if _, ok := events[i].Data.(*session.TurnStart); !ok {
			continue
		}
		for _, e := range events[i:] {
			if m, ok := e.Data.(*session.UserMessage); ok && m.Source.Kind == "user" {
				return *m, true
			}
		}
		return session.UserMessage{}, false
	}
	return session.UserMessage{}, false
}

// recoverAfterTurn is the waterfall not awaited — an event emitter fired
// without await: a failed attempt ends its step and turn with its failure
// at once, and the request-error listeners hear of it only once the
// turn's end is written. Whatever they answer, the turn is over; what
// they write lands after it.
func recoverAfterTurn(st loop.Step) (loop.StepOutcome, error) {
	at, out, done, err := firstAttempt(st)
	if done {
		return out, err
	}
	a := st.Agent()
	turn, pending := a.OpenTurn(), true
	a.OnAppend(func(e *session.Event) {
		if end, ok := e.Data.(*session.TurnEnd); ok && pending && end.Turn == turn {
			pending = false
			st.Recover(at) // the bug: the listeners run after the turn ended
		}
	})
	return out, &loop.LLMError{Failure: at.Failure()} // out: no outcome
}

// firstAttempt makes the step's first attempt. done: the step is over
// without a failed attempt to handle (it could not be sent, or it
// succeeded), and out and err are the step's; otherwise at failed.
func firstAttempt(st loop.Step) (at *loop.Attempt, out loop.StepOutcome, done bool, err error) {
	req, route, err := st.Prepare(1)
	if err != nil {
		return nil, out, true, err
	}
	if at, err = st.Stream(req, route); err != nil {
		return nil, out, true, err
	}
	if !at.Failed() {
		out, err = st.Succeed(at)
		return at, out, true, err
	}
	return at, out, false, nil
}
