package faults

import (
	"bytes"

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

// Check runs a scenario in the world and checks it, strictly and with the
// run's facts.
func Check(s *sim.Scenario, opts sim.Options) (*sim.Result, []oracle.Violation) {
	res := sim.RunWith(s, opts)
	return res, oracle.Check(res.Events, opts.Oracle(res))
}

// RunSeed draws a seed's plan, runs it and checks it. With
// checkDeterminism it runs the plan twice and reports different bytes as a
// nondeterminism violation.
func RunSeed(seed uint64, o Overrides, opts sim.Options, checkDeterminism bool) Verdict {
	c, s := Draw(seed, o.For(opts))
	res, vs := Check(s, opts)
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
	return o
}

// LogBytes is a run's v1 log.
func LogBytes(r *sim.Result) []byte {
	var b bytes.Buffer
	session.WriteLog(&b, r.Header, r.Events)
	return b.Bytes()
}

// Principal is the violation that names a failure: the first one of a
// semantic invariant, else the first (log-well-formed often fires beside a
// semantic invariant, which explains the bug better).
func Principal(vs []oracle.Violation) oracle.Violation {
	for _, v := range vs {
		if v.Invariant != oracle.LogWellFormed {
			return v
		}
	}
	return vs[0]
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
