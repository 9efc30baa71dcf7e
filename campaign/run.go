package campaign

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/internal/words"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// Version is turnsim's version, which corpus entries and reports carry.
const Version = "0.1.0"

// Config is one campaign.
type Config struct {
	// First is the first seed; Count how many seeds (never past 2^64−1:
	// the count stops there). With Duration, seeds run from First until
	// that much wall time has passed, and at least one runs.
	First, Count uint64
	Duration     time.Duration
	// Workers run seeds in parallel; results come back in seed order and
	// are the same for any number of workers.
	Workers int
	// Overrides pin parts of each seed's draw; Sim is the system under
	// test (a mutant, listeners of one's own).
	Overrides faults.Overrides
	Sim       sim.Options
	// Mutant names the mutant Sim holds, for corpus entries ("" for none).
	Mutant string
	// Corpus is the folder of entries: Run replays it before the first
	// seed (not with NoReplay; shard 0 alone reports it, the others
	// replay it to know the failures its entries stand for), and failures
	// are written there ("" replays and writes none).
	Corpus string
	// NoReplay runs the seeds without the corpus first: one seed asked
	// for is what is being reproduced, not the entries kept of others.
	NoReplay bool
	// OnEntry, when set, is handed each corpus entry Run replays, skips
	// (CorpusResult.Skipped says why) or cannot read, in file order,
	// before the first seed.
	OnEntry func(CorpusResult)
	// Sample is the share of seeds run twice for the determinism check.
	Sample float64
	// Stats counts what each seed exercised.
	Stats bool
	// Shard is this process's share of the seeds.
	Shard Shard
	// NoShrink leaves failures as drawn (Check shrinks only the first).
	NoShrink bool
	// ShrinkFor, when set, is the invariant a failure that violates it is
	// shrunk for (a hunt's: the one its mutant must trip); otherwise the
	// failure's principal one (judge.Principal).
	ShrinkFor oracle.ID
	// Repro says how a failure's reproduction lines read.
	Repro Repro
	// Version is turnsim's, written into corpus entries.
	Version string

	// kept maps each failure (Entry.Failure) to the entry that stands for
	// it: one this run wrote or found written, or one of the corpus that
	// still fails; learned says the corpus's are in (Run's replay, or
	// learn's for One and Investigate). A Config's One and Investigate are
	// not for concurrent use.
	kept    map[string]string
	learned bool
}

// Repro is how to reproduce a seed from outside: the simrun flags that
// shaped its draw, and the go test line for it, each with the seed
// formatted in as %#x ("" for none).
type Repro struct {
	SimrunFlags string
	GoTest      string
	// Plugged names the listeners of one's own a simrun needs registered
	// (in a small main calling simrun.Main) to replay the seed: added ones
	// and ones in a built-in's place, not a mutant's.
	Plugged []string
	// EntryFlags are the flags a corpus entry's replay needs beside the
	// entry (which names its system): the install of DSH's loop that
	// failed, when it is not the default one.
	EntryFlags string
}

