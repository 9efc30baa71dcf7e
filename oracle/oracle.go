// Package oracle checks a session log against turnsim's invariants.
//
// Every invariant has a stable, typed id ([ID]) and one sentence of meaning
// ([Invariants]). A check returns the violations it finds, each with
// witness seqs; it never prints. The log-level checks read only the log,
// so they run on logs turnsim simulated and on real DSH logs alike; the
// run-fact checks read what the simulator knows beside the log ([Facts]):
// virtual times, the model port, each listener's answers. Some invariants
// have both forms; three exist only as run facts, since they judge what a
// caller observes (a cancel that takes effect late, retries beyond a
// budget, a listener outliving its turn) and a listener that writes
// nothing leaves no trace of them in the log. The run-fact checks are a
// registry over one index of positions built once per log.
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
	"strings"
	"sync"

	"github.com/turnsim/turnsim/internal/arena"
	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
)

// ID names an invariant: stable, printed in reports, kept in corpus
// entries.
type ID string

// Invariant ids.
const (
	LogWellFormed             ID = "log-well-formed"
	RetryBudget               ID = "retry-budget"
	AttemptsWithinPolicy      ID = "attempts-within-policy"
	RetryAfterHandledFailure  ID = "retry-after-handled-failure"
	CancelledTurnNeverRetries ID = "cancelled-turn-never-retries"
	CancelTakesEffectAtOnce   ID = "cancel-takes-effect-at-once"
	FailedAttemptNotInHistory ID = "failed-attempt-not-in-history"
	ExhaustedTurnRendersError ID = "exhausted-turn-renders-error"
	BackoffHonoured           ID = "backoff-honoured"
	NonRetryableStaysTerminal ID = "non-retryable-stays-terminal"
	OverflowRecoveryBounded   ID = "overflow-recovery-bounded"
	TurnTerminates            ID = "turn-terminates"
	ListenerWithinTurn        ID = "listener-within-turn"
	NoLostInput               ID = "no-lost-input"
	// SUTPanic is a panic inside the system under test, caught by the
	// world; Nondeterminism is a run that did not reproduce byte for byte.
	SUTPanic       ID = "sut-panic"
	Nondeterminism ID = "nondeterminism"
	// DiffersFromModel is a plan on which DSH's own loop and turnsim's
	// model wrote different recovery skeletons (--sut both): no log
	// breaks an invariant, the two systems disagree.
	DiffersFromModel ID = "differs-from-model"
	// DiffersFromDSHView is a log from which DSH's own Web view code
	// (package dshview) and turnsim's view derive different nodes or
	// rows (--dsh-view).
	DiffersFromDSHView ID = "differs-from-dsh-view"
)

// Invariant is one checked property.
type Invariant struct {
	ID      ID
	Meaning string
}

// Invariants are the invariants, in the order Check reports them.
var Invariants = []Invariant{
	{LogWellFormed, "seq, turn and step numbering and nesting, llm/retry placement and pairing, and compaction brackets follow DSH's rules (docs/dsh.md#nesting, docs/dsh.md#retry-events), and every turn ends exactly once"},
	{RetryBudget, "llm/retry numbers run 1, 2, … per (turn, step, provider, policyKey) within maxRetries in normal mode, with one retryId per chain that no other chain reuses"},
	{AttemptsWithinPolicy, "no listener answers retry more often in a step than its budget allows (llm-retry: the policy's maxRetries; compaction-basic: maxOverflowRetries; a plug-in: its MaxRetries), and a step makes at most one attempt more than their sum — counted at the model port and in the listeners' answers, whether or not anything was logged (run facts)"},
	{RetryAfterHandledFailure, "every llm/retry, in-step compaction and further attempt follows an attempt of the same turn and step that failed (an error or aborted finish), and an llm/retry records that failure"},
	{CancelledTurnNeverRetries, "after an interrupted assistant message or an aborted finish nothing more is attempted in the turn, and an interrupted turn ends aborted"},
	{CancelTakesEffectAtOnce, "from a cancel or disposal that lands in an open turn to that turn's end no virtual time passes: every wait in a turn (stream, tool, backoff, summary, a listener's own) is on the turn signal, and DSH allows none that outlasts it: tools and listeners receive the signal and cooperate with it, and llm-retry's wait ends at once (docs/dsh.md#cancellation, docs/dsh.md#retry-cancellation) (run facts)"},
	{FailedAttemptNotInHistory, "an assistant message cites only the chunks of its own attempt, never those of a failed attempt, and only a successful message's tool calls run"},
	{ExhaustedTurnRendersError, "every error turn/end derives a turn-error node with its display-safe message and code, in the full log and in every tail window that contains it, beside its retry rows"},
	{BackoffHonoured, "each llm/retry's delayMs is what its policy's formula allows (or the provider's Retry-After within the cap), and the retry starts exactly that long after it"},
	{NonRetryableStaysTerminal, "a normal-mode policy never retries a failure whose code its own retryable codes (read from its policyKey) do not list"},
	{OverflowRecoveryBounded, "compaction answers retry at most maxOverflowRetries times since the last model message, and only after it committed a change of the surface (run facts)"},
	{TurnTerminates, "every run ends by itself within its bound, and nothing is appended after a disposal completed (run facts)"},
	{ListenerWithinTurn, "every request-error listener answers its failure before that failure's turn ends: none outlives its turn (run facts)"},
	{NoLostInput, "every message given to send, followup, steer or inject enters the history exactly once, or its removal is recorded, or it is still in the inbox (run facts)"},
	{SUTPanic, "the system under test never panics"},
	{Nondeterminism, "the same run, repeated, writes the same bytes"},
	{DiffersFromModel, "DSH's own loop and turnsim's model, run on the same plan, write the same recovery skeleton: the events recovery is made of, where each input and action landed, what each request carried (--sut both)"},
	{DiffersFromDSHView, "DSH's own Web view code (its conversation Definitions, assembler and row renderers) and turnsim's view, under the rule DSH renders turn errors by, derive the same turn-error and model-retry nodes and rows from the same events: the whole log, every tail window of a turn with recovery, the history paged in, and the live page (--dsh-view)"},
}

