package loop

import "github.com/turnsim/turnsim/loop/session"

// Settlement is what a step knows once the request-error waterfall of a
// failed attempt has settled.
type Settlement struct {
	// Action is the outermost listener's answer; Threw is its throw.
	Action Action
	Threw  error
	// Failure is the failed attempt's own.
	Failure session.LlmFailure
	// Signalled: the turn signal is aborted now, after the waterfall.
	Signalled bool
}

// SettleRule decides, from a settlement, whether the step runs another
// attempt or how the turn ends. Config.Settle replaces the agent's rule
// (Settle) with a different design, for evaluating one against the same
// world and oracle; the mutant zoo's loop-level variants are built this
// way, outside this package.
type SettleRule func(s Settlement) (retry bool, err error)

// Settle is DSH's rule (docs/dsh.md#after-the-waterfall): the turn signal
// is re-checked first, so a cancel that landed during recovery wins over a
// retry a listener returned; a throw ends the turn with the thrown error;
// anything but a retry ends it with the attempt's failure.
func Settle(s Settlement) (retry bool, err error) {
	switch {
	case s.Signalled:
		return false, errAborted
	case s.Threw != nil:
		return false, s.Threw
	case s.Action != Retry:
		return false, &LLMError{Failure: s.Failure}
	}
	return true, nil
}
