package judge

import (
	"slices"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// An Explainer is a system under test with recorded findings: the
// violations that a recorded finding explains are that finding
// reproducing, not a new failure.
type Explainer interface {
	// Explain returns the violations no recorded finding explains, and
	// the names of the findings that explain the others.
	Explain(res *sim.Result, vs []oracle.Violation) (rest []oracle.Violation, findings []string)
}

// Check runs a scenario on the system under test and checks it, strictly
// and with the run's facts. A run beside the model (--sut both) is also
// checked on the model's log, and a difference of the two skeletons is a
// violation of its own (DiffersFromModel); violations a recorded finding
// explains go to the result's Findings. A scenario the system refused is
// no run and has no violations (Result.Refused says why).
func Check(s *sim.Scenario, opts sim.Options) (*sim.Result, []oracle.Violation) {
	return checkIn(nil, s, opts)
}

// checkIn is Check with the run in a worker's storage (sim.RunIn).
func checkIn(st *sim.Storage, s *sim.Scenario, opts sim.Options) (*sim.Result, []oracle.Violation) {
	res := sim.RunIn(st, s, opts)
	if res.Refused != "" {
		return res, nil
	}
	checker := st.Checker()
	vs := checker.Check(res.Events, opts.Oracle(res))
	if m := res.Model; m != nil {
		for _, v := range checker.Check(m.Events, opts.Oracle(m)) {
			v.Message = ModelLog + v.Message
			vs = append(vs, v)
		}
		if res.Difference != "" {
			vs = append(vs, oracle.Violation{Invariant: oracle.DiffersFromModel, Message: firstDifference(res.Difference)})
		}
	}
	if e, ok := opts.System.(Explainer); ok && len(vs) > 0 {
		vs, res.Findings = e.Explain(res, vs)
	}
	if vc := opts.ViewCheck; vc != nil {
		prefix := ""
		if res.Model != nil {
			// Two logs were derived: each finding says whose it is.
			prefix = systemLog
		}
		vs = append(vs, checkView(vc, res, res.Events, prefix)...)
		if m := res.Model; m != nil {
			vs = append(vs, checkView(vc, res, m.Events, ModelLog)...)
		}
		res.ViewChecked = true
	}
	return res, vs
}

// checkView derives one log of a run with the view checker's code: its
// violations are the run's, its recorded findings the run's ViewFindings
// (those of the model's log beside another system say so, as its
// violations do).
func checkView(vc sim.ViewChecker, res *sim.Result, events []session.Event, prefix string) []oracle.Violation {
	vs, found := vc.CheckView(events)
	for i := range vs {
		vs[i].Message = prefix + vs[i].Message
	}
	for _, f := range found {
		f.Where, f.Message = prefix+f.Where, prefix+f.Message
		res.ViewFindings = append(res.ViewFindings, f)
	}
	return vs
}

// ModelLog begins the message of a violation in the model's log, when the
// model ran beside another system (--sut both).
const ModelLog = "in the model's log: "

// systemLog begins the message of a view's violation or finding in the
// log of the system beside the model (--sut both: DSH's own loop, the one
// other system there is).
const systemLog = "in DSH's log: "

// Violates reports whether a scenario still violates invariant id.
func Violates(s *sim.Scenario, id oracle.ID, opts sim.Options) bool {
	_, vs := Check(s, opts)
	for _, v := range vs {
		if v.Invariant == id {
			return true
		}
	}
	return false
}

// firstDifference says, on one line, where two skeletons first part: the
// first line DSH's loop wrote that the model did not, and the first the
// model wrote instead (the whole diff is the result's Difference).
func firstDifference(diff string) string {
	var dsh, model []string
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "- "):
			dsh = append(dsh, l[2:])
		case strings.HasPrefix(l, "+ "):
			model = append(model, l[2:])
		}
	}
	// Lines both wrote, in another place, say less than the first one
	// only one of them wrote.
	only := func(these, others []string) string {
		for _, l := range these {
			if !slices.Contains(others, l) {
				return strconv.Quote(l)
			}
		}
		return ""
	}
	d, m := only(dsh, model), only(model, dsh)
	switch {
	case d == "" && m == "":
		return "the skeletons part: the same lines in another order, first " + strconv.Quote(dsh[0])
	case m == "":
		return "the skeletons part: DSH's loop wrote " + d + ", which the model did not"
	case d == "":
		return "the skeletons part: the model wrote " + m + ", which DSH's loop did not"
	}
	return "the skeletons part: DSH's loop wrote " + d + " where the model wrote " + m
}