// Result is one seed's outcome, as simrun prints it and as --json writes
// it.
type Result struct {
	Seed       string             `json:"seed"`
	Events     int                `json:"events"`
	Violations []oracle.Violation `json:"violations,omitempty"`
	Invariant  oracle.ID          `json:"invariant,omitempty"`
	Listeners  []string           `json:"listeners,omitempty"`
	Plan       []string           `json:"plan,omitempty"`
	// Shrunk is the violation the shrunk plan gives (its turn, seqs and
	// figures are the plan's, not the seed's).
	Shrunk     *oracle.Violation `json:"shrunk,omitempty"`
	ShrinkRuns int               `json:"shrinkRuns,omitempty"`
	// NotShrunk says why the plan was kept as drawn: a block (every run
	// of it waits out the watchdog), a nondeterminism or a panic (which a
	// shrink could not tell from the plan's own).
	NotShrunk string `json:"notShrunk,omitempty"`
	Reproduce string `json:"reproduce,omitempty"`
	GoTest    string `json:"goTest,omitempty"`
	Corpus    string `json:"corpus,omitempty"`
	// CorpusNew says the entry was written by this seed; false when an
	// earlier seed had shrunk to the same plan, or (SameFailure) when an
	// entry of another plan fails the same way. CorpusErr is why the
	// entry could not be written (Corpus is then empty).
	CorpusNew   bool   `json:"-"`
	SameFailure bool   `json:"corpusSameFailure,omitempty"`
	CorpusErr   string `json:"corpusError,omitempty"`
	// CorpusReplaced is why the file that stood under the entry's name
	// did not read as an entry, when the entry replaced it.
	CorpusReplaced string `json:"corpusReplaced,omitempty"`
	Internal       string `json:"internalError,omitempty"`
	// Difference is the (-dsh +model) diff of the shrunk plan's two
	// skeletons, for a difference between DSH's loop and the model.
	Difference string `json:"difference,omitempty"`
	// Findings name the recorded findings about the system under test
	// that the run reproduced: reported apart, never a violation.
	Findings []string `json:"findings,omitempty"`
	// ViewFindings are the recorded findings about DSH's view code that
	// the run's logs show (--dsh-view), each with its class: counted by
	// class apart, never a violation.
	ViewFindings []oracle.Finding `json:"viewFindings,omitempty"`
	// ViewChecked says the run's logs were derived by a view checker
	// (sim.Options.ViewCheck).
	ViewChecked bool `json:"-"`
	// Blocked names the plug-in that blocked outside virtual time in this
	// run (sim.Result.Blocked): the campaign stops after it, since every
	// run that reaches it would wait out the watchdog again.
	Blocked string `json:"blocked,omitempty"`
	// Exercised is the run's coverage, with Config.Stats.
	Exercised *Exercised `json:"-"`
	// Calls and Retries count the plugged-in listeners' answers in this
	// run (sim.Added of Config.Sim's, in order): how often each was asked,
	// and answered retry.
	Calls, Retries []int `json:"-"`
	// seed is the seed as a number, scenario the plan as shrunk, entry
	// its corpus entry until it is written (record).
	seed     uint64
	scenario *sim.Scenario
	entry    *Entry
	// verdict is kept for a blocked run, which is investigated from it
	// rather than run again (it would block again).
	verdict *judge.Verdict
	// repro is how the campaign that made the result says its lines read
	// (Config.Repro), for Write.
	repro Repro
}

// Scenario is the failure's plan as shrunk (as drawn when it was not
// shrunk), once it was investigated (a campaign without NoShrink, or
// Investigate); nil before.
func (r *Result) Scenario() *sim.Scenario { return r.scenario }

// Summary is what a campaign adds up to.
type Summary struct {
	// Violations counts the failing seeds and the corpus entries that did
	// not replay as they should (Corpus.Failed).
	Runs, Violations, Events, Internal int
	// Corpus is what replaying the corpus first did.
	Corpus CorpusSummary
	// CorpusNotWritten counts the failures whose corpus entry could not
	// be written (each result says why).
	CorpusNotWritten int
	// Blocked names the plug-in that blocked outside virtual time, which
	// stopped the campaign at that seed.
	Blocked  string
	Coverage Coverage
	// Calls and Retries add up the plugged-in listeners' answers, as in
	// Result.
	Calls, Retries []int
	// Findings count the seeds that reproduced each recorded finding
	// about the system under test, by name, in name order.
	Findings []FindingCount
	// ViewFindings count the recorded findings about DSH's view code by
	// class (--dsh-view), in class order.
	ViewFindings []ViewFindingCount
	// ViewRuns counts the runs whose logs DSH's view code derived
	// (--dsh-view), ViewDiffering those among them whose derivation
	// differed from turnsim's view (a differs-from-dsh-view violation).
	ViewRuns, ViewDiffering int
	Elapsed                 time.Duration
	Interrupted             bool
}

// FindingCount is how many seeds reproduced a recorded finding.
type FindingCount struct {
	Name  string `json:"name"`
	Seeds int    `json:"seeds"`
}

// ViewFindingCount is how often the logs of a campaign showed one class
// of recorded finding about DSH's view code: in how many seeds, and in
// how many turns of the logs derived (beside DSH's loop, a turn of its
// log and the same turn of the model's are two), and the first seed that
// showed it, with what it showed and the line that reproduces it.
type ViewFindingCount struct {
	Class     string    `json:"class"`
	Invariant oracle.ID `json:"invariant"`
	Seeds     int       `json:"seeds"`
	Turns     int       `json:"turns"`
	First     string    `json:"first"`
	Example   string    `json:"example"`
	Reproduce string    `json:"reproduce"`
}

