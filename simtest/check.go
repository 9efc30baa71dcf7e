package simtest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/words"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/timeline"
)

// The flags of a campaign under go test, each with an environment twin
// (the environment is what a CI job sets once for every package).
var (
	flagSeed     = flag.String("sim.seed", "", "run just this seed, decimal or 0x… (env SIM_SEED)")
	flagRuns     = flag.Int("sim.runs", 0, "how many seeds to run (env SIM_RUNS; default 1000, 200 under -short)")
	flagDuration = flag.Duration("sim.duration", 0, "run seeds for this long instead of a count (env SIM_DURATION)")
	flagMutant   = flag.String("sim.mutant", "", "run against a mutant of the zoo instead of the correct loop (env SIM_MUTANT)")
	flagTimeline = flag.Bool("sim.timeline", false, "print the timeline of a failure's shrunk plan with it (env SIM_TIMELINE=1)")
)

// Option changes a Check.
type Option func(*settings)

type settings struct {
	listeners []sim.Listener
	runs      int
	runsSet   bool // Runs was given: Runs(0) is refused, not the default
	first     uint64
	overrides faults.Overrides
	corpus    string
	mutant    string
	sample    float64
	// oneSeed: -sim.seed asked for one seed, which then runs without the
	// corpus before it (the seed is what is being reproduced).
	oneSeed bool
	// blockedAfter is the plug-ins' watchdog (sim.Options.BlockedAfter).
	blockedAfter time.Duration
	// faultsSet: Faults was given (Faults() of no kind is refused, not
	// every kind).
	faultsSet bool
	// system is the system under test (nil: the model).
	system sim.System
}

// System runs the campaign on another system under test than the model:
// dshloop.System (DSH's own loop, in Node) or dshloop.Both (it beside the
// model, compared). A mutant of the zoo and listeners of one's own are Go
// code, which runs in the model only: given with one, Check refuses.
func System(sys sim.System) Option { return func(s *settings) { s.system = sys } }

// Listeners plugs listeners of one's own into the waterfall: the swarm
// draws their places (as their Place says) and aims cancels at their
// waits.
func Listeners(ls ...sim.Listener) Option {
	return func(s *settings) { s.listeners = append(s.listeners, ls...) }
}

// Runs sets how many seeds run (a -sim.runs or SIM_RUNS wins).
func Runs(n int) Option { return func(s *settings) { s.runs, s.runsSet = n, true } }

// From sets the first seed (default 1).
func From(seed uint64) Option { return func(s *settings) { s.first = seed } }

// Policy pins the route's retry policy instead of drawing one per seed.
func Policy(p *loop.RetryPolicy) Option { return func(s *settings) { s.overrides.Policy = p } }

// Faults restricts the fault kinds a seed may enable (faults.Kinds).
func Faults(kinds ...string) Option {
	return func(s *settings) { s.overrides.Kinds, s.faultsSet = kinds, true }
}

// Corpus sets the folder failures are kept in and replayed from first
// (default testdata/turnsim, beside the test).
func Corpus(dir string) Option { return func(s *settings) { s.corpus = dir } }

// BlockedAfter sets how long, in real time, a listener's call may take
// before its seed stops as blocked outside virtual time (default 10 s;
// below 0, no watchdog: for a listener stopped in a debugger).
func BlockedAfter(d time.Duration) Option { return func(s *settings) { s.blockedAfter = d } }

// Mutant runs against a mutant of the zoo (a -sim.mutant or SIM_MUTANT
// wins): the campaign must then fail.
func Mutant(name string) Option { return func(s *settings) { s.mutant = name } }

// Check runs a campaign from go test: the corpus first, then the seeds.
// The test fails with one failure, shrunk — its violation, listener order
// and plan, the lines that reproduce it, and its corpus entry, written to
// the corpus so that every later run replays it first — and a count of
// the other failing seeds.
func Check(t testing.TB, opts ...Option) {
	t.Helper()
	check(t, opts...)
}

