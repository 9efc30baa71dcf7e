package session_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop/session"
)

type stepClock struct{ ms int64 }

func (c *stepClock) Now() time.Time {
	c.ms += 250
	return time.UnixMilli(c.ms)
}

// TestLogAppend: seq is the index, time comes from the clock, and a log
// built in memory writes the same lines DSH would.
func TestLogAppend(t *testing.T) {
	clock := &stepClock{ms: 1_700_000_000_000}
	l := session.NewLog(session.Header{ID: "s", CreatedAt: 1}, clock)
	l.Append(&session.InboxSpliced{Target: "next-turn", Start: 0, RemovedCount: 1})
	l.Append(&session.TurnStart{Turn: 1})
	l.Append(&session.StepStart{Turn: 1, Step: 1})
	status := 503
	l.Append(&session.AssistantChunk{Turn: 1, Step: 1, Chunk: session.StreamChunk{Type: session.ChunkFinish,
		Reason: &session.FinishReason{Kind: session.FinishError, Failure: &session.LlmFailure{Message: "upstream 503 <html>", Code: "SERVER", Status: &status}}}})
	max := 2
	l.Append(&session.LLMRetry{RetryID: "r", Turn: 1, Step: 1, Provider: "mock", Mode: "normal", PolicyKey: `["normal",2,["SERVER"],25,50,0]`,
		Retry: 1, MaxRetries: &max, DelayMs: 1.1, Failure: session.LlmFailure{Message: "upstream 503 <html>", Code: "SERVER", Status: &status}})
	l.AppendSurface(&session.UserMessage{Content: []byte(`[]`), Source: session.Source{Kind: "user"}, Role: "user", ID: "u"},
		session.SurfaceOp{Op: session.SurfaceReplace, Start: 1, End: 2}, []int64{0, 1})

	var b bytes.Buffer
	if err := session.WriteLog(&b, l.Header(), l.Events()); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"session","version":1,"id":"s","createdAt":1,"delegationDepth":0}
{"type":"agent/inbox/spliced","seq":0,"time":1700000000250,"data":{"target":"next-turn","start":0,"removedCount":1,"inserted":[]}}
{"type":"turn/start","seq":1,"time":1700000000500,"data":{"turn":1}}
{"type":"step/start","seq":2,"time":1700000000750,"data":{"turn":1,"step":1}}
{"type":"assistant/chunk","seq":3,"time":1700000001000,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"upstream 503 <html>","code":"SERVER","status":503}}}}}
{"type":"llm/retry","seq":4,"time":1700000001250,"data":{"retryId":"r","turn":1,"step":1,"provider":"mock","mode":"normal","policyKey":"[\"normal\",2,[\"SERVER\"],25,50,0]","retry":1,"maxRetries":2,"delayMs":1.1,"failure":{"message":"upstream 503 <html>","code":"SERVER","status":503}}}
{"type":"user/message","seq":5,"time":1700000001500,"data":{"content":[],"source":{"kind":"user"},"role":"user","id":"u"},"sourceEventSeqs":[0,1],"surfaceOp":{"op":"replace","start":1,"end":2}}
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("written log (-want +got):\n%s", diff)
	}
	if l.Len() != 6 || l.At(4).Type() != session.TypeLLMRetry {
		t.Errorf("Len = %d, At(4) = %s", l.Len(), l.At(4).Type())
	}
	// Reading it back and writing again gives the same bytes.
	h, events, err := session.ReadAll(bytes.NewReader(b.Bytes()), session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	session.WriteLog(&again, h, events)
	if diff := cmp.Diff(b.String(), again.String()); diff != "" {
		t.Errorf("rewrite (-first +second):\n%s", diff)
	}
}