// Known reports whether id names an invariant.
func Known(id ID) bool {
	return slices.ContainsFunc(Invariants, func(inv Invariant) bool { return inv.ID == id })
}

// Meaning returns the sentence of an invariant id.
func Meaning(id ID) string {
	for _, inv := range Invariants {
		if inv.ID == id {
			return inv.Meaning
		}
	}
	return ""
}

// Violation is one broken invariant with its witnesses.
type Violation struct {
	Invariant ID      `json:"invariant"`
	Turn      int     `json:"turn,omitempty"`
	Step      int     `json:"step,omitempty"`
	Seqs      []int64 `json:"seqs"`
	Message   string  `json:"message"`
}

// Line is the violation as one line of a report: its id, where, and what.
// A message quotes the log (codes, ids, messages), so the line is made
// printable (strictjson.Printable): an ESC in a log's failure code must
// not reach the terminal.
func (v Violation) Line() string {
	var b strings.Builder
	b.WriteString(string(v.Invariant))
	if v.Turn > 0 {
		fmt.Fprintf(&b, " turn %d", v.Turn)
	}
	if v.Step > 0 {
		fmt.Fprintf(&b, " step %d", v.Step)
	}
	if len(v.Seqs) > 0 {
		b.WriteString(" seqs ")
		for i, s := range v.Seqs {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, s)
		}
	}
	if b.Len() > 0 {
		// A line about no invariant (a recorded finding that no longer
		// shows) is its message alone.
		b.WriteString(": ")
	}
	b.WriteString(v.Message)
	return strictjson.Printable(b.String())
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
	// MaxTurnEvents bounds the events of one turn a Stream takes while
	// the turn is open, its turn/start and turn/end included: what a
	// Stream keeps for a turn grows with it until it ends. 0 is
	// limits.Current.TurnEvents (--max-turn-events). Check, whose log is
	// in memory already, takes turns of any size.
	MaxTurnEvents int
}

// Check checks a log's events, given in seq order from seq 0, and returns
// the violations ordered by invariant (as in Invariants), then by first
// witness seq.
func Check(events []session.Event, opts Options) []Violation {
	// A Checker kept from check to check (memory.go): a check of many
	// small logs made a Checker, its maps and its records for each, a
	// third of what the oracle took of it.
	c := checkerPool.Get().(*Checker)
	vs := c.Check(events, opts)
	c.release()
	checkerPool.Put(c)
	return vs
}

// checkerPool holds the Checkers of Check between checks.
var checkerPool = sync.Pool{New: func() any { return new(Checker) }}

