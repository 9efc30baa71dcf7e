package campaign

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// Exercised is what one run exercised: the fault kinds its configuration
// enabled, the choice points where a world action landed (the type of the
// last event before it: "llm/retry" is inside a backoff wait or right
// after the record), and the invariants whose precondition held — a
// property that never had the chance to fire proves nothing.
type Exercised struct {
	Kinds, Points []string
	Invariants    []oracle.ID
	// Landings are the inputs and world actions that landed, by the kind
	// of point they were placed at.
	Landings []Landing
}

// exercise reads a verdict's coverage.
func exercise(v judge.Verdict) Exercised {
	var x Exercised
	if v.Config != nil {
		// A copy: the verdict's plan is its worker's memory, drawn over
		// by the next seed, and the stats are merged after it.
		x.Kinds = slices.Clone(v.Config.Kinds)
	}
	events := v.Result.Events
	for _, a := range v.Result.Actions {
		if v.Config != nil && a.Input > 0 && a.Input <= v.Config.Turns {
			continue // the workload's own send and followups (drawn first), not the world's doing
		}
		point := "before any event"
		if a.Seq > 0 && int(a.Seq) <= len(events) {
			point = events[a.Seq-1].Type()
		}
		x.Points = append(x.Points, point)
	}
	x.Invariants = preconditions(v.Config, v.Result)
	if v.Scenario != nil {
		workload := 0
		if v.Config != nil {
			workload = v.Config.Turns
		}
		x.Landings = sortedLandings(landings(v.Scenario, v.Result, workload))
	}
	return x
}

// preconditions are the invariants that had something to check in a run.
func preconditions(c *faults.Config, res *sim.Result) []oracle.ID {
	held := map[oracle.ID]bool{
		oracle.LogWellFormed:    true,
		oracle.TurnTerminates:   true,
		oracle.SUTPanic:         true,
		oracle.DiffersFromModel: res.Model != nil,
		// Beside DSH's view code, every log of the run is derived.
		oracle.DiffersFromDSHView: res.ViewChecked,
	}
	facts := &res.Facts
	for _, q := range facts.Requests {
		if q.Attempt > 1 {
			held[oracle.RetryAfterHandledFailure] = true
		}
	}
	if len(facts.Actions) > 0 {
		held[oracle.CancelledTurnNeverRetries] = true
		held[oracle.CancelTakesEffectAtOnce] = true
	}
	for _, d := range facts.Decisions {
		held[oracle.ListenerWithinTurn] = true
		if d.Retry {
			held[oracle.AttemptsWithinPolicy] = true
		}
		if d.Listener == oracle.CompactionListener {
			held[oracle.OverflowRecoveryBounded] = true
		}
	}
	failed := map[[2]int]bool{}
	for i := range res.Events {
		switch p := res.Events[i].Data.(type) {
		case *session.LLMRetry:
			if p.MaxRetries != nil {
				held[oracle.RetryBudget] = true
			}
		case *session.LLMRetryStarted:
			held[oracle.BackoffHonoured] = true
		case *session.AssistantChunk:
			if p.Chunk.Failed() {
				failed[[2]int{p.Turn, p.Step}] = true
				f := p.Chunk.Reason.Failure
				if c != nil && c.RetryPolicy != nil && c.RetryPolicy.Mode == loop.ModeNormal && f != nil && !slices.Contains(c.RetryPolicy.RetryableCodes, f.Code) {
					held[oracle.NonRetryableStaysTerminal] = true
				}
			}
		case *session.AssistantMessage:
			if failed[[2]int{p.Turn, p.Step}] && !p.Interrupted {
				held[oracle.FailedAttemptNotInHistory] = true
			}
		case *session.TurnEnd:
			if p.Reason.Kind == session.EndError {
				held[oracle.ExhaustedTurnRendersError] = true
			}
		case *session.InboxSpliced:
			if p.Target == loop.NextStep && p.RemovedCount > 0 {
				held[oracle.NoLostInput] = true // a mid-turn claim
			}
		}
	}
	var out []oracle.ID
	for _, inv := range oracle.Invariants {
		if held[inv.ID] {
			out = append(out, inv.ID)
		}
	}
	return out
}

// Coverage adds up what runs exercised, in any order: the counts are
// sums.
type Coverage struct {
	Runs int
	// Enactable are the fault kinds the system under test can enact (nil:
	// every kind): a kind it cannot is not listed, nor warned of as never
	// exercised (DSH's own loop has no listener that throws on cue).
	Enactable                 []string
	kinds, points, invariants map[string]int
	landings                  map[Landing]int
}

