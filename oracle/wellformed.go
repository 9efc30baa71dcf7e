package oracle

import (
	"math"

	"github.com/turnsim/turnsim/internal/arena"

	"github.com/turnsim/turnsim/loop/session"
)

// maxDelayMs is the largest delay a timer takes (docs/dsh.md#retry-delay).
const maxDelayMs = 2_147_483_647

type scheduledRetry struct {
	turn, step int
	started    bool
}

type retryRef struct {
	id    string
	retry int
}

// openCompaction is a compaction bracket between its start and end.
type openCompaction struct {
	id         string
	startSeq   int64
	turn       *int
	hasSummary bool
}

// wellFormed follows the nesting of a log (docs/dsh.md#nesting,
// docs/dsh.md#retry-events).
type wellFormed struct {
	reporter
	strict             bool
	openTurn, openStep int // 0 when none is open
	lastTurn           int // the last turn started
	lastStep           int // the last step started in the open turn, 0 before its first
	headerProvider     string
	retries            map[retryRef]*scheduledRetry
	calls              map[string]bool // tool calls logged in the open step
	compaction         *openCompaction
	pendingCheckpoint  *openCompaction // a summary waits for its checkpoint message
	pendingPrune       int64           // seq of a prune waiting for its tool/result, or -1
	// surface is the seqs of the model-visible nodes, in surface order.
	surface []int64
	// The maps made as the log goes, kept to be made again, and where
	// the scheduled retries live.
	spareCalls   map[string]bool
	spareRetries map[retryRef]*scheduledRetry
	retryMemory  *arena.Arena[scheduledRetry] // nil: each on its own
}

func newWellFormed(strict bool) *wellFormed {
	w := &wellFormed{}
	w.reset(strict)
	return w
}

func (w *wellFormed) reset(strict bool) {
	clear(w.surface)
	*w = wellFormed{reporter: w.reporter.reused(LogWellFormed), strict: strict, pendingPrune: -1, surface: w.surface[:0],
		spareCalls: w.spareCalls, spareRetries: w.spareRetries, retryMemory: w.retryMemory}
}

// event checks the event at index i.
func (w *wellFormed) event(i int64, e *session.Event) {
	if e.Seq != i {
		w.add(w.openTurn, w.openStep, []int64{e.Seq}, "seq %d stands at index %d: seq must equal the event's index", e.Seq, i)
	}
	w.followUps(e)
	w.applySurface(e)
	w.observe(e)
}

// turnEnded forgets the ended turn's retry schedules: a start after its
// turn ended has no schedule to pair with, which is reported as such.
func (w *wellFormed) turnEnded(turn int) {
	for ref, r := range w.retries {
		if r.turn == turn {
			delete(w.retries, ref)
		}
	}
}

// done checks what stays open at the end of a log of n events.
func (w *wellFormed) done(n int64) []Violation {
	if w.compaction != nil {
		w.add(w.openTurn, w.openStep, []int64{w.compaction.startSeq}, "compaction %s is never closed by a compaction/end", w.compaction.id)
	}
	if w.openTurn != 0 {
		w.add(w.openTurn, w.openStep, []int64{n - 1}, "turn %d never ends: the log stops inside it (after a crash, --repair closes it as DSH's loader does)", w.openTurn)
	}
	return w.out
}

// followUps checks the events that must come immediately after another: the
// checkpoint after a compaction summary, the replacing tool/result after a
// prune.
func (w *wellFormed) followUps(e *session.Event) {
	if c := w.pendingCheckpoint; c != nil {
		w.pendingCheckpoint = nil
		m, ok := e.Data.(*session.UserMessage)
		switch {
		case !ok:
			w.add(w.openTurn, w.openStep, []int64{e.Seq - 1, e.Seq}, "compaction/summary of %s is followed by %s, not by its checkpoint user/message", c.id, e.Type())
		case m.Source.CompactionID != c.id:
			w.add(w.openTurn, w.openStep, []int64{e.Seq}, "checkpoint message names compaction %q, want %q", m.Source.CompactionID, c.id)
		case e.SurfaceOp == nil || e.SurfaceOp.Op != session.SurfaceReplace:
			w.add(w.openTurn, w.openStep, []int64{e.Seq}, "checkpoint message of compaction %s does not replace a surface range", c.id)
		}
	}
	if w.pendingPrune >= 0 {
		prune := w.pendingPrune
		w.pendingPrune = -1
		if _, ok := e.Data.(*session.ToolResult); !ok || e.SurfaceOp == nil || e.SurfaceOp.Op != session.SurfaceReplace {
			w.add(w.openTurn, w.openStep, []int64{prune, e.Seq}, "compaction/prune is followed by %s, not by a replacing tool/result", e.Type())
		}
	}
}

