package campaign

import (
	"context"
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

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/sim"
)

// The flags of a campaign under go test, each with an environment twin
// (the environment is what a CI job sets once for every package).
var (
	flagSeed     = flag.String("sim.seed", "", "run just this seed, decimal or 0x… (env SIM_SEED)")
	flagRuns     = flag.Int("sim.runs", 0, "how many seeds to run (env SIM_RUNS; default 1000, 200 under -short)")
	flagDuration = flag.Duration("sim.duration", 0, "run seeds for this long instead of a count (env SIM_DURATION)")
	flagMutant   = flag.String("sim.mutant", "", "run against a mutant of the zoo instead of the correct loop (env SIM_MUTANT)")
)

// Option changes a Check.
type Option func(*settings)

type settings struct {
	listeners []sim.Listener
	runs      int
	first     uint64
	overrides faults.Overrides
	corpus    string
	mutant    string
	sample    float64
}

// Listeners plugs listeners of one's own into the waterfall: the swarm
// draws their places (as their Place says) and aims cancels at their
// waits.
func Listeners(ls ...sim.Listener) Option {
	return func(s *settings) { s.listeners = append(s.listeners, ls...) }
}

// Runs sets how many seeds run (a -sim.runs or SIM_RUNS wins).
func Runs(n int) Option { return func(s *settings) { s.runs = n } }

// From sets the first seed (default 1).
func From(seed uint64) Option { return func(s *settings) { s.first = seed } }

// Policy pins the route's retry policy instead of drawing one per seed.
func Policy(p *loop.RetryPolicy) Option { return func(s *settings) { s.overrides.Policy = p } }

// Faults restricts the fault kinds a seed may enable (faults.Kinds).
func Faults(kinds ...string) Option { return func(s *settings) { s.overrides.Kinds = kinds } }

// Corpus sets the folder failures are kept in and replayed from first
// (default testdata/turnsim, beside the test).
func Corpus(dir string) Option { return func(s *settings) { s.corpus = dir } }

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
	// The corpus first: each entry is a failure already shrunk.
	var regressions []CorpusResult
	ReplayCorpus(s.corpus, c.Mutant, c.Sim, func(r CorpusResult) { regressions = append(regressions, r) })
	if len(regressions) > 0 {
		reportCorpus(t, regressions, c.Repro)
		return
	}
	var failing []*Result
	sum := Run(context.Background(), c, func(r *Result) {
		if len(r.Violations) > 0 || r.Internal != "" {
			failing = append(failing, r)
		}
	})
	if len(failing) == 0 {
		t.Logf("campaign: %d seeds from %#x, %d events, no violation", sum.Runs, c.First, sum.Events)
		return
	}
	// Only the first is shrunk: the others are counted.
	first := failing[0]
	if first.Internal == "" {
		c.NoShrink, c.Corpus = false, s.corpus
		first = c.One(first.seed)
	}
	var b strings.Builder
	first.Write(&b, false, c.Repro)
	if n := len(failing) - 1; n > 0 {
		fmt.Fprintf(&b, "and %d more of %d seeds failed: %s", n, sum.Runs, seedList(failing[1:]))
	} else {
		fmt.Fprintf(&b, "the only failing seed of %d", sum.Runs)
	}
	t.Error(strings.TrimRight(b.String(), "\n"))
}

// config is the campaign the settings and flags describe.
func (s *settings) config(t tb) (Config, error) {
	if err := sim.CheckListeners(s.listeners); err != nil {
		return Config{}, err
	}
	c := Config{First: s.first, Count: 1000, Workers: runtime.GOMAXPROCS(0), Overrides: s.overrides,
		Sample: s.sample, NoShrink: true, Version: Version}
	if testing.Short() {
		c.Count = 200
	}
	if s.runs > 0 {
		c.Count = uint64(s.runs)
	}
	if v := setting(strconv.Itoa(*flagRuns), "SIM_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return c, fmt.Errorf("sim.runs %q: want a positive count", v)
		}
		c.Count = uint64(n)
	}
	if v := setting(durationFlag(*flagDuration), "SIM_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("sim.duration %q: want a positive duration such as 30s", v)
		}
		c.Duration = d
	}
	if v := setting(*flagSeed, "SIM_SEED"); v != "" {
		seed, err := strconv.ParseUint(v, 0, 64)
		if err != nil {
			return c, fmt.Errorf("sim.seed %q: want an unsigned integer (decimal or 0x…)", v)
		}
		c.First, c.Count, c.Duration = seed, 1, 0
	}
	c.Sim = sim.Options{Listeners: s.listeners}
	mutant := s.mutant
	if v := setting(*flagMutant, "SIM_MUTANT"); v != "" {
		mutant = v
	}
	if mutant != "" {
		m, ok := mutants.Find(mutant)
		if !ok {
			return c, fmt.Errorf("sim.mutant %q: no such mutant (known: %s)", mutant, strings.Join(mutants.Names(), ", "))
		}
		c.Mutant = m.Name
		c.Sim = m.Options
		c.Sim.Listeners = append(append([]sim.Listener(nil), s.listeners...), m.Options.Listeners...)
	}
	c.Repro.GoTest = "go test -run '" + runPattern(t.Name()) + "' -sim.seed=%#x"
	if mutant != "" {
		c.Repro.GoTest += " -sim.mutant=" + mutant
		c.Repro.SimrunFlags = " --mutant " + mutant
	}
	if p := s.overrides.Policy; p != nil {
		c.Repro.SimrunFlags += " --policy POLICY.json"
	}
	if k := s.overrides.Kinds; k != nil {
		c.Repro.SimrunFlags += " --faults " + strings.Join(k, ",")
	}
	for _, l := range sim.Added(s.listeners) {
		c.Repro.Plugged = append(c.Repro.Plugged, l.Name)
	}
	return c, nil
}

// reportCorpus fails the test with the corpus entries that no longer
// replay as they should: the first in full, the others counted.
func reportCorpus(t tb, rs []CorpusResult, repro Repro) {
	t.Helper()
	var b strings.Builder
	r := rs[0]
	switch {
	case r.Err != nil:
		fmt.Fprintf(&b, "%s: %v\n", r.Path, r.Err)
	default:
		fmt.Fprintf(&b, "%s (seed %s) fails again:\n", r.Path, r.Entry.Seed)
		for _, v := range r.Violations {
			fmt.Fprintf(&b, "  %s\n", v.Line())
		}
		fmt.Fprintf(&b, "  listeners: %s\n  plan:\n", strings.Join(r.Scenario.ListenerOrder, ", "))
		for _, l := range faults.PlanLines(r.Scenario) {
			fmt.Fprintf(&b, "    %s\n", l)
		}
		fmt.Fprintf(&b, "  reproduce: simrun replay %s %s\n", r.Path, repro.PluggedNote())
		b.WriteString("  (the corpus is replayed before any seed: fix the failure, or delete the entry once it is understood)\n")
	}
	if len(rs) > 1 {
		fmt.Fprintf(&b, "and %d more corpus entries fail\n", len(rs)-1)
	}
	t.Error(strings.TrimRight(b.String(), "\n"))
}

// seedList names a few failing seeds and their invariants.
func seedList(rs []*Result) string {
	var parts []string
	for i, r := range rs {
		if i == 5 {
			parts = append(parts, "…")
			break
		}
		id := "internal error"
		if len(r.Violations) > 0 {
			id = string(faults.Principal(r.Violations).Invariant)
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

func setting(flagValue, env string) string {
	if flagValue != "" && flagValue != "0" {
		return flagValue
	}
	return os.Getenv(env)
}

func durationFlag(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}