// A Checker checks log after log, as Check does, in memory it keeps from
// one to the next (memory.go): a worker's runs, checked one after the
// other, make none of the oracle's maps and records again. The zero value
// is ready to use; a Checker is one worker's, not safe for concurrent use.
// The violations it returns are the caller's.
type Checker struct {
	stream Stream
	checks checkers
	run    run
	rep    reporter
	// The log being checked, for the nodes of the view under test,
	// derived only when an error turn/end needs them: most runs have none.
	events  []session.Event
	derive  func([]session.Event) view.Nodes
	nodes   view.Nodes
	derived bool
	// full and firstChunk are the checker's methods as values, made once.
	full       func() *view.Nodes
	firstChunk func(i int64)
}

// Check checks a complete log, as the function Check does, its records
// in arenas kept for the next log.
func (c *Checker) Check(events []session.Event, opts Options) []Violation {
	if c.full == nil {
		c.full, c.firstChunk = c.fullNodes, c.markFirstChunk
	}
	c.checks.pooled = true
	c.events, c.derive, c.nodes, c.derived = events, opts.Derive, view.Nodes{}, false
	if c.derive == nil {
		c.derive = view.Derive
	}
	var timeNs []int64
	if f := opts.Facts; f != nil && len(f.TimeNs) == len(events) {
		timeNs = f.TimeNs
	}
	st := &c.stream
	st.reset(&c.checks, opts, c.full, timeNs)
	st.rendering.all = events
	f := opts.Facts
	if f == nil {
		for i := range events {
			st.Add(&events[i])
		}
		return sortViolations(st.violations())
	}
	// A run: the same stream, and the index the run-fact checks share.
	c.run.reset(events, f)
	st.onAttempt = c.firstChunk
	for i := range events {
		st.Add(&events[i])
	}
	out := st.violations()
	// One reporter for all the checks (a check's violations are copied
	// out before the next one runs).
	rep := &c.rep
	for _, check := range runChecks {
		*rep = rep.reused(check.id)
		check.check(&c.run, rep)
		out = append(out, rep.out...)
	}
	return sortViolations(out)
}

// fullNodes are the view under test's nodes of the whole log, derived at
// the first call.
func (c *Checker) fullNodes() *view.Nodes {
	if !c.derived {
		c.nodes, c.derived = c.derive(c.events), true
	}
	return &c.nodes
}

func (c *Checker) markFirstChunk(i int64) { c.run.firstChunks[i] = true }

// run is what the run-fact checks read: the log, the facts, and one index
// of positions, built once, by the first check that needs it (a run
// without a failure or a cancel needs none).
type run struct {
	events []session.Event
	facts  *Facts
	// firstChunks marks each attempt's first chunk, by index.
	firstChunks []bool
	positions   positions
	indexed     bool
	// lost is checkNoLostInput's memory.
	lost lostInputs
}

// reset makes r the run of events and f, in the memory it has.
func (r *run) reset(events []session.Event, f *Facts) {
	firstChunks := r.firstChunks[:0]
	if cap(firstChunks) < len(events) {
		firstChunks = make([]bool, 0, len(events))
	}
	firstChunks = firstChunks[:len(events)]
	clear(firstChunks)
	clear(r.positions.marks)
	clear(r.positions.ends)
	*r = run{events: events, facts: f, firstChunks: firstChunks, lost: r.lost,
		positions: positions{marks: r.positions.marks[:0], ends: r.positions.ends[:0]}}
}

// at is the run's index of positions.
func (r *run) at() *positions {
	if !r.indexed {
		r.indexed = true
		if r.positions.marks == nil {
			r.positions.marks = make([]mark, 0, 16)
		}
		for i := range r.events {
			r.positions.add(&r.events[i])
		}
	}
	return &r.positions
}

// runChecks are the checks that read a run's facts, each under its
// invariant's id: a check writes to a reporter of that id, so the
// registry is the one place an id is given. Check runs them all after the
// log-level stream.
var runChecks = []struct {
	id    ID
	check func(*run, *reporter)
}{
	{OverflowRecoveryBounded, checkOverflowBounded},
	{TurnTerminates, checkTerminates},
	{CancelledTurnNeverRetries, checkCancelledExact},
	{CancelledTurnNeverRetries, checkRequestsAfterCancel},
	{CancelTakesEffectAtOnce, checkCancelAtOnce},
	{AttemptsWithinPolicy, checkAttemptsWithinPolicy},
	{RetryAfterHandledFailure, checkSettledRetries},
	{ListenerWithinTurn, checkListenerWithinTurn},
	{NoLostInput, checkNoLostInput},
	{NoLostInput, checkInputsReachRequests},
	{SUTPanic, func(r *run, rep *reporter) {
		if r.facts.Panic != "" {
			rep.add(0, 0, []int64{int64(len(r.events)) - 1}, "%s", r.facts.Panic)
		}
	}},
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
	// turnEvents are the events taken since a turn opened (0 outside
	// one), at most maxTurnEvents (0: no bound); err is the refusal of
	// the one past it.
	turnEvents, maxTurnEvents int
	err                       error
}

