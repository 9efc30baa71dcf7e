package baseline

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// model answers requests from the scenario's list, then "ok", as the
// world's scripted model does; its waits are on the mock clock.
type model struct {
	mu        sync.Mutex
	s         *sim.Scenario
	clock     loop.Clock
	next      int
	answering *sim.Outcome
}

func (m *model) Stream(ctx context.Context, req *loop.Request) (loop.Stream, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	elapsed := float64(m.clock.Now().Sub(sim.Epoch)) / float64(time.Millisecond)
	tokens := req.Tokens
	n := m.next
	out := sim.Outcome{Text: ptr("ok")}
	switch outage := m.s.OutageAt(elapsed); {
	case outage != nil:
		f := outage.Fail
		out = sim.Outcome{Fail: &f}
	case m.s.EnforceContextWindow && tokens > m.s.ContextWindow:
		out = sim.Outcome{Fail: &session.LlmFailure{Code: "CONTEXT_WINDOW_EXCEEDED", Status: ptr(400), Message: "context window exceeded"}}
	default:
		if m.next < len(m.s.Requests) {
			out = m.s.Requests[m.next]
		}
		m.next++
	}
	m.answering = &out
	return sim.Play(out, n, m.clock, m.s.StreamIdleTimeoutMs), nil
}

func (m *model) throwing() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.answering != nil && m.answering.ListenerThrows
}

// tools answer each call with the result its request scripted.
type tools struct {
	s     *sim.Scenario
	clock loop.Clock
}

func (t tools) Run(ctx context.Context, call loop.ToolCall) loop.ToolOutcome {
	spec := sim.ToolCallSpec{Result: "ok"}
	for r, out := range t.s.Requests {
		for k, c := range out.ToolCalls {
			if sim.ToolCallID(r, k) == call.ID {
				spec = c
			}
		}
	}
	if err := t.clock.Sleep(ctx, duration(spec.LatencyMs)); err != nil {
		return loop.ToolOutcome{Text: "Error: tool call aborted: " + err.Error(), IsError: true}
	}
	return loop.ToolOutcome{Text: spec.Result, IsError: spec.IsError}
}

// summarizer answers compactions from the scenario's list.
type summarizer struct {
	mu    sync.Mutex
	s     *sim.Scenario
	clock loop.Clock
	next  int
}

func (z *summarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (compact.Summary, error) {
	z.mu.Lock()
	out := sim.SummaryOutcome{Text: ptr("ok")}
	if z.next < len(z.s.Summaries) {
		out = z.s.Summaries[z.next]
	}
	z.next++
	z.mu.Unlock()
	return sim.PlaySummary(ctx, out, z.clock)
}

// ids numbers ids per kind; the driver's goroutines share it.
type ids struct {
	mu   sync.Mutex
	next map[string]int
}

func (c *ids) NewID(kind string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.next == nil {
		c.next = map[string]int{}
	}
	c.next[kind]++
	return kind + "-" + strconv.Itoa(c.next[kind])
}

// fixedRandom cycles a scenario's samples.
type cycle struct {
	mu      sync.Mutex
	samples []float64
	i       int
}

func (c *cycle) Float64() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.samples[c.i%len(c.samples)]
	c.i++
	return v
}

// lockedRandom guards a stream shared by goroutines.
type lockedRandom struct {
	mu sync.Mutex
	r  loop.Random
}

func (l *lockedRandom) Float64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Float64()
}

func ptr[T any](v T) *T { return &v }

func duration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
