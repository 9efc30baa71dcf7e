package report

import (
	"context"
	"testing"

	"github.com/turnsim/turnsim/budget"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/retry"
)

// mustRun is c.Run for a configuration the test builds valid.
func mustRun(t testing.TB, c budget.Config, seed uint64, runs int) budget.Report {
	t.Helper()
	r, err := c.Run(context.Background(), seed, runs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// normal is DSH's default policy with n retries.
func normal(n int) *loop.RetryPolicy {
	p := retry.DefaultPolicy()
	p.MaxRetries = n
	return p
}

func fixed(v float64) *budget.Distribution { return &budget.Distribution{Fixed: &v} }

func mustBound(t *testing.T, text string) budget.Bound {
	b, err := budget.ParseBound(text)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
