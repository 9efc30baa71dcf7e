package sim

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
)

// DefaultBlockedAfter is how long, in real time, the world waits for a
// plug-in's answer before it stops the run (Options.BlockedAfter): a
// listener's call takes microseconds of real time, since every wait in it
// is virtual; one that takes seconds waits on the real world.
const DefaultBlockedAfter = 10 * time.Second

// A plug-in is code of one's own inside a run that is otherwise one
// goroutine in virtual time. If it waits on the real world — a real
// channel, time.Sleep, or ev.Signal.Done(), which only the world cancels
// and the world waits for the listener — the run never ends: a
// budget.Config.Run hung with no message, and go test died of "all
// goroutines are asleep". So a plug-in's code (its constructor and each
// call of its listener) runs on a goroutine of the run's own while the
// world waits for it with a real-time watchdog. The hand-over is
// synchronous, so the run is as deterministic as before; the watchdog only
// ever ends a run that would not have ended.
//
// A call the watchdog gave up on is abandoned, not stopped (Go cannot stop
// a goroutine): should it ever go on, it ends its goroutine at the first
// point where it would reach the world again — its return, its next(), a
// port of its Env — rather than touch a run that is over. (Env.Agent and
// Env.Log are the loop's own types, which it may still reach.)

// blocked is raised (and recovered by the world) when a plug-in gave no
// answer within the watchdog's time.
type blocked struct {
	listener string
	after    time.Duration
}

func (b blocked) String() string {
	return fmt.Sprintf("listener %q blocked outside virtual time: no answer after %v of real time "+
		"(a wait on a real channel, time.Sleep, or ev.Signal.Done(): in the simulation only the world cancels the signal, and it waits for the listener; "+
		"wait with env.Clock.Sleep(ev.Signal, d))", b.listener, b.after)
}

// pluginPanic is a panic in a plug-in's code, carried to the world's
// goroutine with the stack where it happened; goexit says the call ended
// its goroutine instead.
type pluginPanic struct {
	value  any
	stack  string
	goexit bool
}

// guardian runs a world's plug-in calls on a goroutine of its own, one
// call at a time, and times each with one timer: a goroutine and a timer
// for the run, not for each call.
type guardian struct {
	calls chan func()
	done  chan any
	timer *time.Timer
	// depth is how many guarded calls are open: a plug-in's next() that
	// reaches another plug-in runs it in place, on the guardian's
	// goroutine, under the outer call's watchdog. Only the goroutine that
	// holds the call in hand touches it (the hand-over orders them).
	depth int
	// names are the open calls' plug-ins, innermost last, for the message
	// of the one that blocked (read by the world when the watchdog fires,
	// while the guardian's goroutine may be in any of them: hence the
	// lock).
	mu    sync.Mutex
	names []string
}

// serve runs calls until the world closes them.
func (g *guardian) serve() {
	for call := range g.calls {
		g.done <- run(call, func(p pluginPanic) { g.done <- p })
	}
}

// run runs a plug-in's call and says how it ended: nil, or a panic (the
// world's own stops raised inside it pass through as they are; a panic of
// the plug-in's with the stack where it happened). A call that ends its
// goroutine (runtime.Goexit: t.FailNow from a listener) cannot be stopped
// from doing so; exited is told of it, as a panic of the plug-in's, while
// the goroutine unwinds.
func run(call func(), exited func(pluginPanic)) (ended any) {
	returned := false
	defer func() {
		if returned {
			return
		}
		st := stack() // before recover: the frames that panicked are still on it
		switch r := recover(); r.(type) {
		case nil:
			if exited != nil {
				exited(pluginPanic{value: "the listener ended its goroutine (runtime.Goexit: t.FailNow and t.Fatal, which must not be called from a listener, do)",
					stack: st, goexit: true})
			}
		case stalled, bounded, blocked, pluginPanic:
			ended = r
		default:
			ended = pluginPanic{value: r, stack: st}
		}
	}()
	call()
	returned = true
	return nil
}

