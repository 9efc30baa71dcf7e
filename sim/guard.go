package sim

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/turnsim/turnsim/loop"
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
// call of its listener) runs on a goroutine of its own while the world
// waits for it with a real-time watchdog. The hand-over is synchronous,
// so the run is as deterministic as before; the watchdog only ever ends a
// run that would not have ended.

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
// goroutine with the stack where it happened.
type pluginPanic struct {
	value any
	stack []byte
}

// goexited says a plug-in's code ended its goroutine (runtime.Goexit, as
// t.FailNow does): the world's goroutine ends the same way.
type goexited struct{}

// guardian runs a world's plug-in calls on a goroutine of its own, one
// call at a time, and times each with one timer: a goroutine and a timer
// for the run, not for each call.
type guardian struct {
	calls chan func()
	done  chan any
	timer *time.Timer
	// depth is how many guarded calls are open: a plug-in's next() that
	// reaches another plug-in runs it in place, on the guardian's
	// goroutine, under the outer call's watchdog. names are theirs,
	// innermost last, for the message of the one that blocked (read by
	// the world when the watchdog fires, hence the lock).
	depth int
	mu    sync.Mutex
	names []string
}

// serve runs calls until the world closes them.
func (g *guardian) serve() {
	for call := range g.calls {
		g.done <- g.run(call)
	}
}

// run runs one call and says how it ended: nil, a panic (the world's own
// stops pass through as they are), or goexited, after which the goroutine
// ends as the call asked.
func (g *guardian) run(call func()) (ended any) {
	returned := false
	defer func() {
		switch r := recover(); {
		case returned:
		case r == nil:
			g.done <- goexited{} // runtime.Goexit goes on ending the goroutine
		default:
			switch r.(type) {
			case stalled, bounded, blocked, pluginPanic:
				ended = r
			default:
				ended = pluginPanic{r, debug.Stack()}
			}
		}
	}()
	call()
	returned = true
	return nil
}

// guard runs a plug-in's code, named for the message if it blocks, and
// waits for it for at most the watchdog's time.
func (w *World) guard(name string, call func()) {
	g := w.guardian
	if g == nil {
		g = &guardian{calls: make(chan func()), done: make(chan any, 1), timer: time.NewTimer(time.Hour)}
		g.timer.Stop()
		go g.serve()
		w.guardian = g
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
		// guardian's goroutine, under its watchdog.
		g.depth++
		defer func() { g.depth-- }()
		call()
		return
	}
	g.depth++
	g.calls <- call
	g.timer.Reset(w.blockedAfter)
	select {
	case r := <-g.done:
		g.timer.Stop()
		g.depth--
		switch r := r.(type) {
		case nil:
		case goexited:
			w.guardian = nil // its goroutine is gone
			runtime.Goexit()
		default:
			panic(r)
		}
	case <-g.timer.C:
		// The call is abandoned: should it ever go on, its next call
		// into the waterfall ends its goroutine instead of touching a
		// run that is over, and its return ends the guardian.
		w.abandoned.Store(true)
		g.mu.Lock()
		innermost := g.names[len(g.names)-1]
		g.mu.Unlock()
		close(g.calls)
		w.guardian = nil
		panic(blocked{listener: innermost, after: w.blockedAfter})
	}
}

// stopGuardian ends the guardian's goroutine at the end of a run (an
// abandoned one ends when its blocked call returns, if ever).
func (w *World) stopGuardian() {
	if w.guardian != nil {
		close(w.guardian.calls)
		w.guardian = nil
	}
}

// guarded is a plug-in's listener, each call of it guarded.
func (w *World) guarded(name string, l loop.RequestErrorListener) loop.RequestErrorListener {
	return func(ev *loop.RequestError, next loop.Next) (act loop.Action, err error) {
		w.guard(name, func() {
			act, err = l(ev, func() (loop.Action, error) {
				if w.abandoned.Load() {
					runtime.Goexit()
				}
				return next()
			})
		})
		return act, err
	}
}