func (w *wellFormed) inOpenStep(e *session.Event, turn, step int) {
	if w.openTurn == 0 || w.openStep == 0 {
		w.add(turn, step, []int64{e.Seq}, "%s outside an open step", e.Type())
		return
	}
	if turn != w.openTurn || step != w.openStep {
		w.add(turn, step, []int64{e.Seq}, "%s names turn %d step %d, but the open step is turn %d step %d", e.Type(), turn, step, w.openTurn, w.openStep)
	}
}

func (w *wellFormed) observe(e *session.Event) {
	switch p := e.Data.(type) {
	case *session.TurnStart:
		if w.openTurn != 0 {
			w.add(p.Turn, 0, []int64{e.Seq}, "turn/start %d while turn %d is still open", p.Turn, w.openTurn)
		}
		if want, ok := successor(w.lastTurn); !ok {
			w.add(p.Turn, 0, []int64{e.Seq}, "turn/start %d follows turn %d, the largest number a turn can have", p.Turn, w.lastTurn)
		} else if p.Turn != want {
			w.add(p.Turn, 0, []int64{e.Seq}, "turn/start %d: turns are numbered 1, 2, … across the session, want %d", p.Turn, want)
		}
		w.crossCompaction(e)
		w.openTurn, w.openStep, w.lastTurn, w.lastStep = p.Turn, 0, p.Turn, 0
	case *session.TurnEnd:
		switch {
		case w.openTurn == 0:
			w.add(p.Turn, 0, []int64{e.Seq}, "turn/end %d without an open turn (a turn ends exactly once)", p.Turn)
		case p.Turn != w.openTurn:
			w.add(p.Turn, 0, []int64{e.Seq}, "turn/end names turn %d, but turn %d is open", p.Turn, w.openTurn)
		}
		if w.openStep != 0 {
			w.add(p.Turn, w.openStep, []int64{e.Seq}, "turn/end while step %d is still open", w.openStep)
		}
		if p.Reason.Kind == session.EndInterrupted {
			// Crash repair closes steps and turns, not compaction brackets:
			// a crash during compaction leaves its start unmatched.
			w.compaction = nil
		}
		w.crossCompaction(e)
		w.openTurn, w.openStep = 0, 0
	case *session.StepStart:
		switch {
		case w.openTurn == 0:
			w.add(p.Turn, p.Step, []int64{e.Seq}, "step/start outside any turn")
		case p.Turn != w.openTurn:
			w.add(p.Turn, p.Step, []int64{e.Seq}, "step/start names turn %d, but turn %d is open", p.Turn, w.openTurn)
		}
		if w.openStep != 0 {
			w.add(p.Turn, p.Step, []int64{e.Seq}, "step/start %d while step %d is still open", p.Step, w.openStep)
		}
		if w.openTurn != 0 {
			if want, ok := successor(w.lastStep); !ok {
				w.add(p.Turn, p.Step, []int64{e.Seq}, "step/start %d follows step %d, the largest number a step can have", p.Step, w.lastStep)
			} else if p.Step != want {
				w.add(p.Turn, p.Step, []int64{e.Seq}, "step/start %d: steps of a turn are numbered 1, 2, …, want %d", p.Step, want)
			}
		}
		w.openStep, w.lastStep = p.Step, p.Step
		w.calls = arena.Fresh(&w.spareCalls)
	case *session.StepEnd:
		w.inOpenStep(e, p.Turn, p.Step)
		w.openStep = 0
	case *session.AssistantChunk:
		if w.openTurn == 0 && !w.strict {
			return // a model-replay script (see Options.Strict)
		}
		w.inOpenStep(e, p.Turn, p.Step)
	case *session.AssistantMessage:
		w.inOpenStep(e, p.Turn, p.Step)
	case *session.ToolCall:
		w.inOpenStep(e, p.Turn, p.Step)
		if w.calls != nil {
			w.calls[p.CallID] = true
		}
	case *session.ToolResult:
		if e.SurfaceOp != nil && e.SurfaceOp.Op == session.SurfaceReplace {
			return // a pruned result replaces an old one, wherever it stands
		}
		w.inOpenStep(e, p.Turn, p.Step)
		if !w.calls[p.CallID()] && (p.Error == nil || p.Error.Code != session.CodeToolNotStarted) {
			w.add(p.Turn, p.Step, []int64{e.Seq}, "tool/result for call %q without a tool/call in its step", p.CallID())
		}
	case *session.RequestHeader:
		if w.openTurn == 0 {
			w.add(0, 0, []int64{e.Seq}, "request/header outside any turn")
		}
		w.headerProvider = p.Header.Config.Provider
	case *session.RequestContext:
		if w.openTurn == 0 {
			w.add(0, 0, []int64{e.Seq}, "request/context outside any turn")
		}
	case *session.LLMRetry:
		w.checkRetryFields(e, p)
	case *session.LLMRetryStarted:
		ref := retryRef{p.RetryID, p.Retry}
		r := w.retries[ref]
		switch {
		case p.RetryID == "":
			w.add(p.Turn, p.Step, []int64{e.Seq}, "llm/retry-started without a retryId")
		case r == nil:
			w.add(p.Turn, p.Step, []int64{e.Seq}, "llm/retry-started %s retry %d has no llm/retry scheduling it", p.RetryID, p.Retry)
		case r.started:
			w.add(p.Turn, p.Step, []int64{e.Seq}, "llm/retry-started %s retry %d repeats", p.RetryID, p.Retry)
		case r.turn != p.Turn || r.step != p.Step:
			w.add(p.Turn, p.Step, []int64{e.Seq}, "llm/retry-started names turn %d step %d, but its llm/retry was in turn %d step %d", p.Turn, p.Step, r.turn, r.step)
		}
		if r != nil {
			r.started = true
		}
	case *session.CompactionStart:
		if w.compaction != nil {
			w.add(w.openTurn, w.openStep, []int64{w.compaction.startSeq, e.Seq}, "compaction %s starts while %s is open: only one compaction at a time", p.CompactionID, w.compaction.id)
		}
		w.compactionOwner(e, p.Turn)
		w.compaction = &openCompaction{id: p.CompactionID, startSeq: e.Seq, turn: p.Turn}
	case *session.CompactionSummary:
		c := w.bracket(e, p.CompactionID)
		if c == nil {
			return
		}
		if c.hasSummary {
			w.add(w.openTurn, w.openStep, []int64{e.Seq}, "compaction %s has a second summary", c.id)
		}
		c.hasSummary = true
		w.checkShadowed(e, p.ShadowedSeqs, p.ShadowedRange, p.ShadowedTokenCount)
		w.pendingCheckpoint = c
	case *session.CompactionEnd:
		c := w.bracket(e, p.CompactionID)
		if c == nil {
			return
		}
		w.compactionOwner(e, p.Turn)
		if p.Error == "" && !c.hasSummary {
			w.add(w.openTurn, w.openStep, []int64{c.startSeq, e.Seq}, "compaction %s ends successfully without a summary", c.id)
		}
		w.compaction = nil
	case *session.CompactionPrune:
		w.checkShadowed(e, p.ShadowedSeqs, p.ShadowedRange, p.ShadowedTokenCount)
		w.pendingPrune = e.Seq
	case *session.SessionEndSeed:
		// DSH ignores a compaction left unmatched before the last end of
		// seed (its "busy" check starts there).
		w.compaction = nil
	case *session.Opaque:
		if p.Type == "todo/write" && w.openTurn == 0 {
			w.add(0, 0, []int64{e.Seq}, "todo/write outside any turn")
		}
	}
}

