package dshloop

import (
	"strings"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// agentErrorPrefix begins the driver's warning of an agent error.
const agentErrorPrefix = "DSH's loop reported an agent error"

// evidence is a run of DSH's loop as the recorded findings
// (conformance.Findings) are recognised by: its log, and the agent errors
// the driver saw.
func evidence(res *sim.Result) conformance.Evidence {
	e := conformance.Evidence{Events: res.Events}
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, agentErrorPrefix) {
			e.AgentErrors = append(e.AgentErrors, w)
		}
	}
	return e
}

// explain is judge.Explainer for DSH's loop: in a run that shows a
// recorded finding, the violations of DSH's log of the invariants the
// finding breaks are the finding's; every other violation stays, as does
// every violation of the model's own log beside it. (It once took every
// violation of such a run for the finding's, and a patch that let a
// cancelled turn make its request hid behind cancel-before-response.)
func explain(res *sim.Result, vs []oracle.Violation) ([]oracle.Violation, []string) {
	var own, models []oracle.Violation
	for _, v := range vs {
		if strings.HasPrefix(v.Message, judge.ModelLog) {
			models = append(models, v)
		} else {
			own = append(own, v)
		}
	}
	var agreeBefore func(int) bool
	if res.Model != nil {
		agreeBefore = func(turn int) bool { return conformance.AgreeBefore(side(res), side(res.Model), turn) }
	}
	rest, names := conformance.Explain(evidence(res), own, agreeBefore)
	if len(names) == 0 {
		return vs, nil
	}
	return append(rest, models...), names
}