// NewStream is a Stream that has seen no event. Of opts only Strict and
// MaxTurnEvents apply: a stream checks a real log against the default
// view.
func NewStream(opts Options) *Stream {
	s := newStream(Options{Strict: opts.Strict}, nil, nil)
	s.maxTurnEvents = opts.MaxTurnEvents
	if s.maxTurnEvents <= 0 {
		s.maxTurnEvents = limits.Current.TurnEvents
	}
	return s
}

func newStream(opts Options, full func() *view.Nodes, timeNs []int64) *Stream {
	s := &Stream{}
	s.reset(&checkers{}, opts, full, timeNs)
	return s
}

// checkers are a stream's checks, in one piece of memory. A Checker's
// keep their records in arenas emptied at each log (pooled); a Stream's
// make each on its own, which the garbage collector frees when the turn
// that needed it ends, so that a log of any length streams in memory
// bounded by its largest turn.
type checkers struct {
	pooled       bool
	attempts     arena.Arena[attempt]
	recoveries   arena.Arena[stepRecovery]
	chains       arena.Arena[budgetChain]
	marks        arena.Arena[cancelMark]
	retries      arena.Arena[scheduledRetry]
	seg          segmenter
	wellFormed   wellFormed
	budget       retryBudget
	handled      handledFailure
	cancelled    cancelled
	history      history
	rendering    rendering
	backoff      backoff
	nonRetryable nonRetryable
}

// reset makes s a stream that has seen no event, its checks those of cs,
// reset in the memory they have.
func (s *Stream) reset(cs *checkers, opts Options, full func() *view.Nodes, timeNs []int64) {
	cs.seg.reset()
	cs.wellFormed.reset(opts.Strict)
	cs.budget.reset()
	cs.handled.reset()
	cs.cancelled.reset()
	cs.history.reset()
	cs.rendering.reset(opts.Derive, full)
	cs.backoff.reset(timeNs, timerResolution(opts.Facts))
	cs.nonRetryable = nonRetryable{cs.nonRetryable.reused(NonRetryableStaysTerminal)}
	if cs.pooled {
		cs.attempts.Reset()
		cs.recoveries.Reset()
		cs.chains.Reset()
		cs.marks.Reset()
		cs.retries.Reset()
		cs.seg.attempts, cs.handled.recoveries, cs.budget.chainMemory = &cs.attempts, &cs.recoveries, &cs.chains
		cs.cancelled.markMemory, cs.wellFormed.retryMemory = &cs.marks, &cs.retries
	}
	*s = Stream{seg: &cs.seg, wellFormed: &cs.wellFormed, budget: &cs.budget, handled: &cs.handled, cancelled: &cs.cancelled,
		history: &cs.history, rendering: &cs.rendering, backoff: &cs.backoff, nonRetryable: &cs.nonRetryable}
}

// Add checks the next event of the log. Of the events it keeps only what
// the open turn needs (the contents of its steps' messages, for their tool
// calls), so that its memory follows the largest turn.
// An event that would make the open turn longer than MaxTurnEvents is
// refused with a *limits.Exceeded (bad input, not a violation): the
// stream then takes no more events, and Finish judges those before it.
func (s *Stream) Add(e *session.Event) error {
	if s.err != nil {
		return s.err
	}
	if s.maxTurnEvents > 0 && s.turnEvents >= s.maxTurnEvents {
		s.err = &limits.Exceeded{What: fmt.Sprintf("turn %d, still open after %d events,", s.wellFormed.openTurn, s.turnEvents),
			Limit: fmt.Sprintf("%d events a turn", s.maxTurnEvents), Flag: limits.FlagTurnEvents}
		return s.err
	}
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
	// A turn/start inside an open turn does not start the count again:
	// what the stream keeps for the open turn is kept until a turn/end.
	if s.seg.inTurn {
		s.turnEvents++
	} else {
		s.turnEvents = 0
	}
	return nil
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

func invariantOrder(id ID) int {
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
	id  ID
	out []Violation
}

func (r *reporter) add(turn, step int, seqs []int64, format string, args ...any) {
	r.out = append(r.out, Violation{Invariant: r.id, Turn: turn, Step: step, Seqs: seqs, Message: fmt.Sprintf(format, args...)})
}
