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
