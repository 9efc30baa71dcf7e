package view_test

import (
	"bytes"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/internal/sharedlogs"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
)

func readLog(t *testing.T, path string) []session.Event {
	t.Helper()
	_, events, err := session.ReadFile(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// example returns the path of a sample log under examples/logs.
func example(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", "logs", name)
}

func intp(n int) *int { return &n }

// TestExhaustedChain: a turn that exhausts a two-retry SERVER chain derives
// the retry row and the turn-error node beside it (docs/dsh.md#web-view).
func TestExhaustedChain(t *testing.T) {
	events := readLog(t, example("exhausted-server.jsonl"))
	got := view.Derive(events)
	status := 503
	failure := session.LlmFailure{Message: "upstream 503", Code: "SERVER", Status: &status}
	const t0 = 1767225601000
	want := view.Nodes{
		TurnErrors: []view.TurnError{{Seq: 15, Time: t0 + 195, Turn: 1, Step: 1, Message: "upstream 503", Code: "SERVER"}},
		ModelRetries: []view.ModelRetry{{Seq: 8, Time: t0 + 40, RetryID: "retry-1", Turn: 1, Step: 1, Attempts: []view.RetryAttempt{
			{Seq: 8, Time: t0 + 40, Retry: 1, MaxRetries: intp(2), Mode: "normal", DelayMs: 25, Failure: failure, State: view.Started},
			{Seq: 11, Time: t0 + 105, Retry: 2, MaxRetries: intp(2), Mode: "normal", DelayMs: 50, Failure: failure, State: view.Started},
		}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("nodes (-want +got):\n%s", diff)
	}
	if label := got.ModelRetries[0].Label(); label != "Retried model request (2/2) · 1s" {
		t.Errorf("label = %q", label)
	}
	if text := got.TurnErrors[0].Text(); text != "This turn failed · upstream 503 · SERVER" {
		t.Errorf("turn-error text = %q", text)
	}
}

// TestExhaustedChainTailWindows: every tail window that contains the
// turn/end derives the same turn-error node; a window that starts after the
// chain's first llm/retry derives no retry row (fact 38 of
// docs/dsh.md#test-facts).
func TestExhaustedChainTailWindows(t *testing.T) {
	events := readLog(t, example("exhausted-server.jsonl"))
	full := view.Derive(events).TurnErrors[0]
	const firstRetry = 8
	for w := range events {
		nodes := view.Derive(events[w:])
		if len(nodes.TurnErrors) != 1 {
			t.Fatalf("window from seq %d: %d turn-error nodes, want 1", w, len(nodes.TurnErrors))
		}
		got := nodes.TurnErrors[0]
		if got.Seq != full.Seq || got.Turn != full.Turn || got.Message != full.Message || got.Code != full.Code {
			t.Errorf("window from seq %d: %+v, want %+v", w, got, full)
		}
		wantRows := 0
		if w <= firstRetry {
			wantRows = 1
		}
		if len(nodes.ModelRetries) != wantRows {
			t.Errorf("window from seq %d: %d retry rows, want %d", w, len(nodes.ModelRetries), wantRows)
		}
	}
}

func ev(seq int64, p session.Payload) session.Event { return session.Event{Seq: seq, Data: p} }

// TestFact38: retry 1 started, retry 2 scheduled when its step closed: the
// states read [started, cancelled]; the tail [retry2, step/end, turn/end]
// has no retry row but the turn-error node; prepending rebuilds the chain.
func TestFact38(t *testing.T) {
	failure := session.LlmFailure{Message: "failed", Code: "TRANSPORT"}
	retry := func(n int) *session.LLMRetry {
		return &session.LLMRetry{RetryID: "r", Turn: 1, Step: 1, Provider: "mock", Mode: "normal", PolicyKey: "k", Retry: n, MaxRetries: intp(2), DelayMs: 450, Failure: failure}
	}
	events := []session.Event{
		ev(3, retry(1)),
		ev(4, &session.LLMRetryStarted{RetryID: "r", Turn: 1, Step: 1, Retry: 1}),
		ev(5, retry(2)),
		ev(6, &session.StepEnd{Turn: 1, Step: 1}),
		ev(7, &session.TurnEnd{Turn: 1, Reason: session.TurnEndReason{Kind: session.EndError, Error: &failure}}),
	}
	full := view.Derive(events)
	var states []view.AttemptState
	for _, a := range full.ModelRetries[0].Attempts {
		states = append(states, a.State)
	}
	if diff := cmp.Diff([]view.AttemptState{view.Started, view.Cancelled}, states); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	if l := full.ModelRetries[0].Label(); l != "Model request retry cancelled (2/2) · 1s" {
		t.Errorf("label = %q", l)
	}
	tail := view.Derive(events[2:])
	if len(tail.ModelRetries) != 0 {
		t.Errorf("the tail derives %d retry rows, want none (its retry 1 is outside)", len(tail.ModelRetries))
	}
	if want := []view.TurnError{{Seq: 7, Turn: 1, Step: 1, Message: "failed", Code: "TRANSPORT"}}; !cmp.Equal(want, tail.TurnErrors) {
		t.Errorf("tail turn-error (-want +got):\n%s", cmp.Diff(want, tail.TurnErrors))
	}
	if n := len(full.ModelRetries[0].Attempts); n != 2 {
		t.Errorf("prepending the missing events rebuilds %d attempts, want 2", n)
	}
	legacy := []session.Event{ev(0, &session.LLMRetry{Turn: 1, Step: 1, Retry: 1, Mode: "normal", MaxRetries: intp(2)})}
	if n := len(view.Derive(legacy).ModelRetries); n != 0 {
		t.Errorf("a retry without retryId derives %d rows, want none", n)
	}
}

func TestLabels(t *testing.T) {
	tests := []struct {
		reason string
		node   view.ModelRetry
		want   string
	}{
		{"an active retry counts down from its delay (fact 39)",
			node(view.RetryAttempt{Retry: 1, MaxRetries: intp(2), Mode: "normal", DelayMs: 450, State: view.Scheduled}),
			"Retrying model request (1/2) · 1s"},
		{"a started retry reads retried",
			node(view.RetryAttempt{Retry: 2, MaxRetries: intp(2), Mode: "normal", DelayMs: 450, State: view.Started}),
			"Retried model request (2/2) · 1s"},
		{"always mode has no maximum",
			node(view.RetryAttempt{Retry: 3, Mode: "always", DelayMs: 2.2, State: view.Started}),
			"Retried model request (3/∞) · 1s"},
		{"seconds round up",
			node(view.RetryAttempt{Retry: 1, MaxRetries: intp(5), Mode: "normal", DelayMs: 2001, State: view.Started}),
			"Retried model request (1/5) · 3s"},
		{"a zero delay still shows one second",
			node(view.RetryAttempt{Retry: 1, MaxRetries: intp(1), Mode: "normal", DelayMs: 0, State: view.Cancelled}),
			"Model request retry cancelled (1/1) · 1s"},
	}
	for _, tt := range tests {
		if got := tt.node.Label(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.reason, got, tt.want)
		}
	}
	details := node(view.RetryAttempt{DelayMs: 1.5, Failure: session.LlmFailure{Message: "raw provider text", Code: "AUTH"}}).Details()
	if diff := cmp.Diff([]string{"Retry delay: 2ms", "Failure reason: raw provider text"}, details); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
}

func node(a view.RetryAttempt) view.ModelRetry {
	return view.ModelRetry{RetryID: "r", Attempts: []view.RetryAttempt{a}}
}

func TestDisplayFailureMessage(t *testing.T) {
	if got := view.DisplayFailureMessage(&session.LlmFailure{Message: "key sk-123 rejected", Code: "AUTH"}); got != "API key is invalid" {
		t.Errorf("AUTH shows %q", got)
	}
	if got := view.DisplayFailureMessage(&session.LlmFailure{Message: "upstream 503", Code: "SERVER"}); got != "upstream 503" {
		t.Errorf("SERVER shows %q", got)
	}
}

// TestNamedSharedLogs: what DSH's own Web view shows for its logs.
func TestNamedSharedLogs(t *testing.T) {
	errorFinish := view.Derive(readLog(t, sharedlogs.Path(t, sharedlogs.ErrorFinish)))
	if want := []view.TurnError{{Seq: 11, Turn: 1, Step: 1, Message: "API key is invalid", Code: "AUTH"}}; !cmp.Equal(want, errorFinish.TurnErrors) {
		t.Errorf("error-finish turn-error (-want +got):\n%s", cmp.Diff(want, errorFinish.TurnErrors))
	}
	retry := view.Derive(readLog(t, sharedlogs.Path(t, sharedlogs.EmptyResponseRetry)))
	if len(retry.ModelRetries) != 1 || len(retry.TurnErrors) != 0 {
		t.Fatalf("empty-response-retry: %d rows, %d turn errors; want 1 row, no error", len(retry.ModelRetries), len(retry.TurnErrors))
	}
	row := retry.ModelRetries[0]
	if row.Label() != "Retried model request (1/2) · 1s" || row.Current().State != view.Started {
		t.Errorf("empty-response-retry row = %q in state %s", row.Label(), row.Current().State)
	}
}

// TestV0NewTurnRetries: a log of the retired new-turn retry model derives
// one turn-error node per failed turn after the v0→v1 edge.
func TestV0NewTurnRetries(t *testing.T) {
	got := view.Derive(readLog(t, example("v0-new-turn-retry.jsonl"))).TurnErrors
	want := []view.TurnError{
		{Seq: 6, Turn: 1, Step: 1, Message: "upstream 503", Code: "SERVER"},
		{Seq: 11, Turn: 2, Step: 1, Message: "gateway timeout", Code: "TIMEOUT"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turn errors (-want +got):\n%s", diff)
	}
	// Written as v1 and read back, the migrated log derives the same.
	h, events, err := session.ReadFile(example("v0-new-turn-retry.jsonl"), session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var v1 bytes.Buffer
	if err := session.WriteLog(&v1, h, events); err != nil {
		t.Fatal(err)
	}
	_, again, err := session.ReadAll(&v1, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, view.Derive(again).TurnErrors); diff != "" {
		t.Errorf("after a v1 rewrite (-want +got):\n%s", diff)
	}
}

// TestHiddenByRetry: under DSH 0.1.0-rc.8's released rule an error turn
// that owns a retry record shows no turn-error node, in the whole log and
// in a tail window holding only its llm/retry-started; a turn without one
// shows its node as under DSH's later rule (docs/dsh.md#turn-error-node).
func TestHiddenByRetry(t *testing.T) {
	log := `{"type":"session","version":1,"id":"x","createdAt":0,"delegationDepth":0}
{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
{"type":"step/start","seq":1,"time":0,"data":{"turn":1,"step":1}}
{"type":"assistant/chunk","seq":2,"time":0,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"busy","code":"SERVER"}}}}}
{"type":"llm/retry","seq":3,"time":0,"data":{"retryId":"r","turn":1,"step":1,"provider":"p","mode":"normal","policyKey":"k","retry":1,"maxRetries":1,"delayMs":10,"failure":{"message":"busy","code":"SERVER"}}}
{"type":"llm/retry-started","seq":4,"time":10,"data":{"retryId":"r","turn":1,"step":1,"retry":1}}
{"type":"assistant/chunk","seq":5,"time":10,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"busy","code":"SERVER"}}}}}
{"type":"step/end","seq":6,"time":10,"data":{"turn":1,"step":1}}
{"type":"turn/end","seq":7,"time":10,"data":{"turn":1,"reason":{"kind":"error","error":{"message":"busy","code":"SERVER"}}}}
{"type":"turn/start","seq":8,"time":20,"data":{"turn":2}}
{"type":"turn/end","seq":9,"time":20,"data":{"turn":2,"reason":{"kind":"error","error":{"message":"bad key","code":"AUTH"}}}}
`
	_, events, err := session.ReadAll(strings.NewReader(log), session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	turns := func(n view.Nodes) []int {
		var out []int
		for _, e := range n.TurnErrors {
			out = append(out, e.Turn)
		}
		return out
	}
	rc8 := view.Options{TurnErrors: view.HiddenByRetry}
	for _, row := range []struct {
		why    string
		window []session.Event
		o      view.Options
		want   []int
	}{
		{"DSH's later rule: every error turn", events, view.Options{}, []int{1, 2}},
		{"rc.8's rule: the retried turn hides its error", events, rc8, []int{2}},
		{"rc.8's rule in a tail window with only llm/retry-started", events[4:], rc8, []int{2}},
		{"rc.8's rule in a tail window after the retry records", events[5:], rc8, []int{1, 2}},
	} {
		if got := turns(view.DeriveWith(row.window, row.o)); !slices.Equal(got, row.want) {
			t.Errorf("%s: turn-error nodes for turns %v, want %v", row.why, got, row.want)
		}
	}
}

// TestTurnErrorStepIsTheStepThatAppearedLast: a turn-error node's step is
// the turn's step that first appears last in the events given, as DSH's
// Location timeline orders them: in a tail window that begins in step 2
// after compaction re-appended step 1's pruned tool result, that is step 1
// (DSH 0.1.0-rc.8's turn-error Definition reads steps.at(-1)); in the
// whole log, step 2.
func TestTurnErrorStepIsTheStepThatAppearedLast(t *testing.T) {
	failure := &session.LlmFailure{Message: "maximum context length exceeded", Code: "CONTEXT_WINDOW_EXCEEDED"}
	events := eventsOf(
		&session.TurnStart{Turn: 1},
		&session.StepStart{Turn: 1, Step: 1},
		&session.ToolResult{Turn: 1, Step: 1},
		&session.StepEnd{Turn: 1, Step: 1},
		&session.StepStart{Turn: 1, Step: 2},
		&session.ToolResult{Turn: 1, Step: 1}, // the pruned copy
		&session.StepEnd{Turn: 1, Step: 2},
		&session.TurnEnd{Turn: 1, Reason: session.TurnEndReason{Kind: session.EndError, Error: failure}})
	for _, tt := range []struct {
		from, step int
	}{{0, 2}, {4, 1}, {5, 2}, {6, 2}, {7, 0}} {
		if got := view.Derive(events[tt.from:]).TurnErrors; len(got) != 1 || got[0].Step != tt.step {
			t.Errorf("the window from seq %d: %+v, want step %d", tt.from, got, tt.step)
		}
	}
}

// TestTurnErrorStepReadsLaterEvents: an event after the turn's end that
// names the turn (compaction's pruned copy of an old step's tool result,
// appended in a later turn) is among the turn's steps as DSH reads them:
// in a window that begins after that step's own events, it is the step
// the node reads (seed 0x256c of --sut both --dsh-view).
func TestTurnErrorStepReadsLaterEvents(t *testing.T) {
	failure := &session.LlmFailure{Message: "invalid request", Code: "INVALID_REQUEST"}
	events := eventsOf(
		&session.TurnStart{Turn: 1},
		&session.StepStart{Turn: 1, Step: 1},
		&session.ToolResult{Turn: 1, Step: 1},
		&session.StepEnd{Turn: 1, Step: 1},
		&session.StepStart{Turn: 1, Step: 2}, // 4
		&session.StepEnd{Turn: 1, Step: 2},
		&session.TurnEnd{Turn: 1, Reason: session.TurnEndReason{Kind: session.EndError, Error: failure}},
		&session.TurnStart{Turn: 2},
		&session.StepStart{Turn: 2, Step: 1},
		&session.ToolResult{Turn: 1, Step: 1}) // the pruned copy, in turn 2
	for _, tt := range []struct{ from, to, step int }{{0, 10, 2}, {4, 10, 1}, {4, 7, 2}} {
		if got := view.Derive(events[tt.from:tt.to]).TurnErrors; len(got) != 1 || got[0].Step != tt.step {
			t.Errorf("events %d to %d: %+v, want step %d", tt.from, tt.to, got, tt.step)
		}
	}
}

// eventsOf is a log of these payloads, seq from 0.
func eventsOf(payloads ...session.Payload) []session.Event {
	events := make([]session.Event, len(payloads))
	for i, p := range payloads {
		events[i] = session.Event{Seq: int64(i), Data: p}
	}
	return events
}
