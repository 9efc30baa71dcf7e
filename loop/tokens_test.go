package loop_test

import (
	"encoding/json"
	"testing"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/sim"
)

// TestMessageTokens holds the estimate to DSH's token meter, row by row;
// the runtime-context row is a count read off a DSH log (its shadowed
// span: the prompt plus the snapshot).
func TestMessageTokens(t *testing.T) {
	text := func(s string) json.RawMessage {
		b, _ := json.Marshal([]map[string]string{{"type": "text", "text": s}})
		return b
	}
	for _, row := range []struct {
		why     string
		content json.RawMessage
		want    int
	}{
		{"an empty text block: its framing only", text(""), 8},
		{"four characters a token, rounded up", text("hello"), 2 + 8},
		{"a character beyond the BMP is two UTF-16 units", text("🙂🙂"), 1 + 8},
		{"DSH's runtime context for /mnt: 445 characters", text(sim.DSHRuntimeContext("/mnt").Text), 112 + 8},
		{"a tool call: its name and its arguments, each rounded up",
			json.RawMessage(`[{"type":"tool-call","id":"c","name":"bash","arguments":"{\"command\":\"ls\"}"}]`), 1 + 4 + 4 + 4},
		{"a tool result: its content, framed twice",
			json.RawMessage(`[{"type":"tool-result","toolCallId":"c","content":[{"type":"text","text":"alpha\n"}],"isError":false}]`), 2 + 4 + 4 + 4},
		{"an unknown block: its JSON", json.RawMessage(`[{"type":"image","data":"abcd"}]`), 4 + 8 + 4},
	} {
		if got := loop.MessageTokens(row.content); got != row.want {
			t.Errorf("%s: %d tokens, want %d", row.why, got, row.want)
		}
	}
	if got, want := loop.TextMessageTokens("hello"), loop.MessageTokens(text("hello")); got != want {
		t.Errorf("TextMessageTokens %d, MessageTokens %d", got, want)
	}
	if got := loop.ToolResultTokens("alpha\n"); got != 14 {
		t.Errorf("ToolResultTokens: %d, want 14", got)
	}
}
