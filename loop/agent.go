package loop

import (
	"context"
	"errors"

	"github.com/turnsim/turnsim/internal/arena"
	"github.com/turnsim/turnsim/loop/session"
)

// Status is the public status: running only while a driver runs.
type Status string

// Statuses.
const (
	StatusIdle    Status = "idle"
	StatusRunning Status = "running"
)

// Inbox targets.
const (
	NextTurn = "next-turn"
	NextStep = "next-step"
)

// ErrDisposed is returned by inputs to a disposed agent.
var ErrDisposed = errors.New("loop: the agent is disposed")

// Agent is one agent loop writing one session log. It is not safe for
// concurrent use; see Driver for a goroutine-safe wrapper.
type Agent struct {
	log   *session.Log
	cfg   Config
	ports Ports
	// attempts, requests and failures are where the attempts, their
	// requests and the waterfall's payloads live (nil: each on its own).
	attempts *arena.Arena[attemptMemory]
	requests *arena.Arena[Request]
	failures *arena.Arena[RequestError]

	listeners  []namedListener
	onAppend   []func(*session.Event)
	onStatus   []func(Status)
	onDecision []func(*Decision)
	// The waterfall's working memory (waterfall.go): the chains being
	// run, a frame per listener running, and the remove functions made.
	chains     []namedListener
	frames     []*frame
	framesUsed int
	keepFrames bool // in a Memory: frames are handed out again run after run
	listening  int
	removers   []remover
	decision   Decision

	surface Surface
	context contextProjection

	// inbox
	nextTurn, nextStep []session.UserMessage

	// phase
	running bool
	// drives counts the drivers started, for a send's wake (Send).
	drives        int
	lastTurn      int
	turn, step    int
	openTurn      int
	ctx           context.Context
	cancel        context.CancelCauseFunc
	cause         *session.Cause // the first cause of the current activity
	wakeRequested bool
	disposed      bool

	// per loop instance: whether a request was made yet, and the last
	// header and context logged
	requested   bool
	lastHeader  Target
	lastContext requestContext
}

type requestContext struct {
	provider, model string
	window          int
}

// New starts an agent writing to log. The log may hold earlier history
// (turn numbering continues from its last turn/start).
func New(log *session.Log, cfg Config, ports Ports) *Agent {
	var a *Agent
	if m := cfg.Memory; m != nil {
		a = m.agent(log, cfg, ports)
	} else {
		a = &Agent{log: log, cfg: cfg, ports: ports}
	}
	a.surface.log = log
	for i := range log.Events() {
		e := log.At(int64(i))
		a.surface.apply(e)
		a.context.observe(e)
		if t, ok := e.Data.(*session.TurnStart); ok {
			a.lastTurn = t.Turn
		}
	}
	return a
}

// Log is the agent's session log.
func (a *Agent) Log() *session.Log { return a.log }

// Clock, Random and IDs are the agent's ports, for listeners.
func (a *Agent) Clock() Clock   { return a.ports.Clock }
func (a *Agent) Random() Random { return a.ports.Random }
func (a *Agent) IDs() IDs       { return a.ports.IDs }

// Surface is the derived message history.
func (a *Agent) Surface() *Surface { return &a.surface }

// Status is the public status.
func (a *Agent) Status() Status {
	if a.running {
		return StatusRunning
	}
	return StatusIdle
}

// OpenTurn is the turn between its turn/start and turn/end, or 0.
func (a *Agent) OpenTurn() int { return a.openTurn }

// OnAppend registers an observer called synchronously after every append.
// It may call the agent's public API.
func (a *Agent) OnAppend(f func(*session.Event)) { a.onAppend = append(a.onAppend, f) }

// OnStatus registers an observer of status changes.
func (a *Agent) OnStatus(f func(Status)) { a.onStatus = append(a.onStatus, f) }

// Append appends a non-surface event and notifies the observers.
func (a *Agent) Append(p session.Payload) session.Event {
	return a.notify(a.log.Append(p), nil)
}

// AppendSurface appends a surface event and notifies the observers.
func (a *Agent) AppendSurface(p session.Payload, op session.SurfaceOp, sources []int64) session.Event {
	return a.notify(a.log.AppendSurface(p, op, sources), nil)
}

// AppendCopy is Append of a copy of *p, kept in the log's storage
// (session.AppendCopy): the loop's own events are literals that stay on
// its stack, and a run in a reused storage allocates none of them.
func AppendCopy[T any, P interface {
	*T
	session.Payload
}](a *Agent, p *T) session.Event {
	return a.notify(session.AppendCopy[T, P](a.log, p), nil)
}

// appendNode appends a copy of *p as a surface event whose node the loop
// already knows, so that the surface need not decode the content it just
// encoded.
func appendNode[T any, P interface {
	*T
	session.Payload
}](a *Agent, p *T, sources []int64, node SurfaceNode) session.Event {
	return a.notify(session.AppendSurfaceCopy[T, P](a.log, p, session.SurfaceOp{Op: session.SurfaceAppend}, sources), &node)
}

func (a *Agent) notify(e session.Event, node *SurfaceNode) session.Event {
	if node != nil {
		node.Seq = e.Seq
		a.surface.push(*node)
	} else {
		a.surface.apply(&e)
	}
	// Observers registered during the loop join at the next event: the
	// slice header is read once (no copy per event). They get the event
	// as the log holds it (no copy escapes to the heap) and must not keep
	// the pointer.
	observers := a.onAppend
	stored := a.log.At(e.Seq)
	if a.cfg.RuntimeContext != nil {
		a.context.observe(stored)
	}
	for i := range observers {
		observers[i](stored)
	}
	return e
}

