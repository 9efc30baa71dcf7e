package faults

import (
	"slices"

	"github.com/turnsim/turnsim/sim"
)

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

// DrawFor is seed's plan for the system under test opts name: drawn with
// the overrides restricted to it (forSystem), then, for a Planner, in its
// terms.
func DrawFor(seed uint64, o Overrides, opts sim.Options) (*Config, *sim.Scenario) {
	return DrawForIn(nil, seed, o, opts)
}

// DrawForIn is DrawFor in a worker's Drawing (DrawIn).
func DrawForIn(d *Drawing, seed uint64, o Overrides, opts sim.Options) (*Config, *sim.Scenario) {
	c, s := DrawIn(d, seed, o.forSystem(opts))
	if p, ok := opts.System.(Planner); ok {
		s = p.Plan(s)
	}
	if a, ok := opts.System.(Aimer); ok {
		s = a.Aim(seed, c.Kinds, s)
	}
	return c, s
}

// forSystem is the overrides with the listeners the world's options add
// to the waterfall, and a Planner's kinds and points: what a seed draws
// depends on them.
func (o Overrides) forSystem(opts sim.Options) Overrides {
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
