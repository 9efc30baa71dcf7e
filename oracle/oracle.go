// Package oracle checks a session log against turnsim's invariants.
//
// Every invariant has a stable id and one sentence of meaning ([Invariants]).
// [Check] returns the violations it finds, each with witness seqs; it never
// prints. It runs on logs turnsim simulated and on real DSH logs: the
// checks here read only the log (the log-level forms); checks that need run
// facts from the simulator come later and use the same ids.
//
// Events of types the oracle does not interpret (titles, approvals, hooks,
// subagents, …) are ordering-neutral: they never cause a violation.
package oracle

import (
	"fmt"
	"slices"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
)

// Invariant ids.
const (
	LogWellFormed             = "log-well-formed"
	RetryBudget               = "retry-budget"
	RetryAfterHandledFailure  = "retry-after-handled-failure"
	CancelledTurnNeverRetries = "cancelled-turn-never-retries"
	FailedAttemptNotInHistory = "failed-attempt-not-in-history"
	ExhaustedTurnRendersError = "exhausted-turn-renders-error"
	BackoffHonoured           = "backoff-honoured"
	NonRetryableStaysTerminal = "non-retryable-stays-terminal"
	OverflowRecoveryBounded   = "overflow-recovery-bounded"
	TurnTerminates            = "turn-terminates"
	NoLostInput               = "no-lost-input"
	// SUTPanic is a panic inside the system under test, caught by the
	// world; Nondeterminism is a run that did not reproduce byte for byte.
	SUTPanic       = "sut-panic"
	Nondeterminism = "nondeterminism"
)

// Invariant is one checked property.
type Invariant struct {
	ID      string
	Meaning string
}

// Invariants are the log-level invariants, in the order Check reports them.
var Invariants = []Invariant{
	{LogWellFormed, "seq, turn and step numbering and nesting, llm/retry placement and pairing, and compaction brackets follow SPEC 1.6 and 3.8, and every turn ends exactly once"},
	{RetryBudget, "llm/retry numbers run 1, 2, … per (turn, step, provider, policyKey) within maxRetries in normal mode, with one retryId per chain that no other chain reuses"},
	{RetryAfterHandledFailure, "every llm/retry, in-step compaction and further attempt follows an attempt of the same turn and step that failed (an error or aborted finish), and an llm/retry records that failure"},
	{CancelledTurnNeverRetries, "after an interrupted assistant message or an aborted finish nothing more is attempted in the turn, and an interrupted turn ends aborted"},
	{FailedAttemptNotInHistory, "an assistant message cites only the chunks of its own attempt, never those of a failed attempt, and only a successful message's tool calls run"},
	{ExhaustedTurnRendersError, "every error turn/end derives a turn-error node with its display-safe message and code, in the full log and in every tail window that contains it, beside its retry rows"},
	{BackoffHonoured, "each llm/retry's delayMs is what its policy's formula allows (or the provider's Retry-After within the cap), and the retry starts exactly that long after it"},
	{NonRetryableStaysTerminal, "a normal-mode policy never retries a failure whose code its own retryable codes (read from its policyKey) do not list"},
	{OverflowRecoveryBounded, "compaction answers retry at most maxOverflowRetries times since the last model message, and only after it committed a change of the surface (run facts)"},
	{TurnTerminates, "every run ends by itself within its bound, and nothing is appended after a disposal completed (run facts)"},
	{NoLostInput, "every message given to send, followup, steer or inject enters the history exactly once, or its removal is recorded, or it is still in the inbox (run facts)"},
	{SUTPanic, "the system under test never panics"},
	{Nondeterminism, "the same run, repeated, writes the same bytes"},
}

// Meaning returns the sentence of an invariant id.
func Meaning(id string) string {
	for _, inv := range Invariants {
		if inv.ID == id {
			return inv.Meaning
		}
	}
	return ""
}

// Violation is one broken invariant with its witnesses.
type Violation struct {
	Invariant string  `json:"invariant"`
	Turn      int     `json:"turn,omitempty"`
	Step      int     `json:"step,omitempty"`
	Seqs      []int64 `json:"seqs"`
	Message   string  `json:"message"`
}

func (v Violation) String() string {
	return fmt.Sprintf("%s turn %d step %d seqs %v: %s", v.Invariant, v.Turn, v.Step, v.Seqs, v.Message)
}

// Options configure a check.
type Options struct {
	// Derive is the view under test; nil means view.Derive. Mutant views
	// are checked by passing them here.
	Derive func([]session.Event) view.Nodes
	// Facts are the run's facts; nil for a real log.
	Facts *Facts
	// Strict holds the log to the loop's own placement everywhere: an
	// assistant/chunk outside any turn is then a violation. Without it such
	// chunks are read as a model-replay script, which DSH's LLM-replay
	// fixtures append after (or instead of) their recorded turns.
	Strict bool
}

// Check checks a log's events, given in seq order from seq 0, and returns
// the violations ordered by invariant (as in Invariants), then by first
// witness seq.
func Check(events []session.Event, opts Options) []Violation {
	if opts.Derive == nil {
		opts.Derive = view.Derive
	}
	s := segment(events)
	var out []Violation
	out = append(out, checkWellFormed(events, opts.Strict)...)
	out = append(out, checkRetryBudget(events)...)
	out = append(out, checkHandledFailure(events, s)...)
	out = append(out, checkCancelled(events, s)...)
	out = append(out, checkHistory(events, s)...)
	out = append(out, checkRendering(events, opts.Derive)...)
	out = append(out, checkBackoff(events, opts.Facts)...)
	out = append(out, checkNonRetryable(events)...)
	out = append(out, checkOverflowBounded(events, opts.Facts)...)
	out = append(out, checkTerminates(events, opts.Facts)...)
	out = append(out, checkCancelledExact(events, opts.Facts, s)...)
	out = append(out, checkRequestsAfterCancel(opts.Facts)...)
	out = append(out, checkSettledRetries(opts.Facts)...)
	out = append(out, checkNoLostInput(events, opts.Facts)...)
	out = append(out, checkInputsReachRequests(events, opts.Facts)...)
	if f := opts.Facts; f != nil && f.Panic != "" {
		out = append(out, Violation{Invariant: SUTPanic, Seqs: []int64{int64(len(events)) - 1}, Message: f.Panic})
	}
	slices.SortStableFunc(out, func(a, b Violation) int {
		if d := invariantOrder(a.Invariant) - invariantOrder(b.Invariant); d != 0 {
			return d
		}
		return cmpInt64(first(a.Seqs), first(b.Seqs))
	})
	return out
}

func invariantOrder(id string) int {
	return slices.IndexFunc(Invariants, func(inv Invariant) bool { return inv.ID == id })
}

func first(s []int64) int64 {
	if len(s) == 0 {
		return -1
	}
	return s[0]
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// reporter collects the violations of one invariant.
type reporter struct {
	id  string
	out []Violation
}

func (r *reporter) add(turn, step int, seqs []int64, format string, args ...any) {
	r.out = append(r.out, Violation{Invariant: r.id, Turn: turn, Step: step, Seqs: seqs, Message: fmt.Sprintf(format, args...)})
}
