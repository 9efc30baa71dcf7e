package dshview

import (
	"fmt"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
)

// Finding is a rendering invariant DSH's view code breaks on a log
// (oracle.Finding): Class is one of Classes, or "" for one that no
// recorded finding explains.
type Finding = oracle.Finding

// Class is a recorded finding about DSH 0.1.0-rc.8's view code: a
// rendering invariant its Definitions or renderers break, for a reason
// read in its code.
type Class struct {
	Name   string
	Breaks oracle.ID
	Says   string
}

// Recorded finding classes.
const (
	TurnErrorHiddenByRetry = "turn-error-hidden-by-retry"
	AuthTextInRetryRow     = "auth-text-in-retry-row"
	AssistantWithdrawnLive = "assistant-withdrawn-live"
)

// Classes are the recorded findings about DSH 0.1.0-rc.8's view code.
var Classes = []Class{{
	Name:   TurnErrorHiddenByRetry,
	Breaks: oracle.ExhaustedTurnRendersError,
	Says: "rc.8's turn-error Definition (ui-conversation, conversation-nodes/turn-error.ts) hides the turn-error node of a turn that owns " +
		"a retry chain in the loaded window (an llm/retry or llm/retry-started naming the turn): an exhausted turn shows \"Retried model " +
		"request (n/n)\" and no error; DSH's second design note retires the rule (docs/dsh.md#design-notes; view.HiddenByRetry is turnsim's copy of it)",
}, {
	Name:   AuthTextInRetryRow,
	Breaks: oracle.DisplaySafeFailure,
	Says: "a retry row's details show its attempt's failure message as the provider wrote it (ui-conversation's ModelRetryItem renders " +
		"current.failure.message), so an AUTH failure retried (always mode) shows the provider's text, which may echo a key, where the " +
		"turn-error row shows \"API key is invalid\" (docs/dsh.md#display-safe-message)",
}, {
	Name:   AssistantWithdrawnLive,
	Breaks: oracle.DiffersFromDSHView,
	Says: "rc.8's assistant-step Definition (conversation-nodes/assistant.ts) clears a step's streamed blocks only at an llm/retry: when " +
		"an attempt that streamed visible text fails and the step is attempted again without one (compaction-basic's in-step recovery), " +
		"the next attempt's first chunk leaves the step's node neither visible nor hidden, its buildViewNode returns null for a node the " +
		"page has drawn, and the assembler's flush throws (\"withdrew materialized target\"): on a page that has the session open the " +
		"Chat view stops updating until a later event of the step makes the node visible again (at the latest its message); a page " +
		"opened afterwards derives the log correctly",
}}

// withdrawn is the assembler's words when a Definition returns no node
// for one it had materialized.
const withdrawn = `conversation Definition "assistant-step" withdrew materialized target "chat"`

// liveThrow is a flush of the live page that threw, as a finding: the
// recorded one when it is the assistant step withdrawn at a new attempt
// of a step whose failed attempt had streamed visible text, with no
// llm/retry between (its signature), else a new one.
func liveThrow(events []session.Event, t Throw) Finding {
	f := Finding{Where: fmt.Sprintf("the live view, as seq %d (%s) was appended", t.Seq, t.Type), Violation: oracle.Violation{
		Invariant: oracle.DiffersFromDSHView, Seqs: []int64{t.Seq},
		Message: fmt.Sprintf("DSH's view code threw on the live page as seq %d (%s) was appended: %s", t.Seq, t.Type, t.Message)}}
	i := slices.IndexFunc(events, func(e session.Event) bool { return e.Seq == t.Seq })
	if i < 0 {
		return f
	}
	if c, ok := events[i].Data.(*session.AssistantChunk); ok {
		f.Turn, f.Step = c.Turn, c.Step
		if strings.Contains(t.Message, withdrawn) && retriedAfterVisibleFailure(events, i) {
			f.Class = AssistantWithdrawnLive
		}
	}
	return f
}

// retriedAfterVisibleFailure: the chunk at i is of an attempt that
// follows, in its step, a failed attempt that had streamed visible text,
// with no llm/retry of the step since that failure.
func retriedAfterVisibleFailure(events []session.Event, i int) bool {
	at := events[i].Data.(*session.AssistantChunk)
	failed := false
	for j := i - 1; j >= 0; j-- {
		switch p := events[j].Data.(type) {
		case *session.LLMRetry:
			if p.Turn == at.Turn && p.Step == at.Step {
				return false
			}
		case *session.StepStart:
			if p.Turn == at.Turn && p.Step == at.Step {
				return false
			}
		case *session.AssistantChunk:
			if p.Turn != at.Turn || p.Step != at.Step {
				continue
			}
			switch {
			case p.Chunk.Type == "finish" && !failed:
				if !p.Chunk.Failed() {
					return false // the attempt before succeeded
				}
				failed = true
			case p.Chunk.Type == "finish":
				return false // an attempt before the failed one ended: the failed one streamed nothing visible
			case failed && visibleDelta(p):
				return true
			}
		}
	}
	return false
}

