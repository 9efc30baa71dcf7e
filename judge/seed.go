package judge

import (
	"bytes"
	"fmt"
	"reflect"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// Verdict is what one seed gave.
type Verdict struct {
	Seed       uint64
	Config     *faults.Config
	Scenario   *sim.Scenario
	Result     *sim.Result
	Violations []oracle.Violation
}

// RunSeed draws a seed's plan, runs it and checks it. With
// checkDeterminism it runs the plan twice and reports different bytes as a
// nondeterminism violation.
func RunSeed(seed uint64, o faults.Overrides, opts sim.Options, checkDeterminism bool) Verdict {
	return RunSeedIn(nil, seed, o, opts, checkDeterminism)
}

// Storage is one worker's memory, seed after seed: its plans' and its
// runs'. The zero value is ready to use; a verdict kept past the next seed
// keeps what it reads when its worker's storage is set to a new one
// (Storage{}).
type Storage struct {
	plans faults.Drawing
	runs  sim.Storage
}

// RunSeedIn is RunSeed with the plan drawn and run in a worker's storage
// (faults.DrawIn, sim.RunIn; nil: memory of the seed's own): the verdict
// is read until the storage's next seed, and a verdict kept longer leaves
// its storage to it (the worker goes on with a new one).
func RunSeedIn(st *Storage, seed uint64, o faults.Overrides, opts sim.Options, checkDeterminism bool) Verdict {
	var plans *faults.Drawing
	var runs *sim.Storage
	if st != nil {
		plans, runs = &st.plans, &st.runs
	}
	c, s := faults.DrawForIn(plans, seed, o, opts)
	res, vs := checkIn(runs, s, opts)
	if res.Refused != "" {
		// The plan was put in the system's terms: one it refuses is
		// turnsim's fault, the seed's internal error.
		panic(fmt.Sprintf("seed %#x's plan for %s was refused: %s", seed, res.System, res.Refused))
	}
	if checkDeterminism && res.Blocked == "" { // a blocked run would block again
		if again := sim.RunIn(runs.Second(), s, opts); !sameLog(res, again) {
			vs = append(vs, oracle.Violation{Invariant: oracle.Nondeterminism, Message: "the same seed wrote different logs on two runs"})
		}
	}
	return Verdict{Seed: seed, Config: c, Scenario: s, Result: res, Violations: vs}
}

// sameLog reports whether two runs wrote the same log bytes. Logs whose
// headers and events are deeply equal write the same bytes (writing is a
// function of them), and comparing them is a fraction of writing both;
// logs that differ are written and their bytes compared, since values
// that differ can still write alike.
func sameLog(a, b *sim.Result) bool {
	if reflect.DeepEqual(a.Header, b.Header) && reflect.DeepEqual(a.Events, b.Events) {
		return true
	}
	return bytes.Equal(LogBytes(a), LogBytes(b))
}

// LogBytes is a run's v1 log.
func LogBytes(r *sim.Result) []byte {
	var b bytes.Buffer
	session.WriteLog(&b, r.Header, r.Events)
	return b.Bytes()
}
