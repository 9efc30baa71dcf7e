package budget_test

import (
	"context"
	"fmt"

	"github.com/turnsim/turnsim/budget"
	"github.com/turnsim/turnsim/budget/report"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/sim"
)

// ExampleConfig_Run_horizon: two hours of traffic at 10 turns a minute
// through incidents of about 30 s, twice an hour, under DSH's default
// policy: each incident's turns, and how many the policy carried through.
func ExampleConfig_Run_horizon() {
	env := &budget.Environment{HorizonMs: 2 * 3600e3, Arrivals: &budget.Arrivals{PerMinute: 10},
		Incidents: []budget.IncidentKind{{PerHour: 2, ForMs: &budget.Distribution{Uniform: &[2]float64{20000, 40000}}, Code: "SERVER", Status: 503}}}
	r, err := budget.Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: env}.Run(context.Background(), 1, 0) // runs: the horizon's arrivals
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d turns, %d failed\n", r.Turns, r.Turns-r.Completed)
	for _, in := range r.Timeline.Incidents {
		fmt.Printf("%s %s for %.0f s: %d hit, %d carried through\n", report.Clock(in.FromMs), in.Code, in.LengthMs()/1e3, in.TurnsHit, in.Carried)
	}
	// Output:
	// 1204 turns, 4 failed
	// 00:52:04 SERVER for 23 s: 5 hit, 4 carried through
	// 01:10:46 SERVER for 30 s: 4 hit, 1 carried through
}
