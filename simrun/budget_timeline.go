package simrun

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/budget"
	"github.com/turnsim/turnsim/budget/report"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/internal/words"
)

// worstIncidents is how many incidents the text report lists: the ones
// that failed the most turns (the page and --json have them all).
const worstIncidents = 5

// printTimeline prints what a horizon held: its incidents, the worst of
// them, the worst minute, and the analytic cross-checks.
func printTimeline(tw io.Writer, tl *budget.TimelineReport) {
	hit, turns, carried, failed, longest := 0, 0, 0, 0, 0.0
	for _, in := range tl.Incidents {
		if in.TurnsHit > 0 {
			hit++
		}
		turns += in.TurnsHit
		carried += in.Carried
		failed += in.Failed
		longest = max(longest, in.LongestRecoveryMs)
	}
	fmt.Fprintf(tw, "  incidents\t%d, %d of them hit turns: %d turns hit, %d carried through, %d failed; longest recovery %s ms\n",
		len(tl.Incidents), hit, turns, carried, failed, num(longest))
	fmt.Fprintf(tw, "  failed turns an incident hit\t%d\n", tl.FailedHit)
	worst := slices.Clone(tl.Incidents)
	slices.SortStableFunc(worst, func(a, b budget.IncidentReport) int { return b.Failed - a.Failed })
	for _, in := range worst[:min(worstIncidents, len(worst))] {
		if in.Failed == 0 {
			break
		}
		fmt.Fprintf(tw, "\t%s  %s for %s (%s): %d hit, %d carried, %d failed, longest recovery %s ms; failed turns %s\n",
			report.Clock(in.FromMs), strictjson.Printable(in.Code), report.Span(in.LengthMs()), in.Source, in.TurnsHit, in.Carried, in.Failed, num(in.LongestRecoveryMs), turnList(in))
	}
	peak := 0
	for m, n := range tl.Failed {
		if n > tl.Failed[peak] {
			peak = m
		}
	}
	if len(tl.Failed) > 0 && tl.Failed[peak] > 0 {
		fmt.Fprintf(tw, "  worst minute\t%s from %s\n", words.Plural(tl.Failed[peak], "failed turn"), report.Clock(float64(peak)*60e3))
	}
	for _, c := range tl.Checks {
		verdict := "within the interval"
		if !c.Holds {
			verdict = "OUTSIDE the interval"
		}
		fmt.Fprintf(tw, "  cross-check\t%s: %.4g (%d of %d; 95%% CI %.4g … %.4g), analytic %.4g: %s\n",
			c.What, c.Observed, c.K, c.N, c.Lo, c.Hi, c.Analytic, verdict)
	}
}

// turnList names an incident's first failed turns, for --turn.
func turnList(in budget.IncidentReport) string {
	var names []string
	for _, n := range in.FailedTurns {
		names = append(names, fmt.Sprint(n))
	}
	if in.Failed > len(in.FailedTurns) {
		names = append(names, "…")
	}
	return strings.Join(names, ", ")
}
