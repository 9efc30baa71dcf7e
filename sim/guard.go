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
// goroutines are asleep". So a run with plug-ins runs on a goroutine of
// its own, the whole of it (one hand-over a run: a hand-over for each of a
// plug-in's calls cost a run half again its time), while the caller
// watches the time the run spends inside plug-in code. Past the watchdog's
// time in one call the caller gives up on the run and makes its result
// from the world as the plug-in left it. The run itself is the same
// bytes as on the caller's goroutine; the watchdog only ever ends a run
// that would not have ended.
//
// A run given up on is abandoned, not stopped (Go cannot stop a
// goroutine): should it ever go on, it ends its goroutine at the first
// point where it would reach the world again — the plug-in's return, its
// next(), a port of its Env — rather than touch a run that is over.
// (Env.Agent and Env.Log are the loop's own types, which it may still
// reach.)

// blocked is what the world says of a plug-in that gave no answer within
// the watchdog's time.
type blocked struct {
	listener string
	after    time.Duration
}

func (b blocked) String() string {
	return fmt.Sprintf("listener %q blocked outside virtual time: no answer after %v of real time "+
		"(a wait on a real channel, time.Sleep, or ev.Signal.Done(): in the simulation only the world cancels the signal, and it waits for the listener; "+
		"wait with env.Clock.Sleep(ev.Signal, d))", b.listener, b.after)
}

// watch is what the watchdog sees of a run: the plug-in calls open, the
// innermost last, and when the outermost began. The run's goroutine
// takes the lock at every step into and out of plug-in code, so the
// watchdog's lock, taken when it gives up, sees all that the run wrote
// before it.
type watch struct {
	mu    sync.Mutex
	names []string
	since time.Time
	steps int
	// done takes the run's result, also when a plug-in ended the run's
	// goroutine (runtime.Goexit), which never returns it; exited says it
	// did (set before the result is sent).
	done   chan *Result
	exited bool
}

// A runner is a goroutine that runs supervised runs one after another:
// kept between runs, so that a run does not begin on a fresh goroutine
// whose stack grows, copy after copy, to the loop's depth (which cost a
// run a third again its time).
type runner struct{ jobs chan func() }

// runners are the runners free to take a run.
var runners = make(chan *runner, 64)

func getRunner() *runner {
	select {
	case r := <-runners:
		return r
	default:
	}
	r := &runner{jobs: make(chan func())}
	go func() {
		for job := range r.jobs {
			job()
		}
	}()
	return r
}

// putRunner keeps a runner whose run ended as runs do (one abandoned, or
// whose goroutine a plug-in ended, is not).
func putRunner(r *runner) {
	select {
	case runners <- r:
	default:
		close(r.jobs)
	}
}

// supervise runs the world on a goroutine of its own and waits for it,
// giving up on a plug-in call that outlasts after.
func (w *World) supervise(opts Options, after time.Duration) *Result {
	done := make(chan *Result, 1) // buffered: an abandoned run still ends
	w.watch = &watch{done: done}
	r := getRunner()
	r.jobs <- func() { done <- w.run(opts) }
	timer := time.NewTimer(after)
	defer timer.Stop()
	for {
		select {
		case res := <-done:
			if !w.watch.exited {
				putRunner(r)
			}
			return res
		case <-timer.C:
		}
		w.watch.mu.Lock()
		name, in := "", time.Duration(0)
		if len(w.watch.names) > 0 {
			name, in = w.watch.names[len(w.watch.names)-1], time.Since(w.watch.since)
		}
		if in >= after {
			w.abandoned.Store(true)
			res := &Result{Blocked: name, Stopped: blocked{listener: name, after: after}.String()}
			w.result(res) // under the lock: the run is still in the plug-in
			w.watch.mu.Unlock()
			return res
		}
		w.watch.mu.Unlock()
		timer.Reset(after - in)
	}
}

// enter and leave bracket a plug-in's code (its constructor, each call of
// its listener); step marks a step back into the world from it (a port
// of its Env, its next()). On a run given up on, each ends the goroutine.
func (w *World) enter(name string) {
	if w.watch == nil {
		return
	}
	w.leaveIfAbandoned()
	w.watch.mu.Lock()
	if len(w.watch.names) == 0 {
		w.watch.since = time.Now()
	}
	w.watch.names = append(w.watch.names, name)
	w.watch.mu.Unlock()
}

func (w *World) leave() {
	if w.watch == nil {
		return
	}
	w.leaveIfAbandoned()
	w.watch.mu.Lock()
	w.watch.names = w.watch.names[:len(w.watch.names)-1]
	w.watch.mu.Unlock()
}

func (w *World) step() {
	if w.watch == nil {
		return
	}
	w.leaveIfAbandoned()
	w.watch.mu.Lock() // orders the run's writes before the watchdog's reads
	w.watch.steps++
	w.watch.mu.Unlock()
}

// leaveIfAbandoned ends the calling goroutine, a run's that the watchdog
// gave up on, before it reaches the world again.
func (w *World) leaveIfAbandoned() {
	if w.abandoned.Load() {
		runtime.Goexit()
	}
}

// guarded is a plug-in's listener, each call of it watched.
func (w *World) guarded(name string, l loop.RequestErrorListener) loop.RequestErrorListener {
	return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
		w.enter(name)
		defer w.leave()
		return l(ev, func() (loop.Action, error) {
			w.step()
			defer w.step()
			return next()
		})
	}
}

// guardedEnv is a plug-in's Env whose every port is a step back into the
// world.
func (w *World) guardedEnv(env Env) Env {
	env.Clock = guardedClock{w, env.Clock}
	env.IDs = guardedIDs{w, env.IDs}
	env.Random = guardedRandom{w, env.Random}
	env.Summarizer = guardedSummarizer{w, env.Summarizer}
	warn := env.Warn
	env.Warn = func(msg string) {
		w.step()
		warn(msg)
	}
	return env
}

type guardedClock struct {
	w *World
	c loop.Clock
}

func (g guardedClock) Now() time.Time {
	g.w.step()
	return g.c.Now()
}

func (g guardedClock) Sleep(ctx context.Context, d time.Duration) error {
	g.w.step()
	defer g.w.step()
	return g.c.Sleep(ctx, d)
}

type guardedIDs struct {
	w   *World
	ids loop.IDs
}

func (g guardedIDs) NewID(kind string) string {
	g.w.step()
	return g.ids.NewID(kind)
}

type guardedRandom struct {
	w *World
	r loop.Random
}

func (g guardedRandom) Float64() float64 {
	g.w.step()
	return g.r.Float64()
}

type guardedSummarizer struct {
	w *World
	s compact.Summarizer
}

func (g guardedSummarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (compact.Summary, error) {
	g.w.step()
	defer g.w.step()
	return g.s.Summarize(ctx, req)
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
	// frames above it are the world's recovery.
	panicFrame    = regexp.MustCompile(`(?m)^(panic|runtime\.Goexit)\(.*\)\n\t.*\n`)
	goroutineLine = regexp.MustCompile(`(?m)^goroutine \d+ \[[^\]]*\]:\n|(?m) in goroutine \d+$`)
	frameArgs     = regexp.MustCompile(`(?m)^([^\t\n].*)\([^()\n]*\)$`)
	frameOffset   = regexp.MustCompile(` \+0x[0-9a-f]+`)
)