// addViewFindings counts a seed's view findings by class.
func (s *Summary) addViewFindings(res *Result, repro Repro) {
	var seen []string
	for _, f := range res.ViewFindings {
		i, found := slices.BinarySearchFunc(s.ViewFindings, f.Class, func(c ViewFindingCount, n string) int { return strings.Compare(c.Class, n) })
		if !found {
			s.ViewFindings = slices.Insert(s.ViewFindings, i, ViewFindingCount{Class: f.Class, Invariant: f.Invariant, First: res.Seed,
				Example: f.Message, Reproduce: fmt.Sprintf("simrun replay --seed %s%s", res.Seed, repro.SimrunFlags)})
		}
		s.ViewFindings[i].Turns++
		if !slices.Contains(seen, f.Class) {
			seen = append(seen, f.Class)
			s.ViewFindings[i].Seeds++
		}
	}
}

// ViewFindingsNote is the summary's words on DSH's view code's recorded
// findings, "" when none showed.
func (s Summary) ViewFindingsNote() string {
	note := ""
	if s.ViewRuns > 0 {
		// Said even when nothing showed: a run with --dsh-view must read
		// differently from one without.
		note = fmt.Sprintf(" (DSH's view code: the logs of %s derived and compared, %d differing)", words.Plural(s.ViewRuns, "run"), s.ViewDiffering)
	}
	if len(s.ViewFindings) == 0 {
		return note
	}
	var parts []string
	for _, f := range s.ViewFindings {
		parts = append(parts, fmt.Sprintf("%s in %s (%s)", f.Class, words.Plural(f.Seeds, "seed"), words.Plural(f.Turns, "turn")))
	}
	return note + " (recorded findings about DSH's view code, apart: " + strings.Join(parts, ", ") + ")"
}

// addFinding counts a seed that reproduced the named finding.
func (s *Summary) addFinding(name string) {
	i, found := slices.BinarySearchFunc(s.Findings, name, func(f FindingCount, n string) int { return strings.Compare(f.Name, n) })
	if !found {
		s.Findings = slices.Insert(s.Findings, i, FindingCount{Name: name})
	}
	s.Findings[i].Seeds++
}

// FindingsNote is the summary's words on the recorded findings, "" when
// none reproduced.
func (s Summary) FindingsNote() string {
	if len(s.Findings) == 0 {
		return ""
	}
	var parts []string
	for _, f := range s.Findings {
		parts = append(parts, fmt.Sprintf("%s in %s", f.Name, words.Plural(f.Seeds, "seed")))
	}
	return " (recorded findings about DSH, apart: " + strings.Join(parts, ", ") + ")"
}

// String is the last line simrun prints.
func (s Summary) String() string {
	secs := max(s.Elapsed.Seconds(), 1e-9)
	note := ""
	if s.Interrupted {
		note = " (interrupted)"
	}
	if s.Blocked != "" {
		note += fmt.Sprintf(" (stopped: listener %q blocked outside virtual time)", s.Blocked)
	}
	if s.CorpusNotWritten > 0 {
		note += fmt.Sprintf(" (%d failing seeds' corpus entries not written)", s.CorpusNotWritten)
	}
	note += s.FindingsNote()
	note += s.ViewFindingsNote()
	return fmt.Sprintf("%d runs, %d violations, %d events, %.0f runs/s, %.0f events/s%s",
		s.Runs, s.Violations, s.Events, float64(s.Runs)/secs, float64(s.Events)/secs, note)
}

