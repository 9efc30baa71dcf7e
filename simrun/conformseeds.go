package simrun

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// seedRun bounds the seeded differential runs.
type seedRun struct {
	seeds, start uint64
	out          string
	// jobs is how many plans run against DSH at once.
	jobs int
	// shrinkRuns and shrinkTime bound the shrinking of one difference:
	// every candidate is a DSH run of seconds.
	shrinkRuns int
	shrinkTime time.Duration
}

// seedOutcome is one plan's run.
type seedOutcome struct {
	seed     uint64
	scenario *sim.Scenario
	notes    []string
	cmp      *conformance.Comparison
	took     time.Duration
	err      error
}

// runSeeds draws plans from simrun run's generators, restricted to what
// the wire and the web API can express, runs each against DSH and the
// model, and shrinks each difference against DSH.
func (r *conformRunner) runSeeds(sr seedRun, stdout, stderr io.Writer) int {
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(interrupted)
	var agree, differ, newFindings, errs int
	recorded := map[string]int{} // recorded findings reproduced, by name
	var n uint64
	start := time.Now()
	for n < sr.seeds {
		select {
		case <-interrupted:
			// Not a pass: an interrupted batch says so in its status.
			fmt.Fprintf(stdout, "%d plans, %d agree, %d differ, %d new findings, %d errors (interrupted)%s\n", n, agree, differ, newFindings, errs, recordedNote(recorded))
			return exitInterrupted
		default:
		}
		// -j plans at a time, reported in seed order.
		batch := make([]seedOutcome, min(uint64(sr.jobs), sr.seeds-n))
		var wg sync.WaitGroup
		for i := range batch {
			wg.Add(1)
			go func(o *seedOutcome, seed uint64) {
				defer wg.Done()
				o.seed = seed
				_, o.scenario, o.notes = conformance.SeedPlan(seed)
				o.cmp, o.took, o.err = r.run(o.scenario)
			}(&batch[i], sr.start+n+uint64(i))
		}
		wg.Wait()
		n += uint64(len(batch))
		for _, o := range batch {
			label := fmt.Sprintf("seed %#x", o.seed)
			c, s := o.cmp, o.scenario
			switch {
			case o.err != nil:
				errs++
				fmt.Fprintf(stdout, "%s: error: %v\n", label, o.err)
			case c.Agree():
				agree++
				fmt.Fprintf(stdout, "%s: agree (%d skeleton lines, %s, %s; DSH %.1fs)\n",
					label, c.Lines, count(len(s.World), "cancel"), count(len(s.Inputs), "prompt"), o.took.Seconds())
				printNotes(stdout, o.notes)
			case c.Finding() && len(newViolations(c)) == 0:
				// A recorded finding, reproduced: not a new failure.
				_, names := conformance.Explain(evidence(c), c.DSHViolations, nil)
				for _, name := range names {
					recorded[name]++
				}
				fmt.Fprintf(stdout, "%s: recorded finding about DSH reproduced: %s (not a new failure)\n", label, strings.Join(names, ", "))
				printNotes(stdout, o.notes)
			case c.Finding():
				// DSH breaks an invariant no recorded finding names: a
				// failure, shrunk like a difference.
				newFindings++
				fmt.Fprintf(stdout, "%s: a new finding about DSH: its log breaks an invariant the model's keeps, and no recorded finding names it\n", label)
				printNotes(stdout, o.notes)
				printDifference(stdout, c)
				r.shrinkWhile(sr, s, stdout, func(c *conformance.Comparison) bool { return c.Finding() && len(newViolations(c)) > 0 })
			default:
				differ++
				fmt.Fprintf(stdout, "%s: differ\n", label)
				printNotes(stdout, o.notes)
				printDifference(stdout, c)
				r.shrinkWhile(sr, s, stdout, func(c *conformance.Comparison) bool { return !c.Agree() && !c.Finding() })
			}
		}
	}
	fmt.Fprintf(stderr, "conformance: %d plans in %.1fs\n", n, time.Since(start).Seconds())
	fmt.Fprintf(stdout, "%d plans, %d agree, %d differ, %d new findings, %d errors%s\n", n, agree, differ, newFindings, errs, recordedNote(recorded))
	return batchStatus(differ+newFindings, errs)
}

