package mutants

import "github.com/turnsim/turnsim/loop"

// Loop-level variants run by the real agent in the real world: a different
// rule for what follows the request-error waterfall (loop.SettleRule), or
// a different attempt path (loop.AttemptPath) built from the step's own
// pieces.

// throwBecomesRetry settles a thrown waterfall as a retry: "the listener
// failed, so try the request again". SPEC 2.6–2.7: a thrown recovery
// never produces an action; the turn ends with the thrown error.
func throwBecomesRetry(s loop.Settlement) (bool, error) {
	if s.Threw != nil && !s.Signalled {
		return true, nil // the bug
	}
	return loop.Settle(s)
}

// resendWithoutRecheck is the design note's race. Once the waterfall
// answered retry, the request goes out again at once — the same target,
// the surface as it is now — without a look at the turn signal: a cancel
// that landed while a listener was deciding no longer stops the retry.
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
