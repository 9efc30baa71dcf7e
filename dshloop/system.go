package dshloop

import (
	"fmt"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// The names of the systems under test besides the model.
const (
	SystemDSH  = "dsh"
	SystemBoth = "both"
)

// enactment is what DSH's loop can be asked, shared by System and Both:
// Kinds, Points and Plan make a seed's draw one DSH's composition can
// enact (faults.Planner), Aim adds actions aimed at DSH's choice points
// (faults.Aimer), Explain sets apart what a recorded finding explains
// (judge.Explainer).
type enactment struct{}

func (enactment) Kinds() []string                    { return Kinds() }
func (enactment) Points() []string                   { return Points() }
func (enactment) Plan(s *sim.Scenario) *sim.Scenario { return InProcess(s) }
func (enactment) Aim(seed uint64, kinds []string, s *sim.Scenario) *sim.Scenario {
	return Aim(seed, s, kinds)
}
func (enactment) Explain(res *sim.Result, vs []oracle.Violation) ([]oracle.Violation, []string) {
	return explain(res, vs)
}

// System is DSH's own loop as a system under test (sim.System): each
// scenario is a plan run by one of the pool's drivers.
type System struct {
	enactment
	Pool *Pool
}

func (System) Name() string { return SystemDSH }

// Run runs the scenario on DSH's loop. A scenario DSH's composition
// cannot be asked for, or a variant of turnsim's model (a mutant of the
// zoo, a listener of one's own: Go code, which runs in the model only), is
// refused with why.
func (d System) Run(s *sim.Scenario, opts sim.Options) *sim.Result {
	res, _ := d.run(s, opts)
	return res
}

// run is Run, with the driver's output (nil for a refused scenario).
func (d System) run(s *sim.Scenario, opts sim.Options) (*sim.Result, *Output) {
	if opts.Settle != nil || opts.Attempts != nil || opts.Derive != nil {
		return &sim.Result{System: SystemDSH, Refused: "a variant of turnsim's model (a mutant of the zoo) runs in the model only"}, nil
	}
	p, err := FromScenario(s)
	if err != nil {
		return &sim.Result{System: SystemDSH, Refused: err.Error()}, nil
	}
	out, err := d.Pool.Run(p)
	if err != nil {
		panic(fmt.Errorf("scenario %s on DSH's loop: %w", s.Name, err)) // turnsim's or the driver's own fault
	}
	res, err := result(s, out)
	if err != nil {
		panic(err)
	}
	return res, out
}

// Both runs a scenario on DSH's loop and on the model, and compares
// their recovery skeletons (conformance.Skeleton): the result is DSH's,
// with the model's beside it and the lines that differ.
type Both struct {
	enactment
	DSH System
}

func (Both) Name() string { return SystemBoth }

func (b Both) Run(s *sim.Scenario, opts sim.Options) *sim.Result {
	res, _ := b.DSH.run(s, opts)
	if res.Refused != "" {
		return res
	}
	// The model as DSH 0.1.0-rc.8 is where rc.8 and the later DSH of
	// docs/dsh.md part (docs/dsh.md#where-rc8-differs).
	opts.Disposal = loop.DisposalRC8
	model := sim.RunWith(s, opts)
	res.System, res.Model = SystemBoth, model
	res.Difference = conformance.LineDiff(side(res).Lines(), side(model).Lines(), 2)
	return res
}

// side is a run as one side of a comparison: its log, where its inputs
// and world actions landed (in-process, both land exactly), what each
// conversation request carried.
func side(r *sim.Result) *conformance.Side {
	s := &conformance.Side{Events: r.Events, Summaries: r.Summaries, Unfired: r.Unfired}
	for _, a := range r.Actions {
		s.Actions = append(s.Actions, conformance.Landing{BeforeSeq: a.Seq, What: a.What})
	}
	for _, q := range r.Requests {
		s.Requests = append(s.Requests, conformance.ModelRequestTags(r.Events, q.Messages))
	}
	return s
}

// Both systems are planners, aimers and explainers: a campaign on either
// draws only what DSH can enact, aims at its choice points, and sets its
// recorded findings apart.
var (
	_ dshSystem = System{}
	_ dshSystem = Both{}
)

type dshSystem interface {
	sim.System
	faults.Planner
	faults.Aimer
	judge.Explainer
}
