// Package budgettest holds budget's check for a policy author's go test,
// apart from package budget, as net/http/httptest is apart from
// net/http: a binary that measures budgets (simrun) does not link
// package testing.
package budgettest

import (
	"testing"

	"github.com/turnsim/turnsim/budget"
)

// Check runs turns seed … seed+runs-1 under c (under a timed environment,
// the turns that arrive over its horizon, drawn from seed; runs is not
// read) and fails tb for what budget.Config.Assess finds: each of the first
// few turns the oracle failed, naming the turn, its invariants and how to
// replay it, with a count of the rest; each bound the report breaks,
// naming turns to replay; a bound that is no bound; an invalid
// configuration. It returns the report for further assertions.
func Check(tb testing.TB, c budget.Config, seed uint64, runs int, bounds ...budget.Bound) budget.Report {
	tb.Helper()
	r, failures := c.Assess(seed, runs, bounds...)
	for _, f := range failures {
		tb.Error(f)
	}
	return r
}
