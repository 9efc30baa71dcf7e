package faults

import (
	"testing"
	"time"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// TestShrinkStopsAtABlock: shrinking a plan whose plug-in blocks outside
// virtual time ends at the first candidate that blocks, since each run
// that reaches the plug-in waits out the watchdog again (a shrink of tens
// of runs took minutes).
func TestShrinkStopsAtABlock(t *testing.T) {
	waits := sim.Listener{Name: "waits", New: func(sim.Env) loop.RequestErrorListener {
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			<-ev.Signal.Done()
			return next()
		}
	}}
	text := "ok"
	fail := sim.Outcome{Fail: &session.LlmFailure{Code: "SERVER", Message: "busy"}}
	s := &sim.Scenario{Name: "blocks", Provider: "mock", Model: "m", ContextWindow: 128000, MaxEvents: 200,
		Recovery: sim.Recovery{ListenerOrder: []string{"waits", sim.ListenerRetry}}, Random: []float64{0.5}, StreamIdleTimeoutMs: 300_000,
		Requests: []sim.Outcome{fail, fail, {Text: &text}},
		Inputs:   []sim.Input{{Kind: "send", Text: "hi", Trigger: sim.Trigger{Nth: 1}}}}
	opts := sim.Options{Listeners: []sim.Listener{waits}, BlockedAfter: 20 * time.Millisecond}
	began := time.Now()
	sh := Shrink(s, oracle.TurnTerminates, opts, Keep{})
	runs := sh.Runs
	if !sh.Blocked || sh.Result != nil {
		t.Errorf("Blocked %v, Result %v: want a blocked shrink with no run of its own", sh.Blocked, sh.Result)
	}
	if runs != 1 {
		t.Errorf("%d shrink runs in %v, want 1: the first candidate blocked", runs, time.Since(began))
	}
}
