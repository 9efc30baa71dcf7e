package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/oracle"
)

// TestAListenerThatBlocksOutsideVirtualTimeStopsTheRun: a plug-in that
// waits on the real world — the turn signal, which only the world cancels
// and the world waits for the listener; a real sleep; a channel nothing
// sends on — stops the run with a message naming it, once the watchdog's
// real time has passed (it hung budget.Config.Run, and crashed go test
// with "all goroutines are asleep"). The oracle reads it as a run that did
// not end by itself.
func TestAListenerThatBlocksOutsideVirtualTimeStopsTheRun(t *testing.T) {
	never := make(chan struct{})
	for _, tt := range []struct {
		why string
		l   Listener
	}{
		{"it waits for the turn signal", Listener{Name: "mine", New: func(Env) loop.RequestErrorListener {
			return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
				<-ev.Signal.Done()
				return next()
			}
		}}},
		{"it sleeps in real time", Listener{Name: "mine", New: func(Env) loop.RequestErrorListener {
			return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
				time.Sleep(time.Hour)
				return next()
			}
		}}},
		{"its constructor waits on a channel", Listener{Name: "mine", New: func(Env) loop.RequestErrorListener {
			<-never
			return nil
		}}},
		{"it waits on a context of its own", Listener{Name: "mine", New: func(env Env) loop.RequestErrorListener {
			return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				<-ctx.Done()
				return next()
			}
		}}},
	} {
		t.Run(tt.why, func(t *testing.T) {
			res := RunWith(plugScenario("mine"), Options{Listeners: []Listener{tt.l}, BlockedAfter: 50 * time.Millisecond})
			if res.Blocked != "mine" || !strings.HasPrefix(res.Stopped, `listener "mine" blocked outside virtual time: no answer after 50ms of real time`) {
				t.Fatalf("blocked %q, stopped %q", res.Blocked, res.Stopped)
			}
			vs := oracle.Check(res.Events, Options{}.Oracle(res))
			found := false
			for _, v := range vs {
				found = found || v.Invariant == oracle.TurnTerminates && strings.Contains(v.Message, "blocked outside virtual time")
			}
			if !found {
				t.Errorf("violations %v, want turn-terminates naming the block", vs)
			}
		})
	}
}

// TestAGuardedListenerIsTheSameRun: a plug-in that answers is the same
// run, byte for byte, as before the guard (its code runs on a goroutine of
// its own, handed over synchronously), and its panic is still a finding
// with the stack where it happened.
func TestAGuardedListenerIsTheSameRun(t *testing.T) {
	retryOnce := Listener{Name: "mine", MaxRetries: 1, New: func(env Env) loop.RequestErrorListener {
		retried := false
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			if retried {
				return next()
			}
			retried = true
			if err := env.Clock.Sleep(ev.Signal, 100*time.Millisecond); err != nil {
				return loop.NoAction, nil
			}
			return loop.Retry, nil
		}
	}}
	a := RunWith(plugScenario("mine"), Options{Listeners: []Listener{retryOnce}})
	b := RunWith(plugScenario("mine"), Options{Listeners: []Listener{retryOnce}})
	if a.Stopped != "" || len(a.Events) == 0 || len(a.Events) != len(b.Events) {
		t.Fatalf("stopped %q, %d and %d events", a.Stopped, len(a.Events), len(b.Events))
	}
	if vs := oracle.Check(a.Events, Options{}.Oracle(a)); len(vs) > 0 {
		t.Errorf("violations %v", vs)
	}
	panics := Listener{Name: "mine", New: func(env Env) loop.RequestErrorListener {
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) { panic("my listener's bug") }
	}}
	res := RunWith(plugScenario("mine"), Options{Listeners: []Listener{panics}})
	if !strings.HasPrefix(res.Facts.Panic, "my listener's bug\n") || !strings.Contains(res.Facts.Panic, "guard_test.go") {
		t.Errorf("the panic reads %q: want its message and the stack where it happened", res.Facts.Panic)
	}
}
