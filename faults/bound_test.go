package faults_test

import (
	"testing"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// patient retries SERVER up to its budget a step, 5 ms apart: within
// its budget and its signal, so whatever it meets is no finding of its
// own.
func patient(budget int) sim.Listener {
	return sim.Listener{Name: "patient", MaxRetries: budget, Codes: []string{"SERVER"}, New: func(env sim.Env) loop.RequestErrorListener {
		retries := map[[2]int]int{}
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			step := [2]int{ev.Turn, ev.Step}
			if ev.Failure.Code != "SERVER" || (budget != sim.Unbounded && retries[step] >= budget) {
				return next()
			}
			retries[step]++
			if err := env.Clock.Sleep(ev.Signal, 5*time.Millisecond); err != nil {
				return loop.NoAction, nil
			}
			return loop.Retry, nil
		}
	}}
}

// TestAPlugInsBudgetBoundsItsRun: the run's bound on events makes room
// for the retries a plugged listener may make through an outage. It once
// allowed eight attempts a step whatever the budgets, and a listener of
// no budget, retrying every 5 ms through a 20 s outage, was stopped by
// the bound and reported turn-terminates. (A budget of 1,000 passed
// before too: its run of 1,002 failures in one step already raised the
// bound; it stays as the case of a budget that the bound must hold.)
func TestAPlugInsBudgetBoundsItsRun(t *testing.T) {
	for _, budget := range []int{1000, sim.Unbounded} {
		opts := sim.Options{Listeners: []sim.Listener{patient(budget)}, BlockedAfter: -1}
		outages := 0
		for seed := uint64(1); seed <= 60; seed++ {
			v := judge.RunSeed(seed, faults.Overrides{Kinds: []string{faults.Outage}}, opts, false)
			if len(v.Scenario.Outages) > 0 && v.Scenario.Outages[0].ToMs-v.Scenario.Outages[0].FromMs >= 5000 {
				outages++
			}
			for _, x := range v.Violations {
				if x.Invariant == oracle.TurnTerminates {
					t.Errorf("budget %d, seed %#x: %s (bound %d events)", budget, seed, x, v.Scenario.MaxEvents)
				}
			}
		}
		if outages == 0 {
			t.Errorf("budget %d: no seed of 60 drew an outage of 5 s or more: the test tests nothing", budget)
		}
	}
}
