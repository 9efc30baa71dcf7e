package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Crash repair (docs/dsh.md#crash-repair): a log that ends inside an open
// turn gets synthetic closers, seqs continuing the log and the last event's
// time.

// Tool error codes of repaired results.
const (
	CodeToolOutcomeUnknown = "TOOL_OUTCOME_UNKNOWN"
	CodeToolNotStarted     = "TOOL_NOT_STARTED"
)

type pendingToolCall struct {
	id         string
	turn, step int
}

// repairTracker follows the open turn while a log streams by.
type repairTracker struct {
	openTurn, openStep int
	lastTime           int64
	blocks             []pendingToolCall // tool-call blocks of the open turn, in order
	callSeq            map[string]int64  // logged tool/call seqs
	resulted           map[string]bool
}

func (t *repairTracker) observe(e *Event) {
	t.lastTime = e.Time
	switch p := e.Data.(type) {
	case *TurnStart:
		*t = repairTracker{openTurn: p.Turn, lastTime: e.Time, callSeq: map[string]int64{}, resulted: map[string]bool{}}
	case *TurnEnd:
		t.openTurn, t.openStep, t.blocks = 0, 0, nil
	case *StepStart:
		t.openStep = p.Step
	case *StepEnd:
		t.openStep = 0
	case *AssistantMessage:
		if t.openTurn == 0 {
			return
		}
		for _, id := range ToolCallIDs(p.Message.Content) {
			t.blocks = append(t.blocks, pendingToolCall{id, p.Turn, p.Step})
		}
	case *ToolCall:
		if t.callSeq != nil {
			t.callSeq[p.CallID] = e.Seq
		}
	case *ToolResult:
		if t.resulted != nil {
			t.resulted[p.CallID()] = true
		}
	}
}

// closers returns the synthetic events that close the open turn, starting
// at seq next; none when no turn is open.
func (t *repairTracker) closers(next int64) []Event {
	if t.openTurn == 0 {
		return nil
	}
	var out []Event
	add := func(e Event) {
		e.Seq, e.Time = next, t.lastTime
		next++
		out = append(out, e)
	}
	for _, b := range t.blocks {
		if t.resulted[b.id] {
			continue
		}
		seq := next
		e := Event{SurfaceOp: &SurfaceOp{Op: SurfaceAppend}}
		toolErr := ToolError{Name: "ToolNotStartedError", Code: CodeToolNotStarted}
		text := "Error: the session ended before this tool call started."
		if callSeq, ok := t.callSeq[b.id]; ok {
			toolErr = ToolError{Name: "ToolOutcomeUnknownError", Code: CodeToolOutcomeUnknown}
			text = "Error: the session ended while this tool call ran; its outcome is unknown."
			e.SourceEventSeqs = []int64{callSeq}
		}
		e.Data = &ToolResult{
			Turn: b.turn, Step: b.step, Error: &toolErr,
			Message: &UserMessage{
				Content: toolResultContent(b.id, text),
				Source:  Source{Kind: "tool", CallID: b.id},
				Role:    "user",
				ID:      fmt.Sprintf("interrupted-tool-result-%s-%d", b.id, seq),
			},
		}
		add(e)
	}
	if t.openStep != 0 {
		add(Event{Data: &StepEnd{Turn: t.openTurn, Step: t.openStep}})
	}
	add(Event{Data: &TurnEnd{Turn: t.openTurn, Reason: TurnEndReason{Kind: EndInterrupted}}})
	return out
}

func toolResultContent(callID, text string) json.RawMessage {
	type textBlock struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	b, _ := marshal([]struct {
		Type       string      `json:"type"`
		ToolCallID string      `json:"toolCallId"`
		Content    []textBlock `json:"content"`
		IsError    bool        `json:"isError"`
	}{{"tool-result", callID, []textBlock{{"text", text}}, true}})
	return b
}

// ToolCallIDs returns the ids of the tool-call blocks of a message's content,
// in order.
func ToolCallIDs(content json.RawMessage) []string {
	if len(content) == 0 || !bytes.Contains(content, []byte(`"tool-call"`)) {
		return nil
	}
	if ids, ok := scanToolCallIDs(content); ok {
		return ids
	}
	return decodeToolCallIDs(content)
}

// HasToolCallID reports whether ToolCallIDs(content) has id, without
// making the ids: the oracle asks it of every tool call.
func HasToolCallID(content json.RawMessage, id string) bool {
	if len(content) == 0 || !bytes.Contains(content, []byte(`"tool-call"`)) {
		return false
	}
	if has, ok := scanHasToolCallID(content, id); ok {
		return has
	}
	return slices.Contains(decodeToolCallIDs(content), id)
}

// decodeToolCallIDs is ToolCallIDs by encoding/json: the definition the
// scanner (toolcalls.go) must agree with, and its fallback.
func decodeToolCallIDs(content json.RawMessage) []string {
	var blocks []struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return nil
	}
	var ids []string
	for _, b := range blocks {
		if b.Type == "tool-call" {
			ids = append(ids, b.ID)
		}
	}
	return ids
}