// Run replays the corpus (Config.Corpus, handing each entry to
// Config.OnEntry), then runs the campaign's seeds and hands each result
// to emit in seed order. The corpus is replayed whole (it is small); the
// seeds stop early, marked Interrupted, when ctx ends (an OnEntry that
// cancels ctx runs no seed). Memory stays flat in the number of seeds.
func Run(ctx context.Context, c Config, emit func(*Result)) Summary {
	var sum Summary
	if c.Corpus != "" && !c.NoReplay {
		// Said once across shards: by shard 0. The others replay it
		// unsaid, to know the failures its entries stand for (a failure
		// a committed entry holds gets no second entry from them).
		// Before the clock starts: a duration, and the rates, are the
		// seeds'.
		said := c.Shard.Index == 0
		c.learned = true
		replayed := replayCorpus(c.Corpus, c.Mutant, c.Sim, func(r CorpusResult) {
			if r.reproduced {
				c.keep(r.Entry.Failure(), r.Path)
			}
			if said && c.OnEntry != nil {
				c.OnEntry(r)
			}
		})
		if said {
			sum.Corpus = replayed
			sum.Violations += sum.Corpus.Failed
		}
	}
	began := time.Now()
	var deadline time.Time
	// Seeds never wrap past 2^64−1 to 0: that would run seeds nobody
	// asked for (SeedRange refuses it from the command line).
	count := c.Count
	if c.First > 0 && count > math.MaxUint64-c.First+1 {
		count = math.MaxUint64 - c.First + 1
	}
	if c.Duration > 0 {
		// Every seed from First to the last, 2^64−1 included (for First
		// 0, one short of all 2^64, which no duration reaches).
		deadline = began.Add(c.Duration)
		count = math.MaxUint64 - c.First + min(c.First, 1)
	}
	count = c.Shard.Count(count)
	c.run(ctx, count, deadline, func(res *Result) {
		if sum.Blocked != "" {
			return // after the block, in seed order: see run
		}
		if res.Blocked != "" {
			sum.Blocked = res.Blocked
		}
		c.record(res)
		if res.CorpusErr != "" {
			sum.CorpusNotWritten++
		}
		sum.Runs++
		sum.Events += res.Events
		if len(res.Violations) > 0 {
			sum.Violations++
		}
		if res.Internal != "" {
			sum.Internal++
		}
		for _, f := range res.Findings {
			sum.addFinding(f)
		}
		sum.addViewFindings(res, c.Repro)
		if res.ViewChecked {
			sum.ViewRuns++
			if slices.ContainsFunc(res.Violations, func(v oracle.Violation) bool { return v.Invariant == oracle.DiffersFromDSHView }) {
				sum.ViewDiffering++
			}
		}
		if res.Exercised != nil {
			if planner, ok := c.Sim.System.(faults.Planner); ok && sum.Coverage.Enactable == nil {
				sum.Coverage.Enactable = planner.Kinds()
			}
			sum.Coverage.add(*res.Exercised)
		}
		for len(sum.Calls) < len(res.Calls) { // an internal error's result has none
			sum.Calls, sum.Retries = append(sum.Calls, 0), append(sum.Retries, 0)
		}
		for i := range res.Calls {
			sum.Calls[i] += res.Calls[i]
			sum.Retries[i] += res.Retries[i]
		}
		emit(res)
	})
	sum.Elapsed = time.Since(began)
	sum.Interrupted = ctx.Err() != nil
	return sum
}

