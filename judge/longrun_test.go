package judge

import (
	"testing"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// TestLongRunStopsAtItsBound: a listener without a budget riding an
// outage retries until the run's bound on events, far past the size at
// which the arenas' growth once overflowed (28,152 records): the run
// stops at its bound (turn-terminates), in memory of its own and in a
// worker's storage, and the system under test is never said to panic.
func TestLongRunStopsAtItsBound(t *testing.T) {
	s := sim.Default()
	s.Name, s.MaxEvents = "long", 60_000
	s.Outages = []sim.Outage{{FromMs: 0, ToMs: 1e12, Fail: session.LlmFailure{Code: "SERVER", Message: "down"}}}
	s.Inputs = []sim.Input{{Kind: "send", Text: "go", Trigger: sim.Trigger{Nth: 1}}}
	always := sim.Listener{Name: "always", MaxRetries: sim.Unbounded, New: func(sim.Env) loop.RequestErrorListener {
		return func(*loop.RequestError, loop.Next) (loop.Action, error) { return loop.Retry, nil }
	}}
	s.ListenerOrder = []string{"always"}
	opts := sim.Options{Listeners: []sim.Listener{always}, BlockedAfter: -1}
	var st sim.Storage
	for _, where := range []struct {
		name string
		st   *sim.Storage
	}{{"memory of its own", nil}, {"a worker's storage", &st}} {
		res, vs := checkIn(where.st, s, opts)
		ids := map[oracle.ID]bool{}
		for _, v := range vs {
			ids[v.Invariant] = true
		}
		if ids[oracle.SUTPanic] || !ids[oracle.TurnTerminates] || len(res.Events) < 50_000 {
			t.Errorf("in %s: %d events, violations %v; want the bound's turn-terminates and no sut-panic", where.name, len(res.Events), vs[:min(len(vs), 3)])
		}
	}
}
