package judge

import (
	"testing"
	"time"

	"github.com/turnsim/turnsim/faults"
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
	var st Storage // one worker's, as a campaign's
	for b.Loop() {
		v := RunSeedIn(&st, seed, faults.Overrides{}, sim.Options{}, false)
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
// the waterfall (one that passes every failure on): "guarded", as every
// run with a plug-in is, on a runner's goroutine under the watchdog
// (sim/guard.go); "inline", without the watchdog, on the caller's. The
// same seeds, the same runs: the difference is what the watchdog costs a
// simtest.Check.
func BenchmarkRunWithAPlugIn(b *testing.B) {
	passOn := sim.Listener{Name: "pass-on", New: func(sim.Env) loop.RequestErrorListener {
		return func(_ *loop.RequestError, next loop.Next) (loop.Action, error) { return next() }
	}}
	for _, mode := range []struct {
		name  string
		after time.Duration
	}{{"guarded", 0}, {"inline", -1}} {
		b.Run(mode.name, func(b *testing.B) {
			b.ReportAllocs()
			opts := sim.Options{Listeners: []sim.Listener{passOn}, BlockedAfter: mode.after}
			runs, seed := 0, uint64(1)
			for b.Loop() {
				v := RunSeed(seed, faults.Overrides{}, opts, false)
				if len(v.Violations) > 0 {
					b.Fatalf("seed %#x: %s", seed, v.Violations[0])
				}
				runs++
				seed++
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}
