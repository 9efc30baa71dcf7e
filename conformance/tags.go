package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
)

// Message tags name a model-visible message the same way on both sides: a
// user prompt by its text, DSH's runtime-context snapshot and compaction
// checkpoints by what they are, an assistant message by its text and tool
// calls, a tool result by its text. Texts are cut to tagChars runes.
const tagChars = 24

// Plugins whose user messages the tags name by kind.
const (
	runtimeContextPlugin = "@deepseek-ai/dsh-system-prompt"
	checkpointPlugin     = "compact"
)

// Opening words that tell those messages apart on the wire, where the
// source is gone.
const (
	runtimeContextOpening = "Current runtime context."
	checkpointOpening     = "This is an automatically generated checkpoint"
)

// UserTag names a user message.
func UserTag(m *session.UserMessage) string {
	switch {
	case m.Source.Kind == "plugin" && m.Source.Plugin == runtimeContextPlugin:
		return "runtime-context"
	case m.Source.Kind == "plugin" && m.Source.Plugin == checkpointPlugin:
		return "checkpoint"
	case m.Source.Kind == "plugin":
		return "plugin:" + m.Source.Plugin
	}
	return quote(blocksText(m.Content))
}

// AssistantTag names an assistant message by its blocks.
func AssistantTag(content json.RawMessage) string {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
		Name string `json:"name"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return "(unreadable)"
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, quote(b.Text))
		case "tool-call":
			parts = append(parts, "call "+b.Name)
		default:
			parts = append(parts, b.Type)
		}
	}
	if len(parts) == 0 {
		return "(empty)"
	}
	return strings.Join(parts, " + ")
}

// blocksText joins the text of content blocks, tool-result content
// included.
func blocksText(content json.RawMessage) string {
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Text != "" {
			b.WriteString(bl.Text)
		} else if len(bl.Content) > 0 {
			b.WriteString(blocksText(bl.Content))
		}
	}
	return b.String()
}

// quote is a text cut to tagChars runes, quoted.
func quote(text string) string {
	runes := []rune(text)
	if len(runes) > tagChars {
		return strconv.Quote(string(runes[:tagChars]) + "…")
	}
	return strconv.Quote(text)
}

// ModelRequestTags are the tags of the messages a model request carried:
// the surface nodes at seqs, read from the log.
func ModelRequestTags(events []session.Event, seqs []int64) []string {
	tags := make([]string, 0, len(seqs))
	for _, seq := range seqs {
		if seq < 0 || int(seq) >= len(events) {
			tags = append(tags, fmt.Sprintf("(seq %d?)", seq))
			continue
		}
		switch p := events[seq].Data.(type) {
		case *session.UserMessage:
			tags = append(tags, "user "+UserTag(p))
		case *session.AssistantMessage:
			tags = append(tags, "assistant "+AssistantTag(p.Message.Content))
		case *session.ToolResult:
			text := ""
			if p.Message != nil {
				text = blocksText(p.Message.Content)
			}
			tags = append(tags, "tool "+quote(text))
		default:
			tags = append(tags, "("+events[seq].Type()+")")
		}
	}
	return tags
}

// WireRequestTags are the tags of the messages of a chat-completions
// request body (the system prompt left out).
func WireRequestTags(body json.RawMessage) ([]string, error) {
	var req struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("a request body that is not a chat-completions request: %v", err)
	}
	var tags []string
	for _, m := range req.Messages {
		text := wireText(m.Content)
		switch m.Role {
		case "system":
			continue
		case "user":
			switch {
			case strings.HasPrefix(text, runtimeContextOpening):
				tags = append(tags, "user runtime-context")
			case strings.HasPrefix(text, checkpointOpening):
				tags = append(tags, "user checkpoint")
			default:
				tags = append(tags, "user "+quote(text))
			}
		case "assistant":
			var parts []string
			if text != "" {
				parts = append(parts, quote(text))
			}
			for _, c := range m.ToolCalls {
				parts = append(parts, "call "+c.Function.Name)
			}
			if len(parts) == 0 {
				parts = append(parts, "(empty)")
			}
			tags = append(tags, "assistant "+strings.Join(parts, " + "))
		case "tool":
			tags = append(tags, "tool "+quote(text))
		default:
			tags = append(tags, m.Role+" "+quote(text))
		}
	}
	return tags, nil
}

// wireText is a wire message's content: a string, or the text of its
// parts.
func wireText(content json.RawMessage) string {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || bytes.Equal(content, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
