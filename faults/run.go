package faults

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// Verdict is what one seed gave.
type Verdict struct {
	Seed       uint64
	Config     *Config
	Scenario   *sim.Scenario
	Result     *sim.Result
	Violations []oracle.Violation
}

// A Planner is a system under test that can enact part of what the model
// can (DSH's own loop, package dshloop): a seed's draw is restricted to
// its kinds and aimed at its choice points, then put in its terms, so
// that the plan a seed prints is the plan that ran, on it and beside it
// on the model.
type Planner interface {
	// Kinds are the fault kinds it can enact; Points the event types and
	// choice points its world actions can be aimed at.
	Kinds() []string
	Points() []string
	// Plan is a drawn scenario as the system enacts it.
	Plan(s *sim.Scenario) *sim.Scenario
}

// An Aimer is a Planner that adds to a seed's draw world actions aimed
// at its own choice points, drawn from the seed (stream "points"), so that
// its campaigns reach each of them often.
type Aimer interface {
	// Aim is the plan with them, given the kinds the seed enabled.
	Aim(seed uint64, kinds []string, s *sim.Scenario) *sim.Scenario
}

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
	res := sim.RunWith(s, opts)
	if res.Refused != "" {
		return res, nil
	}
	vs := oracle.Check(res.Events, opts.Oracle(res))
	if m := res.Model; m != nil {
		for _, v := range oracle.Check(m.Events, opts.Oracle(m)) {
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
			prefix = SystemLog
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

// SystemLog begins the message of a view's violation or finding in the
// log of the system beside the model (--sut both: DSH's own loop, the one
// other system there is).
const SystemLog = "in DSH's log: "

// DrawFor is seed's plan for the system under test opts name: drawn with
// the overrides (For), then, for a Planner, in its terms.
func DrawFor(seed uint64, o Overrides, opts sim.Options) (*Config, *sim.Scenario) {
	c, s := Draw(seed, o.For(opts))
	if p, ok := opts.System.(Planner); ok {
		s = p.Plan(s)
	}
	if a, ok := opts.System.(Aimer); ok {
		s = a.Aim(seed, c.Kinds, s)
	}
	return c, s
}

// RunSeed draws a seed's plan, runs it and checks it. With
// checkDeterminism it runs the plan twice and reports different bytes as a
// nondeterminism violation.
func RunSeed(seed uint64, o Overrides, opts sim.Options, checkDeterminism bool) Verdict {
	c, s := DrawFor(seed, o, opts)
	res, vs := Check(s, opts)
	if res.Refused != "" {
		// The plan was put in the system's terms: one it refuses is
		// turnsim's fault, the seed's internal error.
		panic(fmt.Sprintf("seed %#x's plan for %s was refused: %s", seed, res.System, res.Refused))
	}
	if checkDeterminism && res.Blocked == "" { // a blocked run would block again
		if again := sim.RunWith(s, opts); !bytes.Equal(LogBytes(res), LogBytes(again)) {
			vs = append(vs, oracle.Violation{Invariant: oracle.Nondeterminism, Message: "the same seed wrote different logs on two runs"})
		}
	}
	return Verdict{Seed: seed, Config: c, Scenario: s, Result: res, Violations: vs}
}

// For is the overrides with the listeners the world's options add to the
// waterfall: what a seed draws depends on them.
func (o Overrides) For(opts sim.Options) Overrides {
	o.Listeners = sim.Added(opts.Listeners)
	if p, ok := opts.System.(Planner); ok {
		can := p.Kinds()
		if o.Kinds == nil {
			o.Kinds = can
		} else {
			o.Kinds = slices.DeleteFunc(slices.Clone(o.Kinds), func(k string) bool { return !slices.Contains(can, k) })
		}
		o.Points = p.Points()
	}
	return o
}

// LogBytes is a run's v1 log.
func LogBytes(r *sim.Result) []byte {
	var b bytes.Buffer
	session.WriteLog(&b, r.Header, r.Events)
	return b.Bytes()
}

// Principal is the violation that names a failure: the first one of an
// invariant that says what went wrong, else the first of one that says
// only how far it went, else the first.
//
// Attempts over the policy's bound and a turn the world had to stop
// follow from many bugs (a retry after a thrown recovery, a retry after a
// cancel, a budget miscounted), and log-well-formed often fires beside a
// semantic invariant: when the run breaks another invariant too, that one
// explains the bug better. It is also what a failing seed is shrunk for,
// so the seeds of one bug that overshoot by 2 attempts and by 790 shrink
// toward one plan.
func Principal(vs []oracle.Violation) oracle.Violation {
	for _, v := range vs {
		if !consequence(v.Invariant) {
			return v
		}
	}
	for _, v := range vs {
		if v.Invariant != oracle.LogWellFormed {
			return v
		}
	}
	return vs[0]
}

// consequence says whether an invariant's violation is one that other
// bugs' violations bring with them.
func consequence(id oracle.ID) bool {
	switch id {
	case oracle.LogWellFormed, oracle.AttemptsWithinPolicy, oracle.TurnTerminates:
		return true
	}
	return false
}

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
