package realtime_test

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/realtime"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
)

// failOnceModel fails its first request with SERVER and answers the next.
type failOnceModel struct {
	mu    sync.Mutex
	calls int
}

func (m *failOnceModel) Stream(ctx context.Context, req *loop.Request) (loop.Stream, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.calls == 1 {
		return &chunks{err: &loop.LLMError{Failure: session.LlmFailure{Message: "upstream 503", Code: "SERVER"}}}, nil
	}
	return &chunks{list: []session.StreamChunk{
		{Type: session.ChunkTextDelta, Text: "recovered"},
		{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishStop}},
	}}, nil
}

type chunks struct {
	list []session.StreamChunk
	err  error
}

func (c *chunks) Next(ctx context.Context) (session.StreamChunk, error) {
	if len(c.list) == 0 {
		if c.err != nil {
			return session.StreamChunk{}, c.err
		}
		return session.StreamChunk{}, io.EOF
	}
	next := c.list[0]
	c.list = c.list[1:]
	return next, nil
}

type fixedRandom struct{}

func (fixedRandom) Float64() float64 { return 0.5 }

type counterIDs struct {
	mu sync.Mutex
	n  int
}

func (c *counterIDs) NewID(kind string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return fmt.Sprintf("%s-%d", kind, c.n)
}

// newDriver builds a driver whose route retries SERVER once after 500 ms,
// and reports each llm/retry on the returned channel.
func newDriver(t *testing.T, mock *clock.Mock) (*realtime.Driver, *session.Log, <-chan struct{}) {
	c := realtime.Clock{C: mock}
	log := session.NewLog(session.Header{ID: "realtime"}, c)
	policy := &loop.RetryPolicy{Mode: loop.ModeNormal, MaxRetries: 1, RetryableCodes: []string{"SERVER"}, InitialDelayMs: 500, MaxDelayMs: 500}
	d := realtime.New(log, loop.Config{Target: loop.Target{Provider: "mock", Model: "m"}, Routes: map[string]*loop.Route{"mock": {RetryPolicy: policy}}},
		loop.Ports{Model: &failOnceModel{}, Clock: c, Random: fixedRandom{}, IDs: &counterIDs{}})
	scheduled := make(chan struct{}, 1)
	d.Do(func(a *loop.Agent) {
		retry.Install(a)
		a.OnAppend(func(e *session.Event) {
			if e.Type() == session.TypeLLMRetry {
				scheduled <- struct{}{}
			}
		})
	})
	return d, log, scheduled
}

func message(text string) session.UserMessage {
	content, _ := session.Marshal([]map[string]string{{"type": "text", "text": text}})
	return session.UserMessage{Content: content, Source: session.Source{Kind: "user"}, Role: "user", ID: "u-" + text}
}

func wait(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second): // real time: a hung test, not a slow one
		t.Fatal("the driver never scheduled its retry")
	}
}

func lastEvents(d *realtime.Driver) (events []session.Event) {
	d.Do(func(a *loop.Agent) { events = append(events, a.Log().Events()...) })
	return events
}

// TestCancelFromAnotherGoroutine: a cancel that arrives from a second
// goroutine during the backoff wait ends the turn aborted, with no
// llm/retry-started and no second request.
func TestCancelFromAnotherGoroutine(t *testing.T) {
	mock := clock.NewMock()
	d, _, scheduled := newDriver(t, mock)
	d.Followup(message("hello"))
	wait(t, scheduled)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		d.Cancel(session.Cause{Kind: session.CauseUser}, false)
	}()
	wg.Wait()
	d.Wait()
	events := lastEvents(d)
	for _, e := range events {
		if e.Type() == session.TypeLLMRetryStarted {
			t.Errorf("seq %d: llm/retry-started after the cancel", e.Seq)
		}
	}
	end, ok := events[len(events)-1].Data.(*session.TurnEnd)
	if !ok || end.Reason.Kind != session.EndAborted || end.Reason.Cause.Kind != session.CauseUser {
		t.Errorf("the last event is %s %+v, want turn/end aborted (user)", events[len(events)-1].Type(), events[len(events)-1].Data)
	}
	if vs := oracle.Check(events, oracle.Options{Strict: true}); len(vs) > 0 {
		t.Errorf("violations: %v", vs)
	}
}

// TestMockClockAdvancedFromAnotherGoroutine: the backoff ends when another
// goroutine moves the mock clock past it; the turn then completes.
func TestMockClockAdvancedFromAnotherGoroutine(t *testing.T) {
	mock := clock.NewMock()
	d, _, scheduled := newDriver(t, mock)
	d.Followup(message("hello"))
	wait(t, scheduled)
	done := make(chan struct{})
	go func() {
		// The timer may not exist yet when the retry is logged: keep
		// moving the clock until the driver is done.
		for {
			select {
			case <-done:
				return
			default:
				mock.Add(100 * time.Millisecond)
			}
		}
	}()
	d.Wait()
	close(done)
	events := lastEvents(d)
	end, ok := events[len(events)-1].Data.(*session.TurnEnd)
	if !ok || end.Reason.Kind != session.EndCompleted {
		t.Fatalf("the last event is %s, want turn/end completed", events[len(events)-1].Type())
	}
	var retryAt, startedAt int64
	for _, e := range events {
		switch e.Type() {
		case session.TypeLLMRetry:
			retryAt = e.Time
		case session.TypeLLMRetryStarted:
			startedAt = e.Time
		}
	}
	if startedAt-retryAt < 500 {
		t.Errorf("the retry started %d ms after its llm/retry, want ≥ 500", startedAt-retryAt)
	}
	if vs := oracle.Check(events, oracle.Options{Strict: true}); len(vs) > 0 {
		t.Errorf("violations: %v", vs)
	}
}