// add counts one run.
func (c *Coverage) add(x Exercised) {
	if c.kinds == nil {
		c.kinds, c.points, c.invariants, c.landings = map[string]int{}, map[string]int{}, map[string]int{}, map[Landing]int{}
	}
	c.Runs++
	for _, l := range x.Landings {
		c.landings[l]++
	}
	for _, k := range x.Kinds {
		c.kinds[k]++
	}
	for _, p := range x.Points {
		c.points[p]++
	}
	for _, id := range x.Invariants {
		c.invariants[string(id)]++
	}
}

// addReport adds the counts of a report (a shard's --stats): reports of
// disjoint runs add up to the report of all of them.
func (c *Coverage) addReport(r CoverageReport) {
	if c.kinds == nil {
		c.kinds, c.points, c.invariants, c.landings = map[string]int{}, map[string]int{}, map[string]int{}, map[Landing]int{}
	}
	c.Runs += r.Runs
	for _, row := range r.Landings {
		c.landings[Landing{row.Action, row.Point}] += row.Count
	}
	for _, row := range r.Kinds {
		c.kinds[row.Name] += row.Count
	}
	for _, row := range r.ChoicePoints {
		c.points[row.Name] += row.Count
	}
	for _, row := range r.Invariants {
		c.invariants[row.Name] += row.Count
	}
}

// CoverageRow is one counted item of a CoverageReport.
type CoverageRow struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// CoverageReport is the coverage in a fixed order, with what was never
// hit: what --stats prints, and what the --json summary carries as
// "stats".
type CoverageReport struct {
	Runs         int           `json:"runs"`
	Kinds        []CoverageRow `json:"kinds"`
	ChoicePoints []CoverageRow `json:"choicePoints"`
	Invariants   []CoverageRow `json:"invariants"`
	// Landings are the inputs and world actions that landed, by action
	// and the kind of point they were placed at (pointKinds).
	Landings []LandingRow `json:"landings"`
	Never    []string     `json:"never,omitempty"`
}

// Report lists every fault kind, every choice point the plans aim at and
// every invariant with its count (zeros included), in their own orders.
func (c *Coverage) Report() CoverageReport {
	r := CoverageReport{Runs: c.Runs}
	rows := func(names []string, counts map[string]int, what string) []CoverageRow {
		var out []CoverageRow
		for _, n := range names {
			out = append(out, CoverageRow{n, counts[n]})
			if counts[n] == 0 {
				r.Never = append(r.Never, fmt.Sprintf("%s %s", what, n))
			}
		}
		return out
	}
	kinds := faults.Kinds
	if c.Enactable != nil {
		kinds = c.Enactable
	}
	r.Kinds = rows(kinds, c.kinds, "fault kind")
	aimed := faults.EventTypes()
	r.ChoicePoints = rows(aimed, c.points, "choice point after")
	// Time-triggered actions land after other events too; list those
	// after the aimed-at ones, by name.
	for _, p := range slices.Sorted(maps.Keys(c.points)) {
		if !slices.Contains(aimed, p) {
			r.ChoicePoints = append(r.ChoicePoints, CoverageRow{p, c.points[p]})
		}
	}
	var ids []string
	for _, inv := range oracle.Invariants {
		switch {
		case inv.ID == oracle.Nondeterminism: // the determinism sample is counted by run
		case inv.ID == oracle.DiffersFromModel && c.invariants[string(inv.ID)] == 0: // only beside DSH's loop
		case inv.ID == oracle.DiffersFromDSHView && c.invariants[string(inv.ID)] == 0: // only with DSH's view code
		default:
			ids = append(ids, string(inv.ID))
		}
	}
	r.Invariants = rows(ids, c.invariants, "precondition of")
	r.Landings = landingRows(c.landings)
	return r
}

// Write prints the report for a terminal: three blocks of counts with the
// share of runs, then a warning per item never hit.
func (r CoverageReport) Write(w io.Writer) {
	block := func(title string, rows []CoverageRow) {
		fmt.Fprintf(w, "%s:\n", title)
		width := 0
		for _, row := range rows {
			width = max(width, len(row.Name))
		}
		for _, row := range rows {
			share := 0.0
			if r.Runs > 0 {
				share = 100 * float64(row.Count) / float64(r.Runs)
			}
			fmt.Fprintf(w, "  %-*s %9d  %5.1f%%\n", width, row.Name, row.Count, share)
		}
	}
	block("fault kinds (runs that enabled them)", r.Kinds)
	block("choice points (world actions landed after)", r.ChoicePoints)
	block("invariant preconditions (runs where each had something to check)", r.Invariants)
	writeLandings(w, r.Landings)
	for _, n := range r.Never {
		fmt.Fprintf(w, "warning: never exercised: %s\n", n)
	}
	if len(r.Never) == 0 {
		fmt.Fprintln(w, "every fault kind, choice point and precondition was exercised")
	}
}
