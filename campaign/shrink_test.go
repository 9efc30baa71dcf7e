package campaign

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
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

// TestShrinkIsOneMinimal: for each mutant, the plans of the first three
// failing seeds shrink to plans that still violate the mutant's invariant
// and violate it no more when any single entry is removed; the smallest of
// them has at most 3 entries unless the bug needs a chain of faults.
func TestShrinkIsOneMinimal(t *testing.T) {
	const tries = 3
	multiFault := map[string]bool{"compact-unbounded": true}
	for _, m := range mutants.Zoo {
		t.Run(m.Name, func(t *testing.T) {
			smallest, found := 0, 0
			for seed := uint64(1); seed <= 2000 && found < tries; seed++ {
				v := judge.RunSeed(seed, faults.Overrides{}, m.Options, false)
				if !judge.Violates(v.Scenario, m.Trips, m.Options) {
					continue
				}
				found++
				sh := Shrink(v.Scenario, m.Trips, m.Options, Keep{})
				shrunk, runs := sh.Scenario, sh.Runs
				if sh.Violation.Invariant != m.Trips {
					t.Fatalf("seed %#x: Shrink returned the violation %+v, want one of %s", seed, sh.Violation, m.Trips)
				}
				if !judge.Violates(shrunk, m.Trips, m.Options) {
					t.Fatalf("seed %#x: the shrunk plan no longer violates %s", seed, m.Trips)
				}
				for i, smaller := range removals(shrunk) {
					if judge.Violates(smaller, m.Trips, m.Options) {
						t.Errorf("seed %#x: removing entry %d still violates %s: the plan is not 1-minimal", seed, i, m.Trips)
					}
				}
				if n := PlanEntries(shrunk); smallest == 0 || n < smallest {
					smallest = n
				}
				t.Logf("seed %#x: %d entries → %d in %d runs: %v", seed, PlanEntries(v.Scenario), PlanEntries(shrunk), runs, faults.PlanLines(shrunk))
			}
			if found == 0 {
				t.Fatalf("mutant %s not found in 2000 seeds", m.Name)
			}
			if smallest > 3 && !multiFault[m.Name] {
				t.Errorf("the smallest shrunk plan of %d seeds has %d entries, want at most 3", found, smallest)
			}
		})
	}
}
