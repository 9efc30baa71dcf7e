package compact

import (
	"encoding/json"

	"github.com/turnsim/turnsim/loop/session"
)

// checkpointPreamble opens every checkpoint message; its words are DSH's,
// as they appear in DSH's logs.
const checkpointPreamble = "This is an automatically generated checkpoint condensing an earlier span of the conversation to free up context. Treat the captured context as established background and build on it without restating it. Continue the task directly from the messages that follow, without acknowledging this checkpoint."

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func summaryBlocks(text string) json.RawMessage {
	b, _ := session.Marshal([]textBlock{{"text", text}})
	return b
}

// The checkpoint's first and last blocks, around the summary.
const (
	checkpointOpening = checkpointPreamble + "\n\n<compacted-summary>"
	checkpointClosing = "</compacted-summary>"
)

// checkpointContent is [preamble and opening tag, summary, closing tag].
func checkpointContent(summary string) json.RawMessage {
	b, _ := session.Marshal([]textBlock{{"text", checkpointOpening}, {"text", summary}, {"text", checkpointClosing}})
	return b
}

func usage(s Summary) json.RawMessage {
	if s.InputTokens == 0 && s.OutputTokens == 0 {
		return nil
	}
	b, _ := session.Marshal(struct {
		InputTokens  int `json:"inputTokens"`
		OutputTokens int `json:"outputTokens"`
	}{s.InputTokens, s.OutputTokens})
	return b
}
