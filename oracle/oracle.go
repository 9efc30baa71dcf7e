// Package oracle checks a session log against turnsim's invariants.
//
// Every invariant has a stable id and one sentence of meaning ([Invariants]).
// A check returns the violations it finds, each with witness seqs; it never
// prints. The log-level checks read only the log, so they run on logs
// turnsim simulated and on real DSH logs alike; the run-fact checks read
// what the simulator knows beside the log ([Facts]) and use the same ids.
//
// Each log-level check follows the log one event at a time and keeps only
// what the open turn needs and the few indexes that span turns: [Stream]
// checks a log of any length as it is read, and [Check] feeds it a log in
// memory, then adds the run-fact checks.
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
	var full *view.Nodes
	if opts.Derive != nil {
		nodes := opts.Derive(events)
		full = &nodes
	}
	var timeNs []int64
	if f := opts.Facts; f != nil && len(f.TimeNs) == len(events) {
		timeNs = f.TimeNs
	}
	st := newStream(opts, full, timeNs)
	st.rendering.all = events
	var firstChunks []bool // for the run-facts checks: each attempt's first chunk
	if opts.Facts != nil {
		firstChunks = make([]bool, len(events))
		st.onAttempt = func(i int64) { firstChunks[i] = true }
	}
	for i := range events {
		st.Add(&events[i])
	}
	out := st.violations()
	if f := opts.Facts; f != nil {
		out = append(out, checkOverflowBounded(events, f)...)
		out = append(out, checkTerminates(events, f)...)
		out = append(out, checkCancelledExact(events, f, firstChunks)...)
		out = append(out, checkRequestsAfterCancel(f)...)
		out = append(out, checkSettledRetries(f)...)
		out = append(out, checkNoLostInput(events, f)...)
		out = append(out, checkInputsReachRequests(events, f)...)
		if f.Panic != "" {
			out = append(out, Violation{Invariant: SUTPanic, Seqs: []int64{int64(len(events)) - 1}, Message: f.Panic})
		}
	}
	return sortViolations(out)
}

// Stream checks a log as it is read, event by event, against the
// log-level invariants (a real log's: no run facts) and the default view.
// It keeps what the open turn needs and the indexes that span turns (retry
// ids, the surface's seqs, unstarted retries), never the log: a log of any
// length is checked in memory proportional to its largest turn.
type Stream struct {
	n            int64 // events added
	seg          *segmenter
	wellFormed   *wellFormed
	budget       *retryBudget
	handled      *handledFailure
	cancelled    *cancelled
	history      *history
	rendering    *rendering
	backoff      *backoff
	nonRetryable *nonRetryable
	// onAttempt, if set, hears of the index of each attempt's first chunk.
	onAttempt func(i int64)
}

// NewStream is a Stream that has seen no event. Of opts only Strict
// applies: a stream checks a real log against the default view.
func NewStream(opts Options) *Stream {
	return newStream(Options{Strict: opts.Strict}, nil, nil)
}

func newStream(opts Options, full *view.Nodes, timeNs []int64) *Stream {
	derive := opts.Derive
	if derive == nil {
		derive = view.Derive
	}
	return &Stream{
		seg:          newSegmenter(),
		wellFormed:   newWellFormed(opts.Strict),
		budget:       newRetryBudget(),
		handled:      newHandledFailure(),
		cancelled:    newCancelled(),
		history:      newHistory(),
		rendering:    newRendering(derive, full),
		backoff:      newBackoff(timeNs),
		nonRetryable: &nonRetryable{reporter{id: NonRetryableStaysTerminal}},
	}
}

// Add checks the next event of the log. The stream keeps a copy of the
// event while its turn is open, never a pointer to it.
func (s *Stream) Add(e *session.Event) {
	i := s.n
	s.n++
	a := s.seg.add(i, e)
	if a != nil && s.onAttempt != nil && a.chunks[0] == e.Seq {
		s.onAttempt(i)
	}
	s.wellFormed.event(i, e)
	s.budget.event(e)
	s.handled.event(e, a)
	s.cancelled.event(e, a)
	s.history.event(e, s.seg)
	s.rendering.event(i, e)
	s.backoff.event(i, e)
	s.nonRetryable.event(e)
	if p, ok := e.Data.(*session.TurnEnd); ok {
		s.seg.turnEnded(p.Turn)
		s.wellFormed.turnEnded(p.Turn)
		s.budget.turnEnded(p.Turn)
		s.handled.turnEnded(p.Turn)
		s.history.turnEnded(p.Turn)
	}
}

// Finish checks the end of the log and returns the violations, ordered as
// Check orders them.
func (s *Stream) Finish() []Violation { return sortViolations(s.violations()) }

// violations are the reports of every check, in the order of Invariants.
func (s *Stream) violations() []Violation {
	var out []Violation
	out = append(out, s.wellFormed.done(s.n)...)
	out = append(out, s.budget.out...)
	out = append(out, s.handled.out...)
	out = append(out, s.cancelled.out...)
	out = append(out, s.history.out...)
	out = append(out, s.rendering.out...)
	out = append(out, s.backoff.done()...)
	out = append(out, s.nonRetryable.out...)
	return out
}

func sortViolations(out []Violation) []Violation {
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
