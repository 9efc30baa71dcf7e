package baseline

import (
	"bytes"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/sim"
)

var (
	sidePlans   = flag.Int("side.plans", 100, "plans (seeds from 1) the baseline runs, twice each, per clock step")
	sideKernel  = flag.Int("side.kernel", 20000, "seeds the deterministic kernel runs for its speed")
	sideMutants = flag.Int("side.mutant-runs", 3, "runs of each mutant's corpus plan, per harness")
)

// cpuTime is the process's user and system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure is one harness's figures over a set of runs.
type measure struct {
	name                  string
	runs, events          int
	wall, cpu             time.Duration
	mallocs               uint64
	plans                 int
	verdictsDiffer, diffs int // plans whose two runs differ in verdict, in log bytes
	unapplied             int // runs where a planned action never ran
	hung                  int // plans with a run that hung (Result.Hung): no verdict to compare
}

func (m *measure) runsPerSec() float64 { return float64(m.runs) / m.wall.Seconds() }
func (m *measure) runsPerCPU() float64 { return float64(m.runs) / m.cpu.Seconds() }

// timed runs f, adding its wall time, CPU time and allocations to m.
func (m *measure) timed(f func()) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c0, t0 := cpuTime(), time.Now()
	f()
	m.wall += time.Since(t0)
	m.cpu += cpuTime() - c0
	runtime.ReadMemStats(&after)
	m.mallocs += after.Mallocs - before.Mallocs
}

// BenchmarkSideBySide runs the same fault plans (faults.Draw, seeds from
// 1) through turnsim's deterministic kernel and through the baseline
// harness, and prints one table: runs/s and events/s of each, runs per
// CPU-second (the baseline mostly sleeps: Mock.Add sleeps a millisecond of
// real time per move), the ratio, how often two runs of one plan differ in
// verdict or in log bytes, and how reliably each finds the mutants of the
// zoo from their corpus plans. Run it once: -benchtime 1x (make bench).
func BenchmarkSideBySide(b *testing.B) {
	for b.Loop() {
		kernel := measure{name: "turnsim (one goroutine)"}
		kernel.timed(func() {
			var st judge.Storage // one worker's, as a campaign's
			for seed := uint64(1); seed <= uint64(*sideKernel); seed++ {
				v := judge.RunSeedIn(&st, seed, faults.Overrides{}, sim.Options{}, false)
				if len(v.Violations) > 0 {
					b.Fatalf("seed %#x: %s", seed, v.Violations[0])
				}
				kernel.runs++
				kernel.events += len(v.Result.Events)
			}
		})
		// The kernel's flakiness over the baseline's plans: every plan run
		// twice, verdicts and bytes compared.
		kernel.plans = *sidePlans
		for seed := uint64(1); seed <= uint64(*sidePlans); seed++ {
			a := judge.RunSeed(seed, faults.Overrides{}, sim.Options{}, false)
			again := judge.RunSeed(seed, faults.Overrides{}, sim.Options{}, false)
			if !slices.Equal(Invariants(a.Violations), Invariants(again.Violations)) {
				kernel.verdictsDiffer++
			}
			if !bytes.Equal(judge.LogBytes(a.Result), judge.LogBytes(again.Result)) {
				kernel.diffs++
			}
		}
		if kernel.verdictsDiffer > 0 || kernel.diffs > 0 {
			// The kernel's whole claim: one plan, one log.
			b.Errorf("turnsim: %d plans changed verdict and %d changed bytes between two runs", kernel.verdictsDiffer, kernel.diffs)
		}
		rows := []measure{kernel}
		for _, step := range []time.Duration{100 * time.Millisecond, time.Second} {
			m := measure{name: fmt.Sprintf("baseline, clock moved %v at a time", step), plans: *sidePlans}
			m.timed(func() {
				for seed := uint64(1); seed <= uint64(*sidePlans); seed++ {
					_, s := faults.Draw(seed, faults.Overrides{})
					first, second := Run(s, Options{Step: step}), Run(s, Options{Step: step})
					m.runs += 2
					m.events += len(first.Events) + len(second.Events)
					if first.Hung || second.Hung {
						// That run's failure, recorded; the table goes on.
						m.hung++
						continue
					}
					if !slices.Equal(first.Verdict(), second.Verdict()) {
						m.verdictsDiffer++
					}
					if !bytes.Equal(logBytes(first.Events), logBytes(second.Events)) {
						m.diffs++
					}
					if first.Unapplied > 0 || second.Unapplied > 0 {
						m.unapplied++
					}
				}
			})
			rows = append(rows, m)
		}
		zoo := mutantRows(b)
		table := sideTable(rows, zoo)
		// Straight to the output: a benchmark's log keeps ten lines.
		fmt.Print(table)
		b.ReportMetric(kernel.runsPerSec(), "turnsim-runs/s")
		b.ReportMetric(float64(kernel.events)/kernel.wall.Seconds(), "turnsim-events/s")
		b.ReportMetric(float64(kernel.mallocs)/float64(kernel.events), "turnsim-allocs/event")
		b.ReportMetric(rows[1].runsPerSec(), "baseline-runs/s")
		b.ReportMetric(kernel.runsPerSec()/rows[1].runsPerSec(), "ratio")
		b.ReportMetric(float64(rows[1].verdictsDiffer)/float64(rows[1].plans), "baseline-flaky-verdicts")
	}
}