// guard runs a plug-in's code, named for the message if it blocks, and
// waits for it for at most the watchdog's time.
func (w *World) guard(name string, call func()) {
	if w.blockedAfter < 0 {
		// No watchdog (a listener stopped in a debugger): the call runs
		// on the world's goroutine, as any built-in's does (and a Goexit
		// in it ends that goroutine).
		if r := run(call, nil); r != nil {
			panic(r)
		}
		return
	}
	// Atomic: a nested call reads it on the guardian's goroutine, which
	// an abandoned call may still be when the world lets go of it.
	g := w.guardian.Load()
	if g == nil {
		g = &guardian{calls: make(chan func()), done: make(chan any, 1), timer: time.NewTimer(time.Hour)}
		g.timer.Stop()
		go g.serve()
		w.guardian.Store(g)
	}
	g.mu.Lock()
	g.names = append(g.names, name)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.names = g.names[:len(g.names)-1]
		g.mu.Unlock()
	}()
	if g.depth > 0 {
		// Reached through an outer plug-in's next(): already on the
		// guardian's goroutine, under the outer call's watchdog.
		g.depth++
		call()
		w.leaveIfAbandoned()
		g.depth--
		return
	}
	g.depth++
	g.calls <- func() {
		call()
		w.leaveIfAbandoned()
	}
	g.timer.Reset(w.blockedAfter)
	select {
	case r := <-g.done:
		g.timer.Stop()
		g.depth--
		if p, ok := r.(pluginPanic); ok && p.goexit {
			w.guardian.Store(nil) // its goroutine is gone
		}
		if r != nil {
			panic(r)
		}
	case <-g.timer.C:
		w.abandoned.Store(true)
		g.mu.Lock()
		innermost := g.names[len(g.names)-1]
		g.mu.Unlock()
		close(g.calls) // the abandoned call's return ends the guardian
		w.guardian.Store(nil)
		panic(blocked{listener: innermost, after: w.blockedAfter})
	}
}

// leaveIfAbandoned ends the calling goroutine, a plug-in call's that the
// watchdog gave up on, before it reaches the world again.
func (w *World) leaveIfAbandoned() {
	if w.abandoned.Load() {
		runtime.Goexit()
	}
}

// stopGuardian ends the guardian's goroutine at the end of a run (an
// abandoned one ends when its blocked call returns, if ever).
func (w *World) stopGuardian() {
	if g := w.guardian.Swap(nil); g != nil {
		close(g.calls)
	}
}

// guarded is a plug-in's listener, each call of it guarded.
func (w *World) guarded(name string, l loop.RequestErrorListener) loop.RequestErrorListener {
	return func(ev *loop.RequestError, next loop.Next) (act loop.Action, err error) {
		w.guard(name, func() {
			act, err = l(ev, func() (loop.Action, error) {
				w.leaveIfAbandoned()
				a, e := next()
				w.leaveIfAbandoned()
				return a, e
			})
		})
		return act, err
	}
}

// guardedEnv is a plug-in's Env whose ports end an abandoned call's
// goroutine before it reaches the world.
func (w *World) guardedEnv(env Env) Env {
	env.Clock = guardedClock{w, env.Clock}
	env.IDs = guardedIDs{w, env.IDs}
	env.Random = guardedRandom{w, env.Random}
	env.Summarizer = guardedSummarizer{w, env.Summarizer}
	warn := env.Warn
	env.Warn = func(msg string) {
		w.leaveIfAbandoned()
		warn(msg)
	}
	return env
}

type guardedClock struct {
	w *World
	c loop.Clock
}

func (g guardedClock) Now() time.Time {
	g.w.leaveIfAbandoned()
	return g.c.Now()
}

func (g guardedClock) Sleep(ctx context.Context, d time.Duration) error {
	g.w.leaveIfAbandoned()
	err := g.c.Sleep(ctx, d)
	g.w.leaveIfAbandoned()
	return err
}

type guardedIDs struct {
	w   *World
	ids loop.IDs
}

func (g guardedIDs) NewID(kind string) string {
	g.w.leaveIfAbandoned()
	return g.ids.NewID(kind)
}

type guardedRandom struct {
	w *World
	r loop.Random
}

func (g guardedRandom) Float64() float64 {
	g.w.leaveIfAbandoned()
	return g.r.Float64()
}

type guardedSummarizer struct {
	w *World
	s compact.Summarizer
}

func (g guardedSummarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (compact.Summary, error) {
	g.w.leaveIfAbandoned()
	sum, err := g.s.Summarize(ctx, req)
	g.w.leaveIfAbandoned()
	return sum, err
}

// stack is the stack of the calling goroutine, which is panicking or
// ending, from the frame that panicked or called runtime.Goexit, without
// what differs from one run of the same code to the next — the goroutine's
// number, argument values, frame offsets — so that a panic's message,
// which a corpus entry keeps, is the same bytes at any -j.
func stack() string {
	s := string(debug.Stack())
	if loc := panicFrame.FindStringIndex(s); loc != nil {
		s = s[loc[1]:]
	}
	s = goroutineLine.ReplaceAllString(s, "")
	s = frameArgs.ReplaceAllString(s, "$1(…)")
	return frameOffset.ReplaceAllString(s, "")
}

var (
	// panicFrame is the frame of panic or Goexit and its file line: the
	// frames above it are this package's recovery.
	panicFrame    = regexp.MustCompile(`(?m)^(panic|runtime\.Goexit)\(.*\)\n\t.*\n`)
	goroutineLine = regexp.MustCompile(`(?m)^goroutine \d+ \[[^\]]*\]:\n|(?m) in goroutine \d+$`)
	frameArgs     = regexp.MustCompile(`(?m)^([^\t\n].*)\([^()\n]*\)$`)
	frameOffset   = regexp.MustCompile(` \+0x[0-9a-f]+`)
)