// applySurface follows the surface: a replacement must name a range of
// nodes that exists, from its start to its end in surface order
// (docs/dsh.md#nesting: the log itself enforces it).
func (w *wellFormed) applySurface(e *session.Event) {
	op := e.SurfaceOp
	if op == nil {
		return
	}
	if op.Op != session.SurfaceReplace {
		w.surface = append(w.surface, e.Seq)
		return
	}
	first, last := -1, -1
	for i, s := range w.surface {
		if s == op.Start {
			first = i
		}
		if s == op.End {
			last = i
		}
	}
	if first < 0 || last < first {
		w.add(w.openTurn, w.openStep, []int64{e.Seq}, "%s replaces the surface range %d..%d, which is not on the surface", e.Type(), op.Start, op.End)
		return
	}
	w.surface = append(w.surface[:first], append([]int64{e.Seq}, w.surface[last+1:]...)...)
}

// checkRetryFields checks an llm/retry's placement and fields
// (docs/dsh.md#retry-events); numbering and chain identity are
// retry-budget's.
func (w *wellFormed) checkRetryFields(e *session.Event, p *session.LLMRetry) {
	w.inOpenStep(e, p.Turn, p.Step)
	if p.RetryID == "" {
		w.add(p.Turn, p.Step, []int64{e.Seq}, "llm/retry without a retryId")
	}
	if p.Retry < 1 {
		w.add(p.Turn, p.Step, []int64{e.Seq}, "llm/retry number %d is not ≥ 1", p.Retry)
	}
	if p.Provider == "" || p.PolicyKey == "" {
		w.add(p.Turn, p.Step, []int64{e.Seq}, "llm/retry needs a provider and a policyKey")
	} else if p.Provider != w.headerProvider {
		w.add(p.Turn, p.Step, []int64{e.Seq}, "llm/retry names provider %q, but the latest request/header routes to %q", p.Provider, w.headerProvider)
	}
	switch p.Mode {
	case "normal":
		if p.MaxRetries == nil || *p.MaxRetries < 1 {
			w.add(p.Turn, p.Step, []int64{e.Seq}, "normal-mode llm/retry needs maxRetries ≥ 1")
		}
	case "always":
		if p.MaxRetries != nil {
			w.add(p.Turn, p.Step, []int64{e.Seq}, "always-mode llm/retry must not carry maxRetries")
		}
	default:
		w.add(p.Turn, p.Step, []int64{e.Seq}, "llm/retry mode %q is neither normal nor always", p.Mode)
	}
	if math.IsNaN(p.DelayMs) || p.DelayMs < 0 || p.DelayMs > maxDelayMs {
		w.add(p.Turn, p.Step, []int64{e.Seq}, "llm/retry delayMs %v is outside 0..%d", p.DelayMs, maxDelayMs)
	}
	if msg := failureProblem(&p.Failure); msg != "" {
		w.add(p.Turn, p.Step, []int64{e.Seq}, "llm/retry failure: %s", msg)
	}
	// A llm/retry-started pairs with the latest schedule of its id and
	// number; a reused id is retry-budget's to report.
	if w.retries == nil {
		w.retries = arena.Fresh(&w.spareRetries)
	}
	r := w.retryMemory.New()
	*r = scheduledRetry{turn: p.Turn, step: p.Step}
	w.retries[retryRef{p.RetryID, p.Retry}] = r
}

