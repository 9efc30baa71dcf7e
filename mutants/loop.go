package mutants

import "github.com/turnsim/turnsim/loop"

// Loop-level variants: a different rule for what follows the request-error
// waterfall (loop.SettleRule), run by the real agent in the real world.
//
// The design note's race (a loop that consumes a retry without re-checking
// the turn signal) is not here: as a settle rule it is an equivalent
// mutant, because the next attempt checks the signal before its request
// and the turn's end checks it again (20,000 seeds, no difference). The
// bug that race really is, a retry path that sends the request without
// any check, needs a variant of the attempt path itself.

// throwBecomesRetry settles a thrown waterfall as a retry: "the listener
// failed, so try the request again". SPEC 2.6–2.7: a thrown recovery
// never produces an action; the turn ends with the thrown error.
func throwBecomesRetry(s loop.Settlement) (bool, error) {
	if s.Threw != nil && !s.Signalled {
		return true, nil // the bug
	}
	return loop.Settle(s)
}
