package campaign

import (
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// CorpusResult is one corpus entry that did not replay as it should, or
// could not be read.
type CorpusResult struct {
	Path       string
	Entry      *faults.Entry
	Scenario   *sim.Scenario
	Err        error
	Violations []oracle.Violation
	// Replayed: the entry ran (it is not another mutant's).
	Replayed bool
}

// ReplayCorpus replays every entry of dir: a regression entry must pass
// now; a mutant's entry replays only against that mutant (mutant names
// the one under test, "" for none), where it must still fail. Each entry
// is handed to report: read or not, replayed or skipped, with the
// violations of one that did not replay as it should. It returns how many
// could not be read and how many failed.
func ReplayCorpus(dir, mutant string, opts sim.Options, report func(CorpusResult)) (bad, violations int) {
	for _, le := range faults.LoadCorpus(dir) {
		r := CorpusResult{Path: le.Path, Entry: le.Entry, Scenario: le.Scenario, Err: le.Err}
		if r.Err == nil && (le.Entry.Mutant != mutant || le.Entry.System != opts.SystemName() || le.Entry.View != opts.ViewName()) {
			// Another mutant's entry, a mutant's entry under the correct
			// loop, another system's, or one of a run with another view's
			// code beside: skipped.
			report(r)
			continue
		}
		if r.Err == nil {
			// A plan that names listeners this run has not plugged in, or
			// that was made with one in a built-in's place, cannot replay:
			// say so rather than run other code.
			r.Err = le.Scenario.CheckPlugged(opts.Listeners)
		}
		if r.Err == nil {
			r.Err = le.Entry.CheckPlugged(opts.Listeners)
		}
		if r.Err != nil {
			bad++
			report(r)
			continue
		}
		e := le.Entry
		r.Replayed = true
		_, vs := faults.Check(le.Scenario, opts)
		still := false
		for _, v := range vs {
			still = still || v.Invariant == e.Invariant
		}
		switch {
		case mutant == "" && len(vs) > 0:
			violations++
			r.Violations = vs
		case mutant != "" && !still:
			violations++
			r.Violations = []oracle.Violation{{Invariant: e.Invariant, Message: "the mutant's entry no longer reproduces its violation"}}
		}
		report(r)
	}
	return bad, violations
}
