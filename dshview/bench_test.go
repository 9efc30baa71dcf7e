package dshview

import (
	"testing"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// campaignLogs are the model's logs of seeds 1…n, as simrun run draws
// them.
func campaignLogs(n int) [][]session.Event {
	logs := make([][]session.Event, n)
	for i := range logs {
		logs[i] = judge.RunSeed(uint64(i+1), faults.Overrides{}, sim.Options{}, false).Result.Events
	}
	return logs
}

// BenchmarkEvaluate: DSH's view code deriving logs, on two evaluators
// side by side (this machine's two cores), the Go side included (events
// written, answers read): the whole log alone (logs/s is what the
// evaluator derives), and every view Checker asks, compared with
// turnsim's view.
func BenchmarkEvaluate(b *testing.B) {
	p := pool(b, 2)
	logs := campaignLogs(300)
	events := 0
	for _, l := range logs {
		events += len(l)
	}
	b.Logf("%d logs of %.1f events on average", len(logs), float64(events)/float64(len(logs)))
	run := func(b *testing.B, one func(events []session.Event)) {
		b.SetParallelism(1) // GOMAXPROCS goroutines: one per evaluator
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				one(logs[i%len(logs)])
				i++
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "logs/s")
	}
	b.Run("whole-log", func(b *testing.B) {
		run(b, func(events []session.Event) {
			if _, err := p.Evaluate(events, Query{Views: []View{{Where: "the whole log", Steps: [][2]int{{0, len(events)}}, Rows: true}}}); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("every-view-compared", func(b *testing.B) {
		c := Checker{Pool: p}
		run(b, func(events []session.Event) {
			if _, err := c.Derive(events); err != nil {
				b.Fatal(err)
			}
		})
	})
}
