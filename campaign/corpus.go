package campaign

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// CorpusResult is one corpus entry that did not replay as it should, or
// could not be read.
type CorpusResult struct {
	Path       string
	Entry      *Entry
	Scenario   *sim.Scenario
	Err        error
	Violations []oracle.Violation
	// Replayed: the entry ran. Skipped says why it did not, when it was
	// read but is not this run's to replay (SkipReason).
	Replayed bool
	Skipped  string
	// reproduced: the entry still violates its invariant (a mutant's
	// entry as it should, a regression as it should not).
	reproduced bool
}

// SkipReason says why an entry is not a run's to replay ("" when it is):
// the mutant, system or view code it was made with is not the run's.
func SkipReason(e *Entry, mutant string, opts sim.Options) string {
	switch {
	case e.Mutant != mutant && e.Mutant == "":
		return "regressions of the correct loop, not replayed against mutant " + mutant
	case e.Mutant != mutant && mutant == "":
		return "entries of mutants, each replayed against its mutant (--mutant NAME)"
	case e.Mutant != mutant:
		return "entries of other mutants"
	case e.System != opts.SystemName():
		return madeWith + "with --sut " + cmp.Or(e.System, "model")
	case e.View != opts.ViewName():
		if e.View == "" {
			return madeWith + "without --dsh-view"
		}
		return madeWith + "with --dsh-view"
	}
	return ""
}

// madeWith begins the reasons of entries of the run's own mutant (or of
// none) made with other flags: regressions it could replay with them.
const madeWith = "entries made "

// OtherFlags says the entries were skipped for flags the run has not
// (--sut, --dsh-view): with them, it would replay them.
func (s Skip) OtherFlags() bool { return strings.HasPrefix(s.Reason, madeWith) }

// CorpusSummary is what replaying a corpus did: the entries replayed as
// they should, those that could not be read, those that did not replay as
// they should, and those skipped, by reason.
type CorpusSummary struct {
	Replayed, Unreadable, Failed int
	Skipped                      Skips
}

// replayCorpus replays every entry of dir: a regression entry must pass
// now; a mutant's entry replays only against that mutant (mutant names
// the one under test, "" for none), where it must still fail. Each entry
// is handed to onEntry (when set): read or not, replayed or skipped, with
// the violations of one that did not replay as it should.
func replayCorpus(dir, mutant string, opts sim.Options, onEntry func(CorpusResult)) (sum CorpusSummary) {
	report := func(r CorpusResult) {
		switch {
		case r.Skipped != "":
			sum.Skipped.Add(r.Skipped)
		case r.Err != nil:
			sum.Unreadable++
		case len(r.Violations) > 0:
			sum.Failed++
		case r.Replayed:
			sum.Replayed++
		}
		if onEntry != nil {
			onEntry(r)
		}
	}
	for _, le := range LoadCorpus(dir) {
		r := CorpusResult{Path: le.Path, Entry: le.Entry, Scenario: le.Scenario, Err: le.Err}
		if r.Err == nil {
			// Another mutant's entry, a mutant's entry under the correct
			// loop (or the loop's under a mutant), another system's, or
			// one of a run with another view's code beside: skipped.
			if r.Skipped = SkipReason(le.Entry, mutant, opts); r.Skipped != "" {
				report(r)
				continue
			}
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
			report(r)
			continue
		}
		e := le.Entry
		r.Replayed = true
		_, vs := judge.Check(le.Scenario, opts)
		still := false
		for _, v := range vs {
			still = still || v.Invariant == e.Invariant
		}
		r.reproduced = still
		switch {
		case mutant == "" && len(vs) > 0:
			r.Violations = vs
		case mutant != "" && !still:
			r.Violations = []oracle.Violation{{Invariant: e.Invariant, Message: "the mutant's entry no longer reproduces its violation"}}
		}
		report(r)
	}
	return sum
}

// Skips count the corpus entries a run skipped, by reason, in the order
// the reasons first came.
type Skips []Skip

// Skip is how many entries were skipped for one reason.
type Skip struct {
	Reason string `json:"reason"`
	N      int    `json:"entries"`
}

// Add counts one entry skipped for reason.
func (s *Skips) Add(reason string) {
	for i := range *s {
		if (*s)[i].Reason == reason {
			(*s)[i].N++
			return
		}
	}
	*s = append(*s, Skip{reason, 1})
}

// Note is "; skipped 2: entries of other mutants; skipped 1: …" ("" for
// none).
func (s Skips) Note() string {
	var b strings.Builder
	for _, k := range s {
		fmt.Fprintf(&b, "; skipped %d: %s", k.N, k.Reason)
	}
	return b.String()
}
