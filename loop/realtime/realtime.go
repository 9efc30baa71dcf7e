// Package realtime runs the agent loop in a real program: a Clock on
// github.com/benbjohnson/clock (clock.New() in production, clock.NewMock()
// in tests) and a Driver that runs the agent on its own goroutine while
// other goroutines send messages and cancel.
//
// The loop is single-threaded code, like DSH's on its event loop. The
// Driver holds one lock while loop code runs and releases it exactly where
// DSH awaits: inside the model stream, the clock's sleep, tool runs and the
// summarizer. Inputs from other goroutines take the lock, so they land at
// those points, as a JavaScript callback would.
package realtime

import (
	"context"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/session"
)

// Clock adapts a clock.Clock to the loop's Clock port.
type Clock struct {
	C clock.Clock
}

// Now is the clock's time.
func (c Clock) Now() time.Time { return c.C.Now() }

// Sleep waits for d on the clock, or until ctx is done.
func (c Clock) Sleep(ctx context.Context, d time.Duration) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	t := c.C.Timer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Driver runs one agent for a concurrent program.
type Driver struct {
	mu      sync.Mutex
	agent   *loop.Agent
	running sync.WaitGroup
}

// New builds the agent with ports that release the driver's lock while
// they block. Configure it (listeners, observers) inside Do.
func New(log *session.Log, cfg loop.Config, ports loop.Ports) *Driver {
	d := &Driver{}
	ports.Model = lockedModel{d, ports.Model}
	ports.Clock = lockedClock{d, ports.Clock}
	if ports.Tools != nil {
		ports.Tools = lockedTools{d, ports.Tools}
	}
	d.agent = loop.New(log, cfg, ports)
	return d
}

// Do runs f with the agent, holding the lock: for setup, and for reading
// the log or status consistently.
func (d *Driver) Do(f func(a *loop.Agent)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f(d.agent)
}

// Followup queues a message and, when the agent is idle, starts the
// driver on its own goroutine.
func (d *Driver) Followup(m session.UserMessage) {
	d.input(func(a *loop.Agent) error { return a.Followup(m) })
}

// Steer queues a message for the next step and wakes the driver.
func (d *Driver) Steer(m session.UserMessage) {
	d.input(func(a *loop.Agent) error { return a.Steer(m) })
}

func (d *Driver) input(f func(a *loop.Agent) error) {
	d.running.Add(1)
	go func() {
		defer d.running.Done()
		d.mu.Lock()
		defer d.mu.Unlock()
		_ = f(d.agent) // runs the driver when idle; a disposed agent refuses
	}()
}

// Inject queues a message for the next step without waking the driver.
func (d *Driver) Inject(m session.UserMessage) {
	d.Do(func(a *loop.Agent) { _ = a.Inject(m) }) // a disposed agent refuses
}

// Cancel cancels the current turn; safe from any goroutine.
func (d *Driver) Cancel(cause session.Cause, keepInbox bool) {
	d.Do(func(a *loop.Agent) { a.Cancel(cause, keepInbox) })
}

// Dispose disposes the agent and waits until it is idle.
func (d *Driver) Dispose() {
	d.Do(func(a *loop.Agent) { a.Dispose() })
	d.Wait()
}

// Wait blocks until every input has been handled and the agent is idle.
func (d *Driver) Wait() { d.running.Wait() }

// await releases the lock while a port blocks.
func (d *Driver) await(f func()) {
	d.mu.Unlock()
	defer d.mu.Lock()
	f()
}

type lockedModel struct {
	d *Driver
	m loop.Model
}

func (l lockedModel) Stream(ctx context.Context, req *loop.Request) (s loop.Stream, err error) {
	l.d.await(func() { s, err = l.m.Stream(ctx, req) })
	if err != nil {
		return nil, err
	}
	return lockedStream{l.d, s}, nil
}

type lockedStream struct {
	d *Driver
	s loop.Stream
}

func (l lockedStream) Next(ctx context.Context) (c session.StreamChunk, err error) {
	l.d.await(func() { c, err = l.s.Next(ctx) })
	return c, err
}

type lockedClock struct {
	d *Driver
	c loop.Clock
}

func (l lockedClock) Now() time.Time { return l.c.Now() }

func (l lockedClock) Sleep(ctx context.Context, dur time.Duration) (err error) {
	l.d.await(func() { err = l.c.Sleep(ctx, dur) })
	return err
}

type lockedTools struct {
	d *Driver
	t loop.ToolRunner
}

func (l lockedTools) Run(ctx context.Context, call loop.ToolCall) (out loop.ToolOutcome) {
	l.d.await(func() { out = l.t.Run(ctx, call) })
	return out
}

// Summarizer wraps a compaction summarizer so that it releases the
// driver's lock while it runs.
func (d *Driver) Summarizer(s compact.Summarizer) compact.Summarizer { return lockedSummarizer{d, s} }

type lockedSummarizer struct {
	d *Driver
	s compact.Summarizer
}

func (l lockedSummarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (out compact.Summary, err error) {
	l.d.await(func() { out, err = l.s.Summarize(ctx, req) })
	return out, err
}