// tb is what check needs of a test: testing.TB, which only package
// testing can implement, narrowed so that check's own tests can record
// what it reports.
type tb interface {
	Helper()
	Name() string
	Error(args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

func check(t tb, opts ...Option) {
	t.Helper()
	s := settings{first: 1, corpus: filepath.Join("testdata", "turnsim"), sample: 0.05}
	for _, o := range opts {
		o(&s)
	}
	c, err := s.config(t)
	if err != nil {
		t.Fatalf("campaign: %v", err)
		return
	}
	// The corpus first, replayed by the campaign: each entry is a failure
	// already shrunk. Not for one seed asked for by -sim.seed: that seed
	// is what is reproduced. An entry that does not replay as it should
	// fails the test, and no seed runs.
	c.Corpus, c.NoReplay = s.corpus, s.oneSeed
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var regressions []campaign.CorpusResult
	c.OnEntry = func(r campaign.CorpusResult) {
		if r.Err != nil || len(r.Violations) > 0 {
			regressions = append(regressions, r)
			cancel()
		}
	}
	var failing []*campaign.Result
	sum := campaign.Run(ctx, c, func(r *campaign.Result) {
		if len(r.Violations) > 0 || r.Internal != "" {
			failing = append(failing, r)
		}
	})
	if len(regressions) > 0 {
		reportCorpus(t, regressions, c)
		return
	}
	if cs := sum.Corpus; cs.Replayed > 0 || len(cs.Skipped) > 0 {
		replayed := fmt.Sprintf("%d replayed first, each as it should", cs.Replayed)
		if cs.Replayed == 0 {
			replayed = "none replayed first"
		}
		t.Logf("campaign: corpus %s: %s%s", s.corpus, replayed, cs.Skipped.Note())
	}
	if len(failing) == 0 {
		t.Logf("campaign: %s from %#x, %d events, no violation", words.Plural(sum.Runs, "seed"), c.First, sum.Events)
		unexercised(t, c, sum)
		return
	}
	// Only the first is shrunk: the others are counted.
	first := failing[0]
	if first.Internal == "" {
		c.NoShrink, c.Corpus = false, s.corpus
		if c.Mutant != "" {
			// A mutant's failure is turnsim's own bug, put there on
			// purpose: it has no place in the caller's corpus.
			c.Corpus = ""
		}
		first = c.Investigate(first)
	}
	// Paths as the module's root sees them, where the go test line runs.
	first.Corpus = fromRoot(first.Corpus)
	var b strings.Builder
	first.Write(&b, false)
	if n := len(failing) - 1; n > 0 {
		fmt.Fprintf(&b, "and %d more of %d seeds failed: %s\n", n, sum.Runs, seedList(failing[1:]))
	} else {
		fmt.Fprintf(&b, "the only failing seed of %d\n", sum.Runs)
	}
	// No timeline of a plan that blocked outside virtual time: its run
	// would wait out the watchdog again. A plan kept as drawn (a panic, a
	// nondeterminism) is the plan, not a shrunk one; an internal error
	// has none.
	if plan := first.Scenario(); plan != nil && first.Blocked == "" {
		what := "the shrunk plan"
		if first.NotShrunk != "" {
			what = "the plan"
		}
		writeTimeline(&b, what, plan, c.Sim)
	}
	t.Error(strings.TrimRight(b.String(), "\n"))
}

// config is the campaign the settings and flags describe.
func (s *settings) config(t tb) (campaign.Config, error) {
	if err := sim.CheckListeners(s.listeners); err != nil {
		return campaign.Config{}, err
	}
	c := campaign.Config{First: s.first, Count: 1000, Workers: runtime.GOMAXPROCS(0), Overrides: s.overrides,
		Sample: s.sample, NoShrink: true, Version: campaign.Version}
	if testing.Short() {
		c.Count = 200
	}
	switch {
	case s.runsSet && s.runs < 1:
		return c, fmt.Errorf("simtest.Runs(%d): want a positive count (a campaign of no seed checks nothing)", s.runs)
	case s.runsSet:
		c.Count = uint64(s.runs)
	}
	if p := s.overrides.Policy; p != nil {
		// A policy built in Go, held to what a file of it would be: a NaN
		// delay, a mode of neither kind or a budget past a safe integer
		// once ran and were blamed on the loop.
		if err := retry.Validate(p); err != nil {
			return c, fmt.Errorf("simtest.Policy: %v", err)
		}
	}
	if s.faultsSet {
		if len(s.overrides.Kinds) == 0 {
			return c, errors.New("simtest.Faults: no kind given (leave Faults out for every kind)")
		}
		kinds, err := faults.ParseKinds(strings.Join(s.overrides.Kinds, ","))
		if err != nil {
			return c, fmt.Errorf("simtest.Faults: %v", err)
		}
		c.Overrides.Kinds = kinds
	}
	if v, from := setting(strconv.Itoa(*flagRuns), "sim.runs", "SIM_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return c, fmt.Errorf("%s %q: want a positive count", from, v)
		}
		c.Count = uint64(n)
	}
	if v, from := setting(durationFlag(*flagDuration), "sim.duration", "SIM_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("%s %q: want a positive duration such as 30s", from, v)
		}
		c.Duration = d
	}
	if v, from := setting(*flagSeed, "sim.seed", "SIM_SEED"); v != "" {
		seed, err := campaign.ParseSeed(v)
		if err != nil {
			return c, fmt.Errorf("%s: %v", from, err)
		}
		// One seed, asked for: beside a count or a duration (a CI job's
		// SIM_RUNS, say) one of the two once won without a word.
		for _, other := range [][3]string{{strconv.Itoa(*flagRuns), "sim.runs", "SIM_RUNS"}, {durationFlag(*flagDuration), "sim.duration", "SIM_DURATION"}} {
			if w, wfrom := setting(other[0], other[1], other[2]); w != "" {
				return c, fmt.Errorf("%s runs one seed; %s %q says how many run: give one of them", from, wfrom, w)
			}
		}
		c.First, c.Count, c.Duration = seed, 1, 0
		s.oneSeed = true
	}
	if err := campaign.SeedRange(c.First, c.Count); err != nil && c.Duration == 0 {
		return c, fmt.Errorf("simtest.From(%#x) with %d runs: %v", c.First, c.Count, err)
	}
	c.Sim = sim.Options{Listeners: s.listeners, BlockedAfter: s.blockedAfter, System: s.system}
	if s.system != nil && len(s.listeners) > 0 {
		return c, fmt.Errorf("simtest.System(%s) with simtest.Listeners: a listener of one's own is Go code, which runs in the model only", s.system.Name())
	}
	mutant, from := s.mutant, "simtest.Mutant"
	if v, f := setting(*flagMutant, "sim.mutant", "SIM_MUTANT"); v != "" {
		mutant, from = v, f
	}
	if mutant != "" {
		m, ok := mutants.Find(mutant)
		if !ok {
			return c, fmt.Errorf("%s %q: no such mutant (known: %s)", from, mutant, strings.Join(mutants.Names(), ", "))
		}
		if s.system != nil {
			return c, fmt.Errorf("%s %q with simtest.System(%s): a mutant of the zoo is Go code, which runs in the model only", from, mutant, s.system.Name())
		}
		c.Mutant = m.Name
		c.Sim = m.Options
		c.Sim.Listeners = append(append([]sim.Listener(nil), s.listeners...), m.Options.Listeners...)
		c.Sim.BlockedAfter = s.blockedAfter
	}
	c.Repro.GoTest = "go test " + packageArg() + " -run '" + runPattern(t.Name()) + "' -sim.seed=%#x"
	if mutant != "" {
		c.Repro.GoTest += " -sim.mutant=" + mutant
		c.Repro.SimrunFlags = " --mutant " + mutant
	}
	if p := s.overrides.Policy; p != nil {
		c.Repro.SimrunFlags += " --policy POLICY.json"
	}
	if s.system != nil {
		c.Repro.SimrunFlags += " --sut " + s.system.Name()
	}
	if k := s.overrides.Kinds; k != nil {
		c.Repro.SimrunFlags += " --faults " + strings.Join(k, ",")
	}
	for _, l := range s.listeners {
		c.Repro.Plugged = append(c.Repro.Plugged, l.Name)
	}
	if len(c.Repro.Plugged) > 0 {
		// A simrun without them refuses the line instead of replaying
		// another draw.
		c.Repro.SimrunFlags += " --listeners " + strings.Join(c.Repro.Plugged, ",")
	}
	return c, nil
}

