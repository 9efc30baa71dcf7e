package faults

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/mutants"
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

// TestPrincipal: the violation a failure is named and shrunk for is the
// one that says what went wrong; a count over its bound, a turn the world
// stopped and a malformed log come with many bugs.
func TestPrincipal(t *testing.T) {
	v := func(id oracle.ID) oracle.Violation { return oracle.Violation{Invariant: id} }
	tests := []struct {
		why  string
		vs   []oracle.Violation
		want oracle.ID
	}{
		{"a retry after a throw explains the attempts over the bound (throw-becomes-retry overshoots by 1 or by 790)",
			[]oracle.Violation{v(oracle.AttemptsWithinPolicy), v(oracle.RetryAfterHandledFailure), v(oracle.TurnTerminates)}, oracle.RetryAfterHandledFailure},
		{"a semantic invariant before a malformed log",
			[]oracle.Violation{v(oracle.LogWellFormed), v(oracle.NoLostInput)}, oracle.NoLostInput},
		{"attempts over the bound alone are the failure",
			[]oracle.Violation{v(oracle.LogWellFormed), v(oracle.AttemptsWithinPolicy)}, oracle.AttemptsWithinPolicy},
		{"a turn that never ended, alone", []oracle.Violation{v(oracle.TurnTerminates)}, oracle.TurnTerminates},
		{"a malformed log alone", []oracle.Violation{v(oracle.LogWellFormed)}, oracle.LogWellFormed},
		{"the first of two causes, in the oracle's order",
			[]oracle.Violation{v(oracle.RetryBudget), v(oracle.BackoffHonoured)}, oracle.RetryBudget},
	}
	for _, tt := range tests {
		if got := Principal(tt.vs).Invariant; got != tt.want {
			t.Errorf("%s: Principal = %s, want %s", tt.why, got, tt.want)
		}
	}
}

// TestInputSimplifications: a late input moves toward a followup, an
// inject toward a steer, its text toward the one its kind and place draw,
// and a trigger after an event toward one by the clock.
func TestInputSimplifications(t *testing.T) {
	s := sim.Default()
	s.Inputs = []sim.Input{
		{Kind: "send", Text: "hi", Trigger: sim.Trigger{Nth: 1}},
		{Kind: "inject", Text: "a late inject (4)", Trigger: sim.Trigger{After: "llm/retry", Nth: 1, PlusMs: 1}},
	}
	var got []sim.Input
	for _, c := range simplifications(s) {
		got = append(got, c.Inputs[1])
	}
	want := []sim.Input{
		{Kind: "followup", Text: "a late inject (4)", Trigger: sim.Trigger{After: "llm/retry", Nth: 1, PlusMs: 1}},
		{Kind: "steer", Text: "a late inject (4)", Trigger: sim.Trigger{After: "llm/retry", Nth: 1, PlusMs: 1}},
		{Kind: "inject", Text: "a late inject (2)", Trigger: sim.Trigger{After: "llm/retry", Nth: 1, PlusMs: 1}},
		{Kind: "inject", Text: "a late inject (4)", Trigger: sim.Trigger{AtMs: 1, Nth: 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the late input's simplifications (-want +got):\n%s", diff)
	}
	// The first input starts the run and is left as it is.
	for _, c := range simplifications(s) {
		if diff := cmp.Diff(s.Inputs[0], c.Inputs[0]); diff != "" {
			t.Errorf("the first input changed (-want +got):\n%s", diff)
		}
	}
}

// TestOneThrowBugOnePlanPerPath: throw-becomes-retry's 2,000 seeds shrink
// to two plans: a failing request, and a natural overflow. They once gave
// five entries: outages of 790 attempts and a second failing request
// stopped shrinking where they still overshot the attempts' bound, which
// was shrunk for in place of the retry after the throw.
func TestOneThrowBugOnePlanPerPath(t *testing.T) {
	if raceEnabled {
		t.Skip("2,000 seeds shrunk, 12 s under -race and nothing concurrent to race: make slow runs it without")
	}
	m, _ := mutants.Find("throw-becomes-retry")
	names := map[string][]string{}
	for seed := uint64(1); seed <= 2000; seed++ {
		v := RunSeed(seed, Overrides{}, m.Options, false)
		if len(v.Violations) == 0 {
			continue
		}
		id := Principal(v.Violations).Invariant
		sh := Shrink(v.Scenario, id, m.Options, Keep{})
		e, err := NewEntry("test", seed, Overrides{}, m.Name, id, sh.Violation.Message, sh.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		names[e.FileName()] = e.Plan
	}
	if len(names) > 2 {
		t.Errorf("%d plans, want at most 2:", len(names))
		for name, plan := range names {
			t.Logf("%s: %q", name, plan)
		}
	}
}