// evidence is a web host run as the recorded findings are recognised by.
func evidence(c *conformance.Comparison) conformance.Evidence {
	return conformance.Evidence{Events: c.DSH.Events, AgentErrors: c.AgentErrors}
}

// newViolations are the violations of DSH's log that no recorded finding
// it shows accounts for; a difference of the skeletons is one of them
// unless the two sides agree on every turn before the finding's (a
// finding must not hide a difference it did not cause).
func newViolations(c *conformance.Comparison) []oracle.Violation {
	vs := c.DSHViolations
	if c.Diff != "" {
		vs = append(slices.Clone(vs), oracle.Violation{Invariant: oracle.DiffersFromModel, Message: "the skeletons differ"})
	}
	rest, _ := conformance.Explain(evidence(c), vs, func(turn int) bool { return conformance.AgreeBefore(&c.DSH, &c.Model, turn) })
	return rest
}

// recordedNote is the last line's count of recorded findings reproduced,
// by name in the order of conformance.Findings ("" for none).
func recordedNote(recorded map[string]int) string {
	var parts []string
	for _, f := range conformance.Findings {
		if n := recorded[f.Name]; n > 0 {
			parts = append(parts, f.Name+" in "+count(n, "plan"))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (recorded findings about DSH, apart: " + strings.Join(parts, ", ") + ")"
}

// shrinkWhile shrinks a plan against DSH while its comparison still
// fails as it did (fails), within the run and time bounds, and writes it
// as a conformance scenario.
func (r *conformRunner) shrinkWhile(sr seedRun, s *sim.Scenario, stdout io.Writer, fails func(*conformance.Comparison) bool) {
	deadline := time.Now().Add(sr.shrinkTime)
	runs := 0
	shrunk := campaign.ShrinkWhile(s, campaign.Keep{}, func(c *sim.Scenario) bool {
		if runs >= sr.shrinkRuns || time.Now().After(deadline) {
			return false
		}
		if len(conformance.Expressible(c)) > 0 || len(conformance.Uncertain(c)) > 0 {
			return false // not a plan DSH can be held to
		}
		runs++
		cmp, _, err := r.run(c)
		return err == nil && fails(cmp)
	})
	fmt.Fprintf(stdout, "  shrunk from %d to %d entries in %d DSH runs\n", campaign.PlanEntries(s), campaign.PlanEntries(shrunk), runs)
	r.keepPlan(sr.out, shrunk, stdout)
}

// keepPlan writes a plan as a conformance scenario with its reproduction
// line.
func (r *conformRunner) keepPlan(out string, s *sim.Scenario, stdout io.Writer) {
	data, err := s.MarshalJSON()
	if err == nil {
		err = os.MkdirAll(out, 0o755)
	}
	path := filepath.Join(out, safeName(s.Name)+".json")
	if err == nil {
		err = writeAtomically(path, func(w io.Writer) error { _, err := w.Write(data); return err })
	}
	if err != nil {
		fmt.Fprintf(stdout, "  could not keep the plan: %v\n", err)
		return
	}
	mutant := ""
	if r.mutant != "" {
		mutant = " --mutant " + r.mutant
	}
	fmt.Fprintf(stdout, "  wrote %s\n  reproduce: simrun conformance --dsh %s%s %s\n", path, r.dsh, mutant, path)
}

// count is "1 cancel", "2 cancels".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// printNotes says what putting a plan on the wire changed in it (see
// conformance.OnTheWire and SeedPlan).
func printNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(w, "  for DSH: %s\n", n)
	}
}