// reportCorpus fails the test with the corpus entries that no longer
// replay as they should: the first in full, the others counted.
func reportCorpus(t tb, rs []campaign.CorpusResult, c campaign.Config) {
	t.Helper()
	var b strings.Builder
	r := rs[0]
	path := fromRoot(r.Path)
	switch {
	case r.Err != nil:
		fmt.Fprintf(&b, "%s: %v\n", path, r.Err)
	default:
		fmt.Fprintf(&b, "%s (seed %s) fails again:\n", path, r.Entry.Seed)
		for _, v := range r.Violations {
			fmt.Fprintf(&b, "  %s\n", v.Line())
		}
		fmt.Fprintf(&b, "  plan:\n    listeners: %s\n", strings.Join(r.Scenario.ListenerOrder, ", "))
		for _, l := range faults.PlanLines(r.Scenario) {
			fmt.Fprintf(&b, "    %s\n", l)
		}
		fmt.Fprintf(&b, "  reproduce: %s\n", strings.TrimSpace("simrun replay "+path+" "+c.Repro.PluggedNote()))
		b.WriteString("  (the corpus is replayed before any seed: fix the failure, or delete the entry once it is understood)\n")
		writeTimeline(&b, "the entry", r.Scenario, c.Sim)
	}
	if len(rs) > 1 {
		fmt.Fprintf(&b, "and %d more corpus entries fail\n", len(rs)-1)
	}
	t.Error(strings.TrimRight(b.String(), "\n"))
}