func (a *Agent) setStatus(s Status) {
	a.running = s == StatusRunning
	observers := a.onStatus
	for i := range observers {
		observers[i](s)
	}
}

// Send appends a message to the inbox target and, with wakeup, wakes the
// driver (docs/dsh.md#inbox). While idle, a waking send runs the driver
// before it returns.
func (a *Agent) Send(m session.UserMessage, target string, wakeup bool) error {
	if a.disposed && !(a.cfg.Disposal == DisposalRC8 && a.running) {
		// rc.8's agent is still in the registries, and takes the message,
		// until its lifecycle has waited for it to go idle.
		return ErrDisposed
	}
	wakingAfterAbort := wakeup && a.running && a.ctx != nil && a.ctx.Err() != nil
	if wakingAfterAbort {
		target = NextTurn
	}
	list := &a.nextStep
	if target == NextTurn {
		list = &a.nextTurn
	}
	// The inbox changes before its splice is logged, so that an observer
	// of the splice (which may cancel and clear the inbox) sees the agent
	// as the log says it is.
	// The inbox's messages are the log's: a step claims them into its
	// events (claim), so they live in the log's storage.
	start := len(*list)
	if start == cap(*list) {
		*list = append(a.log.MessagesRoom(max(2*start, 2)), *list...)
	}
	*list = append(*list, m)
	drives := a.drives
	AppendCopy(a, &session.InboxSpliced{Target: target, Start: start, Inserted: append(a.log.MessagesRoom(1), m)})
	switch {
	case !wakeup || a.drives != drives:
	case a.disposed && a.cfg.Disposal == DisposalRC8 && !a.running:
		// Disposed inside this send's splice: rc.8's agent, which keeps
		// no disposed state, wakes as if it were not.
		a.drive()
	default:
		a.wakeDriver(wakingAfterAbort)
	}
	// Else an observer of the splice sent a message of its own, whose
	// wake started the driver, which took this message too. In DSH that
	// driver is still running when this send wakes it (its first turn
	// runs to its first await, then the nested send returns), so the wake
	// is not latched; here it ran to its end, and the wake would open a
	// turn of nothing (found by --sut both).
	return nil
}

// Followup queues a message for the next turn and wakes the driver.
func (a *Agent) Followup(m session.UserMessage) error { return a.Send(m, NextTurn, true) }

// Steer queues a message for the next step and wakes the driver.
func (a *Agent) Steer(m session.UserMessage) error { return a.Send(m, NextStep, true) }

// Inject queues a message for the next step without waking the driver.
func (a *Agent) Inject(m session.UserMessage) error { return a.Send(m, NextStep, false) }

func (a *Agent) wakeDriver(afterAbort bool) {
	if a.disposed {
		// A wake that lands after disposal began never starts a driver,
		// even for a send that was already in flight.
		return
	}
	if a.running {
		if afterAbort && (a.cause == nil || a.cause.Kind != session.CauseDisposed) {
			a.wakeRequested = true
		}
		return
	}
	a.drive()
}

// Cancel cancels the current activity with cause; the first cause wins.
// Without keepInbox the inbox is cleared durably, even while idle.
func (a *Agent) Cancel(cause session.Cause, keepInbox bool) {
	if a.disposed && !a.running {
		return // a disposed agent is gone: nothing more is written
	}
	a.cancelActivity(cause, keepInbox)
}

func (a *Agent) cancelActivity(cause session.Cause, keepInbox bool) {
	if !keepInbox {
		a.clearInbox()
		a.wakeRequested = false
	}
	if !a.running || a.ctx == nil {
		return
	}
	if a.cause == nil {
		c := cause
		a.cause = &c
		a.cancel(&CancelError{Cause: c})
	}
}

func (a *Agent) clearInbox() {
	if n := len(a.nextStep); n > 0 {
		a.nextStep = nil
		AppendCopy(a, &session.InboxSpliced{Target: NextStep, Start: 0, RemovedCount: n, Outcome: "canceled"})
	}
	if n := len(a.nextTurn); n > 0 {
		a.nextTurn = nil
		AppendCopy(a, &session.InboxSpliced{Target: NextTurn, Start: 0, RemovedCount: n, Outcome: "canceled"})
	}
}

// Dispose cancels with cause disposed (clearing the inbox); later inputs
// are refused and no wake is latched. The running turn ends aborted
// (disposed) when the loop next checks its signal.
func (a *Agent) Dispose() {
	if a.disposed {
		return
	}
	// Disposal begins before its cancel clears the inbox: a send made
	// inside that clearing (by an observer of its splice) is refused.
	a.disposed = true
	a.cancelActivity(session.Cause{Kind: session.CauseDisposed}, false)
}

// Disposed reports whether Dispose was called.
func (a *Agent) Disposed() bool { return a.disposed }

// signalled reports whether the current activity is cancelled.
func (a *Agent) signalled() bool { return a.ctx != nil && a.ctx.Err() != nil }

// Signal is the current turn's cancellation context.
func (a *Agent) Signal() context.Context { return a.ctx }

func (a *Agent) inboxPending() bool { return len(a.nextTurn) > 0 || len(a.nextStep) > 0 }

func (a *Agent) newActivity() {
	a.ctx, a.cancel = context.WithCancelCause(context.Background())
	a.cause = nil
}
