package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/turnsim/turnsim/budget"
)

// Named is a report with the policy's name and configuration, for the page.
type Named struct {
	Policy string
	Report budget.Report
	// Config is what was measured (its Env is Page's); the zero Config
	// leaves the policy's parameters off the page.
	Config budget.Config
}

// Page is everything the page shows: the policies' reports side by side,
// the environment they met, and the bounds they were held to (each but
// the reports may be left out).
type Page struct {
	Reports []Named
	Env     *budget.Environment
	Bounds  []budget.Bound
	// Seed is the first turn's seed (or the horizon's), when known.
	Seed *uint64
}

// verdict is a bound's outcome for one policy.
type verdict struct {
	Bound budget.Bound
	Value float64
	Holds bool
}

// verdicts are every bound's outcome for each policy, in the page's order.
func (p Page) verdicts() [][]verdict {
	out := make([][]verdict, len(p.Reports))
	for i, n := range p.Reports {
		for _, b := range p.Bounds {
			ok, v := b.Holds(n.Report)
			out[i] = append(out[i], verdict{Bound: b, Value: v, Holds: ok})
		}
	}
	return out
}

// whyLine says in a line why a policy's turns failed: how many, how many
// of them an incident hit, and the commonest reason.
func whyLine(r budget.Report) string {
	failed := r.Turns - r.Completed
	if failed == 0 {
		return "no turn failed"
	}
	line := fmt.Sprintf("%d turns failed", failed)
	if tl := r.Timeline; tl != nil {
		line += fmt.Sprintf(", %d of them hit by an incident", tl.FailedHit)
	}
	if len(r.Failures) > 0 {
		f := r.Failures[0]
		line += fmt.Sprintf("; commonest: %d × %s: %s", f.Turns, f.Code, f.Why)
	}
	return line
}

// WritePage writes one self-contained page (no scripts, no network): the
// verdicts, the environment, every policy's parameters and figures side by
// side, its exhaustion interval on an axis shared by all of them with the
// bounds drawn, histograms of recovery time and attempts per turn on log
// count axes with percentiles and bounds marked, and, over a horizon, the
// incidents on a timeline above each policy's failed turns.
func WritePage(w io.Writer, p Page) error {
	if len(p.Reports) == 0 {
		return fmt.Errorf("budget page: no report to draw")
	}
	data := pageData{Page: p, Scale: newExhaustionScale(p.Reports, p.Bounds), Width: chartW, Verdicts: p.verdicts()}
	for _, n := range p.Reports {
		data.Recovery = append(data.Recovery, recoveryChart(n.Report, p.Bounds...))
		data.Attempts = append(data.Attempts, attemptsChart(n.Report))
		data.Params = append(data.Params, policyParams(n.Config))
	}
	data.Env = envParams(p.Env)
	data.Timeline = newTimelineChart(p.Reports)
	for i := range data.Verdicts {
		var broken []string
		for _, v := range data.Verdicts[i] {
			if !v.Holds {
				broken = append(broken, fmt.Sprintf("%s (%s = %s)", v.Bound, v.Bound.Figure, figureText(v.Bound.Figure, v.Value)))
			}
		}
		if n := len(p.Reports[i].Report.Violations); n > 0 {
			broken = append(broken, fmt.Sprintf("the oracle on %d turns", n))
		}
		data.Pass = append(data.Pass, len(broken) == 0)
		data.Broken = append(data.Broken, strings.Join(broken, ", "))
		data.Why = append(data.Why, whyLine(p.Reports[i].Report))
	}
	return page.Execute(w, data)
}

type pageData struct {
	Page
	Scale              exhaustionScale
	Recovery, Attempts []chart
	Width              float64
	Verdicts           [][]verdict
	Pass               []bool
	Broken             []string
	Why                []string
	Params             [][]setting
	Env                []setting
	Timeline           *timelineChart
}
