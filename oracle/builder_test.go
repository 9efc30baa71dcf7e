package oracle_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/loop/session"
)

// logBuilder writes a v1 log in the implied layout, one event per line, so a
// line's index is its seq. base is the seq of lines[0], for a log written
// out in parts (see flush).
type logBuilder struct {
	lines []string
	base  int64
}

func newLog() *logBuilder { return &logBuilder{} }

func (b *logBuilder) add(format string, args ...any) int64 {
	b.lines = append(b.lines, fmt.Sprintf(format, args...))
	return b.base + int64(len(b.lines)-1)
}

// flush appends the lines written so far to buf and forgets them; seqs go
// on from where they were.
func (b *logBuilder) flush(buf []byte) []byte {
	for _, l := range b.lines {
		buf = append(buf, l...)
		buf = append(buf, '\n')
	}
	b.base += int64(len(b.lines))
	b.lines = b.lines[:0]
	return buf
}

func (b *logBuilder) turnStart(turn int) int64 {
	return b.add(`{"type":"turn/start","data":{"turn":%d}}`, turn)
}
func (b *logBuilder) stepStart(turn, step int) int64 {
	return b.add(`{"type":"step/start","data":{"turn":%d,"step":%d}}`, turn, step)
}
func (b *logBuilder) stepEnd(turn, step int) int64 {
	return b.add(`{"type":"step/end","data":{"turn":%d,"step":%d}}`, turn, step)
}
func (b *logBuilder) header(provider string) int64 {
	return b.add(`{"type":"request/header","data":{"header":{"config":{"provider":%q,"model":"m"}},"reason":"initial"}}`, provider)
}
func (b *logBuilder) fail(turn, step int, code, msg string) int64 {
	return b.add(`{"type":"assistant/chunk","data":{"turn":%d,"step":%d,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":%q,"code":%q}}}}}`, turn, step, msg, code)
}
func (b *logBuilder) abortedFinish(turn, step int) int64 {
	return b.add(`{"type":"assistant/chunk","data":{"turn":%d,"step":%d,"chunk":{"type":"finish","reason":{"kind":"aborted","failure":{"message":"aborted","code":"ABORTED"}}}}}`, turn, step)
}
func (b *logBuilder) text(turn, step int, text string) int64 {
	return b.add(`{"type":"assistant/chunk","data":{"turn":%d,"step":%d,"chunk":{"type":"text-delta","index":0,"text":%q}}}`, turn, step, text)
}
func (b *logBuilder) toolCallChunk(turn, step int, id string) int64 {
	return b.add(`{"type":"assistant/chunk","data":{"turn":%d,"step":%d,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":%q,"name":"bash","arguments":"{}"}}}}`, turn, step, id)
}
func (b *logBuilder) finish(turn, step int, kind string) int64 {
	return b.add(`{"type":"assistant/chunk","data":{"turn":%d,"step":%d,"chunk":{"type":"finish","reason":{"kind":%q}}}}`, turn, step, kind)
}

// message appends an assistant/message citing seqs; calls are its tool calls.
func (b *logBuilder) message(turn, step int, interrupted bool, seqs []int64, calls ...string) int64 {
	content := `[{"type":"text","text":"hi"}`
	for _, c := range calls {
		content += fmt.Sprintf(`,{"type":"tool-call","id":%q,"name":"bash","arguments":"{}"}`, c)
	}
	content += "]"
	extra := ""
	if interrupted {
		extra = `,"interrupted":true`
	}
	return b.add(`{"type":"assistant/message","data":{"turn":%d,"step":%d,"message":{"role":"assistant","content":%s,"source":{"kind":"model","provider":"mock","model":"m"},"id":"a"}%s},"sourceEventSeqs":%s,"surfaceOp":"append"}`,
		turn, step, content, extra, seqList(seqs))
}

// success appends a text chunk, a stop finish and the message citing both.
func (b *logBuilder) success(turn, step int) int64 {
	c := b.text(turn, step, "ok")
	f := b.finish(turn, step, "stop")
	return b.message(turn, step, false, []int64{c, f})
}

// complete ends the step with a success and the turn completed.
func (b *logBuilder) complete(turn, step int) {
	b.success(turn, step)
	b.stepEnd(turn, step)
	b.turnEnd(turn, completed)
}

// failRetried appends a SERVER failure answered by llm/retry n of chain
// id and its start.
func (b *logBuilder) failRetried(turn, step int, id string, n int, max string) {
	b.fail(turn, step, "SERVER", "busy")
	b.retry(turn, step, id, n, max, "25", "SERVER", "busy")
	b.started(turn, step, id, n)
}

func (b *logBuilder) retry(turn, step int, id string, n int, max string, delay, code, msg string) int64 {
	maxField := ""
	mode := "always"
	if max != "" {
		maxField, mode = `,"maxRetries":`+max, "normal"
	}
	// The key allows any delay in [0, 50] (jitter 1) and every code the
	// tests fail with, so that only the invariant under test fires.
	key := `[\"always\",25,50,1]`
	if mode == "normal" {
		key = `[\"normal\",` + max + `,[\"AUTH\",\"RATE_LIMIT\",\"SERVER\",\"TRANSPORT\"],25,50,1]`
	}
	return b.add(`{"type":"llm/retry","data":{"retryId":%q,"turn":%d,"step":%d,"provider":"mock","mode":%q,"policyKey":"%s","retry":%d%s,"delayMs":%s,"failure":{"message":%q,"code":%q}}}`,
		id, turn, step, mode, key, n, maxField, delay, msg, code)
}
func (b *logBuilder) started(turn, step int, id string, n int) int64 {
	return b.add(`{"type":"llm/retry-started","data":{"retryId":%q,"turn":%d,"step":%d,"retry":%d}}`, id, turn, step, n)
}
func (b *logBuilder) turnEnd(turn int, reason string) int64 {
	return b.add(`{"type":"turn/end","data":{"turn":%d,"reason":%s}}`, turn, reason)
}
func (b *logBuilder) toolCall(turn, step int, id string) int64 {
	return b.add(`{"type":"tool/call","data":{"turn":%d,"step":%d,"callId":%q,"name":"bash","arguments":"{}"}}`, turn, step, id)
}

const (
	completed = `{"kind":"completed"}`
	abortedBy = `{"kind":"aborted","reason":{"kind":"user"}}`
)

func serverError(msg string) string {
	return fmt.Sprintf(`{"kind":"error","error":{"message":%q,"code":"SERVER"}}`, msg)
}

func seqList(seqs []int64) string {
	parts := make([]string, len(seqs))
	for i, s := range seqs {
		parts[i] = fmt.Sprint(s)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func (b *logBuilder) events(t *testing.T) []session.Event {
	t.Helper()
	log := `{"type":"session","version":1,"id":"t","createdAt":0,"delegationDepth":0}` + "\n" + strings.Join(b.lines, "\n") + "\n"
	_, events, err := session.ReadAll(strings.NewReader(log), session.ReadOptions{})
	if err != nil {
		t.Fatalf("the test log does not read: %v\n%s", err, log)
	}
	return events
}

// begin opens turn 1 step 1 with a request header for provider mock.
func begin() *logBuilder {
	b := newLog()
	b.turnStart(1)
	b.stepStart(1, 1)
	b.header("mock")
	return b
}
