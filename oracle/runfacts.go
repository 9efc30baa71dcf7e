package oracle

import (
	"slices"
	"strings"

	"github.com/turnsim/turnsim/internal/arena"

	"github.com/turnsim/turnsim/loop/session"
)

// Listener names the run facts use for compaction-basic's overflow
// listener (the simulator registers it under this name).
const CompactionListener = "compaction-basic"

// checkOverflowBounded: compaction's retries are at most
// MaxOverflowRetries since the last model message (the counter also resets
// when the agent goes idle; a turn's end is taken as that reset, which can
// only undercount), and each follows a committed change of the surface.
func checkOverflowBounded(run *run, r *reporter) {
	events, facts := run.events, run.facts
	d := 0
	count := 0
	changedSince := int64(0) // seq from which a surface replacement counts
	for i := range events {
		e := &events[i]
		for ; d < len(facts.Decisions) && facts.Decisions[d].Seq <= e.Seq; d++ {
			dec := facts.Decisions[d]
			if dec.Listener != CompactionListener || !dec.Retry {
				continue
			}
			count++
			turn, step := run.at().at(dec.Seq)
			if facts.MaxOverflowRetries >= 0 && count > facts.MaxOverflowRetries {
				r.add(turn, step, []int64{dec.Seq}, "compaction's recovery %d since the last model message exceeds maxOverflowRetries %d", count, facts.MaxOverflowRetries)
			}
			if !replacedBetween(events, changedSince, dec.Seq) {
				r.add(turn, step, []int64{dec.Seq}, "compaction answered retry, but no surface replacement was committed since the failed attempt")
			}
		}
		switch p := e.Data.(type) {
		case *session.AssistantMessage:
			count = 0
		case *session.TurnEnd:
			count = 0
		case *session.AssistantChunk:
			if p.Chunk.Failed() {
				changedSince = e.Seq
			}
		}
	}
	return
}

// replacedBetween reports a surface replacement in seqs [from, to).
func replacedBetween(events []session.Event, from, to int64) bool {
	for i := from; i < to && i < int64(len(events)); i++ {
		if op := events[i].SurfaceOp; op != nil && op.Op == session.SurfaceReplace {
			return true
		}
	}
	return false
}

// checkTerminates: the run ended by itself (no bound, no stall, no panic)
// and nothing was appended after a disposal completed.
func checkTerminates(run *run, r *reporter) {
	events, facts := run.events, run.facts
	last := int64(len(events)) - 1
	if facts.Stopped != "" {
		turn, step := run.at().at(last + 1)
		var witness []int64 // none when the run stopped before its first event
		if last >= 0 {
			witness = []int64{last}
		}
		r.add(turn, step, witness, "the world stopped the run: %s", facts.Stopped)
	}
	if facts.IdleAfterDisposal >= 0 && facts.IdleAfterDisposal <= last {
		r.add(0, 0, []int64{facts.IdleAfterDisposal}, "events were appended after disposal completed (the agent went idle disposed at seq %d)", facts.IdleAfterDisposal)
	}
	return
}

// checkCancelledExact: once a cancel or disposal took effect inside a turn,
// nothing more is attempted in that turn, even when a listener answered
// retry afterwards, and the turn ends aborted with the cause of one of the
// cancels that landed in it. Which one is first is not always the first
// applied: a cancel clears the inbox before it aborts
// (docs/dsh.md#cancellation), and a cancel made inside that clearing's
// splice aborts first.
func checkCancelledExact(run *run, r *reporter) {
	events, facts, firstChunks := run.events, run.facts, run.firstChunks
	type mark struct {
		seq    int64
		cause  string
		causes []string
	}
	var first *mark
	a := 0
	reported := false
	openTurn := 0
	for i := range events {
		e := &events[i]
		for ; a < len(facts.Actions) && facts.Actions[a].Seq <= e.Seq; a++ {
			act := facts.Actions[a]
			if openTurn == 0 {
				continue
			}
			cause := act.Cause
			if act.Kind == "dispose" {
				cause = session.CauseDisposed
			}
			if first == nil {
				first = &mark{seq: act.Seq, cause: cause}
			}
			first.causes = append(first.causes, cause)
		}
		switch p := e.Data.(type) {
		case *session.TurnStart:
			openTurn, first, reported = p.Turn, nil, false
			continue
		case *session.TurnEnd:
			if first != nil && (p.Reason.Kind != session.EndAborted || p.Reason.Cause == nil || !slices.Contains(first.causes, p.Reason.Cause.Kind)) {
				r.add(p.Turn, 0, []int64{first.seq, e.Seq}, "turn %d was cancelled (%s) before seq %d but ends %s", p.Turn, strings.Join(first.causes, ", "), first.seq, reason(&p.Reason))
			}
			openTurn, first = 0, nil
			continue
		case *session.ToolResult:
			continue
		}
		if first == nil || reported {
			continue
		}
		turn, step, what := attemptLike(e, firstChunks[i])
		if _, isCall := e.Data.(*session.ToolCall); isCall && abortedBeforeDispatch(events, i) {
			what = "" // the synthetic call of a tool cancelled before dispatch
		}
		if what != "" || e.Type() == session.TypeLLMRetryStarted {
			if what == "" {
				what = e.Type()
			}
			reported = true
			r.add(turn, step, []int64{first.seq, e.Seq}, "%s after the cancel (%s) took effect before seq %d", what, first.cause, first.seq)
		}
	}
	return
}