// zooRow is one mutant's corpus plan run by both harnesses.
type zooRow struct {
	mutant                string
	kernelFound, baseline int
	runs                  int
	hung                  int // baseline runs that hung: not found
}

func mutantRows(b *testing.B) []zooRow {
	entries := campaign.LoadCorpus(filepath.Join("..", "corpus"))
	var rows []zooRow
	for _, e := range entries {
		if e.Err != nil || e.Entry.Mutant == "" {
			continue
		}
		m, ok := mutants.Find(e.Entry.Mutant)
		if !ok {
			b.Fatalf("%s: unknown mutant %q", e.Path, e.Entry.Mutant)
		}
		row := zooRow{mutant: m.Name, runs: *sideMutants}
		for range *sideMutants {
			if judge.Violates(e.Scenario, m.Trips, m.Options) {
				row.kernelFound++
			} else {
				b.Errorf("%s: turnsim did not find the mutant from its corpus plan %s", m.Name, e.Path)
			}
			r := Run(e.Scenario, Options{Step: 100 * time.Millisecond, Sim: m.Options})
			if r.Hung {
				row.hung++
			}
			if slices.Contains(r.Verdict(), string(m.Trips)) {
				row.baseline++
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func sideTable(rows []measure, zoo []zooRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the same plans (faults.Draw, seeds from 1) through both harnesses, %d cores\n", runtime.NumCPU())
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "harness\truns\truns/s\tevents/s\truns/CPU-s\tallocs/event\tverdicts differ\tlogs differ\thung\t")
	for _, m := range rows {
		allocs := float64(m.mallocs) / float64(m.events)
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.0f\t%.1f\t%.1f\t%d/%d\t%d/%d\t%d/%d\t\n", m.name, m.runs, m.runsPerSec(),
			float64(m.events)/m.wall.Seconds(), m.runsPerCPU(), allocs, m.verdictsDiffer, m.plans, m.diffs, m.plans, m.hung, m.plans)
	}
	tw.Flush()
	k := rows[0]
	for _, m := range rows[1:] {
		fmt.Fprintf(&b, "turnsim / %s: %.0f× runs/s, %.0f× runs per CPU-second", m.name, k.runsPerSec()/m.runsPerSec(), k.runsPerCPU()/m.runsPerCPU())
		if m.unapplied > 0 {
			fmt.Fprintf(&b, " (%d plans lost an event-triggered action in a run: its event came after the run went idle)", m.unapplied)
		}
		b.WriteString("\n")
	}
	kernelRuns, kernelFound, baseRuns, baseFound, flaky, missed := 0, 0, 0, 0, 0, 0
	for _, z := range zoo {
		kernelRuns += z.runs
		baseRuns += z.runs
		kernelFound += z.kernelFound
		baseFound += z.baseline
		if z.baseline > 0 && z.baseline < z.runs {
			flaky++
		}
		if z.baseline == 0 {
			missed++
		}
	}
	fmt.Fprintf(&b, "mutants, each from its corpus plan: turnsim found %d of %d runs; the baseline (100ms steps, the log alone: it has no run facts) %d of %d — never for %d mutants, sometimes for %d\n",
		kernelFound, kernelRuns, baseFound, baseRuns, missed, flaky)
	for _, z := range zoo {
		fmt.Fprintf(&b, "  %-28s turnsim %d/%d  baseline %d/%d", z.mutant, z.kernelFound, z.runs, z.baseline, z.runs)
		if z.hung > 0 {
			fmt.Fprintf(&b, " (%d hung)", z.hung)
		}
		b.WriteString("\n")
	}
	return b.String()
}
