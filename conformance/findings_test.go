package conformance

import (
	"testing"

	"github.com/turnsim/turnsim/loop/session"
)

// TestCancelAfterErrorFinishIsSeenByItsCitation: the finding is an
// interrupted message citing a failed finish chunk; one citing only
// text, or a message not interrupted, is not it.
func TestCancelAfterErrorFinishIsSeenByItsCitation(t *testing.T) {
	failed := session.Event{Seq: 1, Data: &session.AssistantChunk{Chunk: session.StreamChunk{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishError}}}}
	text := session.Event{Seq: 0, Data: &session.AssistantChunk{Chunk: session.StreamChunk{Type: session.ChunkTextDelta, Text: "partial"}}}
	message := func(interrupted bool, cites ...int64) session.Event {
		return session.Event{Seq: 2, SourceEventSeqs: cites, Data: &session.AssistantMessage{Interrupted: interrupted}}
	}
	for _, tt := range []struct {
		why    string
		events []session.Event
		want   bool
	}{
		{"an interrupted message citing the error finish", []session.Event{text, failed, message(true, 0, 1)}, true},
		{"an interrupted message citing text only", []session.Event{text, failed, message(true, 0)}, false},
		{"a whole message is no interruption", []session.Event{text, failed, message(false, 0, 1)}, false},
		{"a citation past the log is no citation", []session.Event{text, failed, message(true, 9)}, false},
	} {
		if got := InterruptedCitesFailure(tt.events); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.why, got, tt.want)
		}
	}
}