// abortedBeforeDispatch reports a tool call whose result (the next
// tool/result naming it) is ABORTED_BEFORE_DISPATCH.
func abortedBeforeDispatch(events []session.Event, i int) bool {
	call := events[i].Data.(*session.ToolCall)
	for j := i + 1; j < len(events); j++ {
		if res, ok := events[j].Data.(*session.ToolResult); ok && res.CallID() == call.CallID {
			return res.Error != nil && res.Error.Code == "ABORTED_BEFORE_DISPATCH"
		}
	}
	return false
}

func reason(r *session.TurnEndReason) string {
	switch {
	case r.Cause != nil:
		return r.Kind + " (" + r.Cause.Kind + ")"
	case r.Error != nil:
		return r.Kind + " (" + r.Error.Code + ")"
	}
	return r.Kind
}

// lostInputs is checkNoLostInput's memory, kept from run to run.
type lostInputs struct {
	fates      map[string]*fate
	fateMemory arena.Arena[fate]
	lists      map[string][]string
	// listRooms are the lists' arrays, kept for the next run's lists.
	listRooms             map[string][]string
	pending               map[string]bool
	claimed, removed, ins []string
}

// maxListRooms bounds the inbox targets whose lists' arrays are kept: a
// log has two.
const maxListRooms = 8

// fate is what became of a message given to the agent.
type fate struct {
	inserted, entered int
	insertSeq         int64
	accounted         bool
}

// checkNoLostInput: every message the world gave the agent appears as a
// user/message exactly once, or its removal is recorded: a canceled
// splice, or a claim by a turn that aborted before the message entered a
// step (DSH loses such a message, and the claim is its only trace), or it
// is still in the inbox when the run ends.
func checkNoLostInput(run *run, r *reporter) {
	events, facts := run.events, run.facts
	mem := &run.lost
	mem.fateMemory.Reset()
	fates := arena.Emptied(mem.fates)
	lists := arena.Emptied(mem.lists)            // target → message ids in order
	claimed := mem.claimed[:0]                   // claimed by the open turn, not yet entered
	removed, ins := mem.removed[:0], mem.ins[:0] // one splice's, reused
	pending := arena.Emptied(mem.pending)
	defer func() {
		mem.fates, mem.lists, mem.pending = fates, lists, pending
		mem.claimed, mem.removed, mem.ins = claimed, removed, ins
	}()
	for i := range events {
		e := &events[i]
		switch p := e.Data.(type) {
		case *session.InboxSpliced:
			list, ok := lists[p.Target]
			if !ok {
				list = mem.listRooms[p.Target][:0]
			}
			start := min(max(p.Start, 0), len(list))
			end := min(start+p.RemovedCount, len(list))
			removed = append(removed[:0], list[start:end]...)
			ins = ins[:0]
			for _, m := range p.Inserted {
				ins = append(ins, m.ID)
				f := fates[m.ID]
				if f == nil {
					f = mem.fateMemory.New()
					f.insertSeq = e.Seq
					fates[m.ID] = f
				}
				f.inserted++
			}
			lists[p.Target] = slices.Replace(list, start, end, ins...)
			if p.Outcome == "canceled" {
				for _, id := range removed {
					if f := fates[id]; f != nil {
						f.accounted = true
					}
				}
			} else {
				claimed = append(claimed, removed...)
			}
		case *session.UserMessage:
			if f := fates[p.ID]; f != nil {
				f.entered++
				if f.entered > 1 {
					r.add(0, 0, []int64{e.Seq}, "message %s entered the history %d times", p.ID, f.entered)
				}
			}
		case *session.StepStart:
			// The claimed batch enters now (its user/messages follow).
		case *session.TurnEnd:
			for _, id := range claimed {
				if f := fates[id]; f != nil && f.entered == 0 && p.Reason.Kind == session.EndAborted {
					f.accounted = true // claimed, then lost to the abort before its step
				}
			}
			claimed = claimed[:0]
		}
	}
	for target, list := range lists {
		for _, id := range list {
			pending[id] = true
		}
		room, kept := mem.listRooms[target]
		if cap(list) > cap(room) && (kept || len(mem.listRooms) < maxListRooms) {
			if mem.listRooms == nil {
				mem.listRooms = map[string][]string{}
			}
			if !kept {
				target = strings.Clone(target) // the event's string: not kept alive by the oracle
			}
			mem.listRooms[target] = list
		}
	}
	for _, in := range facts.Inputs {
		f := fates[in.ID]
		switch {
		case in.Refused:
		case f == nil:
			r.add(0, 0, nil, "input %s never reached the inbox", in.ID)
		case f.inserted > 1:
			r.add(0, 0, []int64{f.insertSeq}, "input %s was inserted %d times", in.ID, f.inserted)
		case f.entered == 0 && !f.accounted && !pending[in.ID]:
			r.add(0, 0, []int64{f.insertSeq}, "input %s was taken from the inbox but never entered the history, and its removal is not recorded", in.ID)
		}
	}
	return
}
