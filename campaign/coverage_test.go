package campaign

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// TestExercisedByAScenario: a cancel inside a backoff wait exercises the
// cancel invariant and the retry ones it needs, lands after llm/retry, and
// leaves the preconditions it never met out.
func TestExercisedByAScenario(t *testing.T) {
	s, err := sim.LoadScenario("../scenarios/cancel-at-an-offset-inside-the-second-wait.json")
	if err != nil {
		t.Fatal(err)
	}
	res, _ := judge.Check(s, sim.Options{})
	x := exercise(judge.Verdict{Scenario: s, Result: res})
	want := Exercised{
		// The scenario's own send, then the cancel 700 ms into the second wait.
		Points: []string{"before any event", "llm/retry"},
		Invariants: []oracle.ID{oracle.LogWellFormed, oracle.RetryBudget, oracle.AttemptsWithinPolicy, oracle.RetryAfterHandledFailure,
			oracle.CancelledTurnNeverRetries, oracle.CancelTakesEffectAtOnce, oracle.BackoffHonoured, oracle.TurnTerminates,
			oracle.ListenerWithinTurn, oracle.SUTPanic},
		// Without a configuration every input counts: the send at 0 ms,
		// and the cancel placed 700 ms after the second llm/retry.
		Landings: []Landing{{"send", pointAtTime}, {"cancel", pointInsideWait}},
	}
	if diff := cmp.Diff(want, x); diff != "" {
		t.Errorf("exercised (-want +got):\n%s", diff)
	}
}

// TestCoverageReport: over a few hundred seeds every fault kind and every
// invariant's precondition is exercised; over none, everything is reported
// never hit.
func TestCoverageReport(t *testing.T) {
	var c Coverage
	for seed := uint64(1); seed <= 400; seed++ {
		c.add(exercise(judge.RunSeed(seed, faults.Overrides{}, sim.Options{}, false)))
	}
	r := c.Report()
	for _, rows := range [][]CoverageRow{r.Kinds, r.Invariants} {
		for _, row := range rows {
			if row.Count == 0 {
				t.Errorf("%s never exercised in 400 seeds", row.Name)
			}
		}
	}
	// Not counted: the determinism sample (counted by run), and the two
	// differentials, which only a run beside DSH's loop or its view code
	// has.
	if r.Runs != 400 || len(r.Kinds) != len(faults.Kinds) || len(r.Invariants) != len(oracle.Invariants)-3 {
		t.Errorf("report of %d runs, %d kinds, %d invariants", r.Runs, len(r.Kinds), len(r.Invariants))
	}
	var empty Coverage
	var b strings.Builder
	empty.Report().Write(&b)
	if n := strings.Count(b.String(), "warning: never exercised:"); n != len(faults.Kinds)+len(faults.EventTypes())+len(oracle.Invariants)-3 {
		t.Errorf("an empty coverage warns %d times:\n%s", n, b.String())
	}
}

// TestCancelsNote: the cancels that landed, by kind of point, the most
// first; the other actions are not cancels.
func TestCancelsNote(t *testing.T) {
	r := CoverageReport{Landings: []LandingRow{{"cancel", "after an event", 3}, {"steer", "at a virtual time", 9},
		{"cancel", "at a virtual time", 5}, {"cancel", "during a tool", 0}}}
	if got, want := r.CancelsNote(), "5 at a virtual time, 3 after an event"; got != want {
		t.Errorf("CancelsNote = %q, want %q", got, want)
	}
	if got := (CoverageReport{}).CancelsNote(); got != "none" {
		t.Errorf("no landing: %q, want none", got)
	}
}