// visibleDelta: a text or reasoning delta with more than white space.
func visibleDelta(c *session.AssistantChunk) bool {
	return (c.Chunk.Type == "text-delta" || c.Chunk.Type == "reasoning-delta") && strings.TrimSpace(c.Chunk.Text) != ""
}

// judgeNodes holds DSH's nodes of a window to exhausted-turn-renders-
// error: every error turn/end in it has its turn-error node with its
// display-safe message and code, and a node for each retry chain the
// window holds of that turn; and no retry row shows an AUTH failure's
// provider text (its details show the current attempt's message).
func judgeNodes(window []session.Event, nodes view.Nodes, where string) []Finding {
	var out []Finding
	add := func(class string, id oracle.ID, turn int, seq int64, format string, args ...any) {
		out = append(out, Finding{Class: class, Where: where, Violation: oracle.Violation{Invariant: id, Turn: turn, Seqs: []int64{seq},
			Message: "DSH's view code, in " + where + ": " + fmt.Sprintf(format, args...)}})
	}
	owns := map[int]bool{}       // turns with a retry event in the window
	chains := map[int][]string{} // turn → its chains' retryIds (retry 1 in the window)
	for i := range window {
		switch p := window[i].Data.(type) {
		case *session.LLMRetry:
			owns[p.Turn] = true
			if p.Retry == 1 && p.RetryID != "" {
				chains[p.Turn] = append(chains[p.Turn], p.RetryID)
			}
		case *session.LLMRetryStarted:
			owns[p.Turn] = true
		case *session.TurnEnd:
			if p.Reason.Kind != session.EndError || p.Reason.Error == nil {
				continue
			}
			seq := window[i].Seq
			f := p.Reason.Error
			k := slices.IndexFunc(nodes.TurnErrors, func(n view.TurnError) bool { return n.Seq == seq })
			switch {
			case k < 0 && owns[p.Turn]:
				add(TurnErrorHiddenByRetry, oracle.ExhaustedTurnRendersError, p.Turn, seq,
					"turn %d ended with error %s %q and owns a retry chain in the window: no turn-error node", p.Turn, f.Code, view.DisplayFailureMessage(f))
			case k < 0:
				add("", oracle.ExhaustedTurnRendersError, p.Turn, seq, "turn %d ended with error %s %q: no turn-error node", p.Turn, f.Code, view.DisplayFailureMessage(f))
			default:
				if n := nodes.TurnErrors[k]; n.Message != view.DisplayFailureMessage(f) || n.Code != f.Code || n.Turn != p.Turn {
					add("", oracle.ExhaustedTurnRendersError, p.Turn, seq, "turn %d's turn-error node reads turn %d %q/%s, want %q/%s",
						p.Turn, n.Turn, n.Message, n.Code, view.DisplayFailureMessage(f), f.Code)
				}
			}
			for _, id := range chains[p.Turn] {
				if !slices.ContainsFunc(nodes.ModelRetries, func(m view.ModelRetry) bool { return m.RetryID == id }) {
					add("", oracle.ExhaustedTurnRendersError, p.Turn, seq, "turn %d retried (chain %s) but no model-retry node is beside its end", p.Turn, id)
				}
			}
		}
	}
	for _, m := range nodes.ModelRetries {
		cur := m.Current()
		if cur.Failure.Code == "AUTH" && cur.Failure.Message != view.DisplayFailureMessage(&cur.Failure) {
			add(AuthTextInRetryRow, oracle.DisplaySafeFailure, m.Turn, cur.Seq,
				"the retry row of chain %s shows the AUTH failure's provider text %q in its details", m.RetryID, cur.Failure.Message)
		}
	}
	return out
}

// judgeRows holds the rows DSH's renderers drew to the rendering
// invariants (oracle.RenderViolations). What the nodes' judgement found
// in the same turn (said) is not said twice; anything else about the
// rows is a finding no recorded one explains.
func judgeRows(window []session.Event, rows []view.Row, where string, said []Finding) []Finding {
	var out []Finding
	for _, v := range oracle.RenderViolations(window, rows, "DSH's view code, in "+where+",") {
		if slices.ContainsFunc(said, func(f Finding) bool { return f.Invariant == v.Invariant && f.Turn == v.Turn }) {
			continue
		}
		out = append(out, Finding{Where: where, Violation: v})
	}
	return out
}

// dedupe keeps one finding per class, invariant and turn: a turn hidden
// in the whole log and in each of its tail windows is one finding, seen
// first in the whole log.
func dedupe(fs []Finding) []Finding {
	type key struct {
		class string
		id    oracle.ID
		turn  int
	}
	seen := map[key]bool{}
	out := fs[:0]
	for _, f := range fs {
		k := key{f.Class, f.Invariant, f.Turn}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}
