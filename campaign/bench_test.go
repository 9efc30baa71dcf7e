package campaign

import (
	"context"
	"testing"
)

// BenchmarkCampaign is simrun run's work on one worker: seeds drawn, run,
// checked, their results emitted in seed order, with the default 5% of
// them run twice for nondeterminism. It reports runs/s.
func BenchmarkCampaign(b *testing.B) {
	b.ReportAllocs()
	const seeds = 2000
	runs := 0
	for b.Loop() {
		s := Run(context.Background(), Config{First: 1, Count: seeds, Workers: 1, Sample: 0.05}, func(*Result) {})
		if s.Violations+s.Internal > 0 || s.Runs != seeds {
			b.Fatalf("%d runs, %d failed, %d internal errors", s.Runs, s.Violations, s.Internal)
		}
		runs += seeds
	}
	b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
}
