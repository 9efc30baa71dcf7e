package session_test

import (
	"bytes"
	"testing"

	"github.com/turnsim/turnsim/loop/session"
)

// appendTurn appends a turn of the shapes the loop appends by copy: a
// retried attempt, a tool call and its result, a streamed answer.
func appendTurn(l *session.Log, turn int) {
	session.AppendCopy(l, &session.TurnStart{Turn: turn})
	session.AppendCopy(l, &session.StepStart{Turn: turn, Step: 1})
	session.AppendCopy(l, &session.RequestHeader{Reason: "user"})
	for k := range 3 {
		session.AppendCopy(l, &session.AssistantChunk{Turn: turn, Step: 1, Chunk: session.StreamChunk{Type: session.ChunkTextDelta, Index: k, Text: "hi"}})
	}
	content := append(l.Room(len(`[{"type":"text","text":"hi"}]`)), `[{"type":"text","text":"hi"}]`...)
	session.AppendSurfaceCopy(l, &session.AssistantMessage{Turn: turn, Step: 1, Message: session.AssistantBody{Role: "assistant", Content: content}},
		session.SurfaceOp{Op: session.SurfaceAppend}, nil)
	session.AppendCopy(l, &session.StepEnd{Turn: turn, Step: 1})
	session.AppendCopy(l, &session.TurnEnd{Turn: turn, Reason: session.TurnEndReason{Kind: "completed"}})
}

// TestStorageReused: a log in a storage another log used writes the same
// bytes as a log in memory of its own, and once the storage has grown to
// a log's size, appending by copy allocates nothing.
func TestStorageReused(t *testing.T) {
	write := func(l *session.Log) []byte {
		var b bytes.Buffer
		if err := session.WriteLog(&b, l.Header(), l.Events()); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	own := session.NewLog(session.Header{ID: "s"}, &stepClock{})
	for turn := 1; turn <= 20; turn++ {
		appendTurn(own, turn)
	}
	want := write(own)

	var st session.Storage
	// A longer log first, with other payloads, so that the next one
	// reuses memory something else was written in.
	first := session.NewLogIn(&st, session.Header{ID: "other"}, &stepClock{})
	for turn := 1; turn <= 30; turn++ {
		appendTurn(first, turn)
		session.AppendCopy(first, &session.InboxSpliced{Target: "next-turn", RemovedCount: turn})
	}
	again := session.NewLogIn(&st, session.Header{ID: "s"}, &stepClock{})
	for turn := 1; turn <= 20; turn++ {
		appendTurn(again, turn)
	}
	if got := write(again); !bytes.Equal(got, want) {
		t.Errorf("a log in a reused storage writes\n%s\nwant\n%s", got, want)
	}

	if raceEnabled {
		t.Skip("the race detector's own allocations count under -race")
	}
	allocs := testing.AllocsPerRun(50, func() {
		l := session.NewLogIn(&st, session.Header{ID: "s"}, &stepClock{})
		for turn := 1; turn <= 20; turn++ {
			appendTurn(l, turn)
		}
	})
	// The log itself and its clock: one allocation each, not one an event.
	if allocs > 2 {
		t.Errorf("a log of 20 turns in a grown storage makes %v allocations, want at most 2 (the log and its clock)", allocs)
	}
}
