package judge

import "github.com/turnsim/turnsim/oracle"

// Principal is the violation that names a failure: the first one of an
// invariant that says what went wrong, else the first of one that says
// only how far it went, else the first.
//
// Attempts over the policy's bound and a turn the world had to stop
// follow from many bugs (a retry after a thrown recovery, a retry after a
// cancel, a budget miscounted), and log-well-formed often fires beside a
// semantic invariant: when the run breaks another invariant too, that one
// explains the bug better. It is also what a failing seed is shrunk for,
// so the seeds of one bug that overshoot by 2 attempts and by 790 shrink
// toward one plan.
func Principal(vs []oracle.Violation) oracle.Violation {
	for _, v := range vs {
		if !consequence(v.Invariant) {
			return v
		}
	}
	for _, v := range vs {
		if v.Invariant != oracle.LogWellFormed {
			return v
		}
	}
	return vs[0]
}

// consequence says whether an invariant's violation is one that other
// bugs' violations bring with them.
func consequence(id oracle.ID) bool {
	switch id {
	case oracle.LogWellFormed, oracle.AttemptsWithinPolicy, oracle.TurnTerminates:
		return true
	}
	return false
}