// seedList names a few failing seeds and their invariants.
func seedList(rs []*campaign.Result) string {
	var parts []string
	for i, r := range rs {
		if i == 5 {
			parts = append(parts, "…")
			break
		}
		id := "internal error"
		if len(r.Violations) > 0 {
			id = string(judge.Principal(r.Violations).Invariant)
		}
		parts = append(parts, r.Seed+" ("+id+")")
	}
	return strings.Join(parts, ", ")
}

// runPattern is the -run pattern of one test (and subtest) by name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// writeTimeline writes the timeline of a failure's plan (what names it:
// the shrunk plan, a corpus entry), one line an event (the legend is in
// docs/scenarios.md), when -sim.timeline or SIM_TIMELINE asks for it, and
// otherwise says how to ask: without it the only way to see the timeline
// was a main of one's own importing simrun.
func writeTimeline(b *strings.Builder, what string, plan *sim.Scenario, opts sim.Options) {
	wanted := *flagTimeline
	if v, _ := setting("", "sim.timeline", "SIM_TIMELINE"); v != "" {
		wanted = wanted || (v != "0" && v != "false")
	}
	if !wanted {
		fmt.Fprintf(b, "(-sim.timeline, or SIM_TIMELINE=1, prints %s's timeline here)\n", what)
		return
	}
	res, _ := judge.Check(plan, opts)
	fmt.Fprintf(b, "timeline of %s:\n", what)
	if err := timeline.RenderRun(b, res); err != nil {
		fmt.Fprintf(b, "(the timeline could not be drawn: %v)\n", err)
	}
}

// setting is a flag's value, else its environment twin's, with the name
// of the one it came from (for an error about it).
func setting(flagValue, flagName, env string) (value, from string) {
	if flagValue != "" && flagValue != "0" {
		return flagValue, "-" + flagName
	}
	return os.Getenv(env), env
}

func durationFlag(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// unexercised fails a campaign whose plugged-in listener was never put to
// the test: never asked, or never answering retry though it has a budget
// to spend (a code it looks for that no failure has, say): green would
// say nothing about it.
func unexercised(t tb, c campaign.Config, sum campaign.Summary) {
	t.Helper()
	if c.Count == 1 && c.Duration == 0 {
		return // one seed, asked for by -sim.seed: it is about that seed
	}
	for i, l := range sim.Added(c.Sim.Listeners) {
		if i >= len(sum.Calls) {
			break
		}
		switch {
		case sum.Calls[i] == 0:
			t.Error(fmt.Sprintf("campaign: %s was never asked in %s: no failure reached it (is it placed behind a listener that owns every failure?)",
				l.Name, words.Plural(sum.Runs, "seed")))
		case sum.Retries[i] == 0 && l.MaxRetries != 0:
			t.Error(fmt.Sprintf("campaign: %s was asked %s in %s and never answered retry, though its MaxRetries is %d: "+
				"are its codes ones a provider fails with (SERVER, RATE_LIMIT, TIMEOUT, …)? Codes in its sim.Listener aim the swarm at them",
				l.Name, words.Plural(sum.Calls[i], "time"), words.Plural(sum.Runs, "seed"), l.MaxRetries))
		}
	}
}

// moduleRoot is the folder of the go.mod above the test's folder (go test
// runs a test in its package's folder), or "" when there is none.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// packageArg is the test's package as go test names it from the module's
// root: "./campaign", or "." for a package at the root.
func packageArg() string {
	root := moduleRoot()
	cwd, err := os.Getwd()
	if root == "" || err != nil {
		return "."
	}
	rel, err := filepath.Rel(root, cwd)
	if err != nil || rel == "." {
		return "."
	}
	return "./" + filepath.ToSlash(rel)
}

// fromRoot is a path relative to the test's folder as the module's root
// sees it (a corpus ../corpus of ./campaign is corpus there).
func fromRoot(path string) string {
	root := moduleRoot()
	if root == "" || path == "" {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}
