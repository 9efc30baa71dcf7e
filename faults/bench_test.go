package faults

import (
	"testing"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/sim"
)

// BenchmarkRun draws, runs and checks seeds of the default configuration
// mix on one goroutine, oracle included, and reports runs/s and events/s.
// Nothing of a passing run is kept.
func BenchmarkRun(b *testing.B) {
	b.ReportAllocs()
	events, runs := 0, 0
	seed := uint64(1)
	for b.Loop() {
		v := RunSeed(seed, Overrides{}, sim.Options{}, false)
		if len(v.Violations) > 0 {
			b.Fatalf("seed %#x: %s", seed, v.Violations[0])
		}
		events += len(v.Result.Events)
		runs++
		seed++
	}
	b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(runs), "events/run")
}

// BenchmarkRunWithAPlugIn is BenchmarkRun with a listener of one's own in
// the waterfall (one that passes every failure on), whose every call the
// world guards (sim/guard.go): what the guard costs a campaign.Check.
func BenchmarkRunWithAPlugIn(b *testing.B) {
	b.ReportAllocs()
	passOn := sim.Listener{Name: "pass-on", New: func(sim.Env) loop.RequestErrorListener {
		return func(_ *loop.RequestError, next loop.Next) (loop.Action, error) { return next() }
	}}
	opts := sim.Options{Listeners: []sim.Listener{passOn}}
	events, runs := 0, 0
	seed := uint64(1)
	for b.Loop() {
		v := RunSeed(seed, Overrides{}, opts, false)
		if len(v.Violations) > 0 {
			b.Fatalf("seed %#x: %s", seed, v.Violations[0])
		}
		events += len(v.Result.Events)
		runs++
		seed++
	}
	b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
	b.ReportMetric(float64(events)/float64(runs), "events/run")
}