// successor is n+1, or false when n is the largest int: a log may number
// a turn, a step or a retry so, and n+1 would wrap to the smallest int and
// be printed as the number wanted ("want retry -9223372036854775808").
func successor(n int) (int, bool) {
	if n == math.MaxInt {
		return 0, false
	}
	return n + 1, true
}

// failureProblem describes what makes an LlmFailure invalid
// (docs/dsh.md#llmfailure).
func failureProblem(f *session.LlmFailure) string {
	switch {
	case f.Message == "" || f.Code == "":
		return "message and code must be non-empty"
	case f.Status != nil && !session.ValidStatus(*f.Status):
		return "status must be an integer in 100..599"
	case f.ProviderRetryAfterMs != nil && !(*f.ProviderRetryAfterMs > 0 && !math.IsInf(*f.ProviderRetryAfterMs, 0)):
		return "providerRetryAfterMs must be finite and > 0"
	}
	return ""
}

// crossCompaction reports a bracket that a turn boundary would cross.
func (w *wellFormed) crossCompaction(e *session.Event) {
	if w.compaction != nil {
		w.add(w.openTurn, w.openStep, []int64{w.compaction.startSeq, e.Seq}, "compaction %s is still open at %s: brackets cannot cross turn boundaries", w.compaction.id, e.Type())
		w.compaction = nil
	}
}

// compactionOwner checks that a numbered bracket names the open turn and a
// null one stands outside turns.
func (w *wellFormed) compactionOwner(e *session.Event, turn *int) {
	switch {
	case turn == nil && w.openTurn != 0:
		w.add(w.openTurn, w.openStep, []int64{e.Seq}, "%s has no owning turn, but turn %d is open", e.Type(), w.openTurn)
	case turn != nil && *turn != w.openTurn:
		w.add(*turn, w.openStep, []int64{e.Seq}, "%s names turn %d, but the open turn is %d", e.Type(), *turn, w.openTurn)
	}
}

// bracket returns the open compaction an event belongs to.
func (w *wellFormed) bracket(e *session.Event, id string) *openCompaction {
	c := w.compaction
	switch {
	case c == nil:
		w.add(w.openTurn, w.openStep, []int64{e.Seq}, "%s of compaction %s outside any compaction bracket", e.Type(), id)
		return nil
	case c.id != id:
		w.add(w.openTurn, w.openStep, []int64{c.startSeq, e.Seq}, "%s names compaction %s, but %s is open", e.Type(), id, c.id)
	}
	return c
}

func (w *wellFormed) checkShadowed(e *session.Event, seqs []int64, r session.SeqRange, tokens int64) {
	switch {
	case len(seqs) == 0:
		w.add(w.openTurn, w.openStep, []int64{e.Seq}, "%s shadows no seqs", e.Type())
	case r.Start != seqs[0] || r.End != seqs[len(seqs)-1]:
		w.add(w.openTurn, w.openStep, []int64{e.Seq}, "%s shadowedRange {%d,%d} is not the first and last of shadowedSeqs", e.Type(), r.Start, r.End)
	}
	if tokens < 0 {
		w.add(w.openTurn, w.openStep, []int64{e.Seq}, "%s shadowedTokenCount %d is negative", e.Type(), tokens)
	}
}