// run hands each result to emit, in seed order, under a lock; it holds
// only the results that finished ahead of an earlier seed (at most about
// one per worker). A seed whose plug-in blocked outside virtual time stops
// the handing out of seeds: the runs after it would each wait out the
// watchdog (seconds of real time) to the same finding. (Those already
// running finish; Run drops what comes after the block in seed order, so
// that the output is the same at any number of workers.)
func (c *Config) run(ctx context.Context, count uint64, deadline time.Time, emit func(*Result)) {
	var mu sync.Mutex
	done := map[uint64]*Result{}
	next, emitted := uint64(0), uint64(0)
	halted := false
	take := func() (uint64, bool) {
		mu.Lock()
		defer mu.Unlock()
		if halted {
			return 0, false
		}
		// The first seed runs whatever the deadline: a campaign that
		// checked nothing must not read as a clean one.
		if next >= count || ctx.Err() != nil || (next > 0 && !deadline.IsZero() && time.Now().After(deadline)) {
			return 0, false
		}
		i := next
		next++
		return i, true
	}
	var wg sync.WaitGroup
	// No more workers than seeds, nor than the ceiling: a worker with
	// nothing to take only costs its start.
	workers := min(max(c.Workers, 1), limits.MaxWorkers)
	if count > 0 && count < uint64(workers) {
		workers = int(count)
	}
	for range workers {
		wg.Go(func() {
			// The worker's runs, one after the other, reuse one storage.
			var st judge.Storage
			for {
				i, ok := take()
				if !ok {
					return
				}
				res := c.safely(&st, c.First+c.Shard.SeedIndex(i))
				mu.Lock()
				halted = halted || res.Blocked != ""
				done[i] = res
				for done[emitted] != nil { // emit in seed order
					emit(done[emitted])
					delete(done, emitted)
					emitted++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// safely runs a seed; a panic of turnsim itself (the system under test's
// are caught by the world) becomes that seed's internal error.
func (c *Config) safely(st *judge.Storage, seed uint64) (res *Result) {
	defer func() {
		if p := recover(); p != nil {
			*st = judge.Storage{} // the run that panicked may have left it half written
			res = &Result{Seed: fmt.Sprintf("%#x", seed), seed: seed, Internal: fmt.Sprintf("%v\n%s", p, debug.Stack())}
		}
	}()
	return c.one(st, seed)
}

// One runs one seed and, when it fails, shrinks it and writes its corpus
// entry (with Corpus set).
func (c *Config) One(seed uint64) *Result {
	res := c.one(nil, seed)
	c.record(res)
	return res
}

// Investigate is a failing result of a campaign run with NoShrink,
// shrunk, its reproduction made and its corpus entry written (with
// Corpus set). A seed that blocked is investigated from its own run:
// another would wait out the watchdog again.
func (c *Config) Investigate(r *Result) *Result {
	if r.Internal != "" {
		return r
	}
	if v := r.verdict; v != nil {
		c.investigate(*v, r)
		c.record(r)
		return r
	}
	return c.One(r.seed)
}

// one is One without the corpus write, which Run makes in seed order,
// with the run in a worker's storage (nil: memory of its own). A failing
// run's verdict is kept past the storage's next run: it takes the
// storage's memory with it, and the worker goes on with new.
func (c *Config) one(st *judge.Storage, seed uint64) *Result {
	v := judge.RunSeedIn(st, seed, c.Overrides, c.Sim, Sampled(seed, c.Sample))
	if st != nil && (len(v.Violations) > 0 || v.Result.Blocked != "") {
		*st = judge.Storage{}
	}
	res := &Result{Seed: fmt.Sprintf("%#x", seed), seed: seed, Events: len(v.Result.Events), Violations: v.Violations,
		Findings: v.Result.Findings, ViewFindings: v.Result.ViewFindings, ViewChecked: v.Result.ViewChecked}
	if c.Stats {
		x := exercise(v)
		res.Exercised = &x
	}
	if added := sim.Added(c.Sim.Listeners); len(added) > 0 {
		res.Calls, res.Retries = make([]int, len(added)), make([]int, len(added))
		for _, d := range v.Result.Facts.Decisions {
			for i, l := range added {
				if d.Listener == l.Name {
					res.Calls[i]++
					if d.Retry {
						res.Retries[i]++
					}
				}
			}
		}
	}
	if v.Result.Blocked != "" {
		res.Blocked, res.verdict = v.Result.Blocked, &v
	}
	if len(v.Violations) > 0 && !c.NoShrink {
		c.investigate(v, res)
	}
	return res
}

// investigate shrinks a failing seed's plan, makes its corpus entry (for
// record to write) and the lines that reproduce it: the same for simrun
// run and go test.
func (c *Config) investigate(v judge.Verdict, res *Result) {
	first := judge.Principal(v.Violations)
	if i := slices.IndexFunc(v.Violations, func(w oracle.Violation) bool { return w.Invariant == c.ShrinkFor }); c.ShrinkFor != "" && i >= 0 {
		first = v.Violations[i]
	}
	blocked := v.Result.Blocked != ""
	if blocked {
		// The finding is the block, whatever else the cut-short log
		// shows; and every run of the plan waits out the watchdog, so it
		// is neither shrunk nor run again.
		for _, w := range v.Violations {
			if w.Invariant == oracle.TurnTerminates {
				first = w
				break
			}
		}
	}
	res.Invariant = first.Invariant
	shrunk := v.Scenario
	// The shrunk plan's run and its violation of first's invariant, when
	// shrinking ran it.
	var shrunkRun *sim.Result
	var shrunkViolation *oracle.Violation
	switch {
	case blocked:
		res.NotShrunk = "a plug-in blocked outside virtual time: every run of the plan would wait out the watchdog"
	case first.Invariant == oracle.Nondeterminism:
		res.NotShrunk = "a nondeterminism: a smaller plan's runs could agree by chance"
	case first.Invariant == oracle.SUTPanic:
		res.NotShrunk = "a panic of the system under test, kept as it came"
	default:
		sh := Shrink(v.Scenario, first.Invariant, c.Sim, Keep{Policy: c.Overrides.Policy != nil})
		shrunk, res.ShrinkRuns = sh.Scenario, sh.Runs
		if sh.Result != nil {
			shrunkRun, shrunkViolation = sh.Result, &sh.Violation
		}
	}
	res.scenario = shrunk
	res.Listeners = shrunk.ListenerOrder
	res.Plan = faults.PlanLines(shrunk)
	message := first.Message
	res.Difference = v.Result.Difference // the plan's as drawn, unless a shrunk one ran
	if shrunkRun != nil {
		res.Difference = shrunkRun.Difference
		res.Shrunk, message = shrunkViolation, shrunkViolation.Message
	}
	res.repro = c.Repro
	res.Reproduce = fmt.Sprintf("simrun replay --seed %#x%s", v.Seed, c.Repro.SimrunFlags)
	if c.Repro.GoTest != "" {
		res.GoTest = fmt.Sprintf(c.Repro.GoTest, v.Seed)
	}
	if c.Corpus == "" {
		return
	}
	entry, err := NewEntry(c.Version, v.Seed, c.Overrides, c.Mutant, first.Invariant, message, shrunk)
	if err != nil {
		res.CorpusErr = err.Error()
		return
	}
	entry.Listeners = c.Repro.Plugged
	entry.System = c.Sim.SystemName()
	entry.View = c.Sim.ViewName()
	res.entry = entry
}

// record writes a failing seed's corpus entry. Run calls it in seed
// order, whatever the workers: of the seeds that shrink to one plan, the
// first in seed order is the one kept (workers that wrote as they
// finished let the last rename win, and the corpus depended on -j).
//
// A failure that an entry kept already fails the same way (an entry of
// another plan, with the same invariant and message but for its
// numbers) is not written again: the seeds of one bug reach it through
// plans that shrinking cannot bring together (a steer claimed after a
// tool call, a followup that starts its own turn), and one entry
// replays the bug. The seed's own shrunk plan is in its report.
func (c *Config) record(res *Result) {
	if res.entry == nil {
		return
	}
	c.learn()
	failure := res.entry.Failure()
	if path, ok := c.kept[failure]; ok {
		res.Corpus, res.SameFailure = path, filepath.Base(path) != res.entry.FileName()
		res.entry = nil
		return
	}
	path, did, broken, err := res.entry.Write(c.Corpus)
	res.entry = nil
	if err != nil {
		res.CorpusErr = err.Error()
		return
	}
	res.Corpus, res.CorpusNew = path, did != EntryKept
	if broken != nil {
		res.CorpusReplaced = broken.Error()
	}
	c.keep(failure, path)
}

// learn replays the corpus unsaid, once, to know the failures its entries
// stand for, where Run did not (One, Investigate, a run with NoReplay): a
// seed reproduced on its own writes no second entry of a failure the
// corpus holds.
func (c *Config) learn() {
	if c.learned || c.Corpus == "" {
		return
	}
	c.learned = true
	replayCorpus(c.Corpus, c.Mutant, c.Sim, func(r CorpusResult) {
		if r.reproduced {
			c.keep(r.Entry.Failure(), r.Path)
		}
	})
}

// keep notes the entry that stands for a failure, the first one only.
func (c *Config) keep(failure, path string) {
	if c.kept == nil {
		c.kept = map[string]string{}
	}
	if _, ok := c.kept[failure]; !ok {
		c.kept[failure] = path
	}
}

// Sampled reports whether a seed is among the share run twice: a fixed
// function of the seed, so that the number of workers does not change
// which.
func Sampled(seed uint64, share float64) bool {
	h := seed * 0x9E3779B97F4A7C15
	return float64(h>>11)/float64(1<<53) < share
}

// PluggedNote is what a simrun reproduction line needs said beside it
// when listeners of one's own are plugged in: plain simrun does not know
// them.
func (r Repro) PluggedNote() string {
	if len(r.Plugged) == 0 {
		return ""
	}
	return fmt.Sprintf("(with %s registered: a main calling simrun.Main)", strings.Join(r.Plugged, ", "))
}
