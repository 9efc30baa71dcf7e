package simrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

const runUsage = `usage: simrun run [--seeds N] [--start S] [--seed S] [--duration D] [-j N]
                  [--policy FILE] [--faults KINDS] [--mutant NAME]
                  [--corpus DIR] [--json] [--determinism-sample P] [--stats]

Draws a configuration and a fault plan from each seed, runs it in the
deterministic world and checks every invariant. The corpus is replayed
first. Each violation is shrunk to a minimal plan, written to the corpus
and printed with its reproduction line. The last line is
"N runs, V violations, …". Results are the same for any -j.

Fault kinds: ` + "server, rate-limit, rate-limit-over-cap, auth, overflow, timeout, transport, empty-response, stream-closed, invalid-request, quota, custom, partial, hang, latency, cancel, dispose, late-input, outage, summary-fail, listener-throw, natural-overflow" + `

Exit status: 0 clean, 1 violations, 2 bad usage or input (a bad corpus
entry, policy file or kind), 3 an internal error, 130 interrupted (SIGINT
or SIGTERM): the summary so far is printed, the corpus is whole.

flags:
`

// seedResult is one seed's outcome, as printed and as --json writes it.
type seedResult struct {
	Seed       string             `json:"seed"`
	Events     int                `json:"events"`
	Violations []oracle.Violation `json:"violations,omitempty"`
	Invariant  string             `json:"invariant,omitempty"`
	Plan       []string           `json:"plan,omitempty"`
	ShrinkRuns int                `json:"shrinkRuns,omitempty"`
	Reproduce  string             `json:"reproduce,omitempty"`
	GoTest     string             `json:"goTest,omitempty"`
	Corpus     string             `json:"corpus,omitempty"`
	CorpusErr  string             `json:"corpusError,omitempty"`
	Internal   string             `json:"internalError,omitempty"`
	// exercised is the run's coverage, read only with --stats.
	exercised *faults.Exercised
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", stderr, runUsage)
	seeds := fs.Int("seeds", 10000, "how many seeds to run")
	start := fs.String("start", "1", "the first seed")
	one := fs.String("seed", "", "run just this seed")
	duration := fs.Duration("duration", 0, "run seeds from --start until this much time has passed (instead of --seeds)")
	workers := fs.Int("j", runtime.GOMAXPROCS(0), "parallel workers")
	corpus := fs.String("corpus", "corpus", "the corpus folder: replayed first, failures written there")
	asJSON := fs.Bool("json", false, "print one JSON object per violation and corpus entry, then a summary object")
	sample := fs.Float64("determinism-sample", 0.05, "the share of seeds run twice to check that they reproduce byte for byte")
	shardFlag := fs.String("shard", "", "run only the seeds whose index ≡ i (mod n), as i/n (default from JOB_COMPLETION_INDEX and JOB_COMPLETION_COUNT); merge the shards' --json with simrun merge")
	stats := fs.Bool("stats", false, "print how often each fault kind, choice point and invariant precondition was exercised, and warn about any never hit")
	var sf seedFlags
	sf.register(fs)
	rest, err := parseInterspersed(fs, args)
	if errors.Is(err, errHelp) {
		return exitClean
	} else if err != nil {
		return exitUsage
	}
	if problem := runFlagProblem(rest, *duration, *sample, *corpus); problem != "" {
		fmt.Fprintf(stderr, "simrun run: %s\n", problem)
		return exitUsage
	}
	overrides, opts, err := sf.resolve()
	if err != nil {
		fmt.Fprintf(stderr, "simrun run: %v\n", err)
		return exitUsage
	}
	first, err := parseSeed(*start)
	count := uint64(*seeds)
	if *one != "" {
		first, err = parseSeed(*one)
		count = 1
	}
	if err != nil || *workers < 1 || *seeds < 0 {
		fmt.Fprintf(stderr, "simrun run: %v\n", errOr(err, "--seeds and -j must be positive"))
		return exitUsage
	}
	shard, err := parseShard(*shardFlag, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "simrun run: %v\n", err)
		return exitUsage
	}
	tuneGCForRuns()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	out := &runPrinter{w: stdout, json: *asJSON}
	// The corpus is replayed once across shards: by shard 0.
	corpusBad, corpusViolations := 0, 0
	if shard.index == 0 {
		corpusBad, corpusViolations = replayCorpus(*corpus, sf.mutant, opts, out)
	}

	began := time.Now()
	var deadline time.Time
	if *duration > 0 {
		deadline = began.Add(*duration)
		count = ^uint64(0) - first
	}
	r := &seedRunner{first: first, count: shard.count(count), deadline: deadline, overrides: overrides, opts: opts,
		flags: sf, corpus: *corpus, sample: *sample, stats: *stats, shard: shard}
	progress := newProgress(stderr, r.count, *duration)
	// Only counts are kept: memory stays flat in the number of seeds.
	var runs, events, violations, internal int
	var coverage faults.Coverage
	r.run(ctx, *workers, func(res *seedResult) {
		runs++
		if res.exercised != nil {
			coverage.Add(*res.exercised)
		}
		events += res.Events
		if len(res.Violations) > 0 {
			violations++
		}
		if res.Internal != "" {
			internal++
		}
		out.seed(res)
		progress.update(res)
	})
	progress.done()
	elapsed := time.Since(began).Seconds()
	violations += corpusViolations
	note := ""
	if ctx.Err() != nil {
		note = " (interrupted)"
	}
	summary := fmt.Sprintf("%d runs, %d violations, %d events, %.0f runs/s, %.0f events/s%s",
		runs, violations, events, float64(runs)/elapsed, float64(events)/elapsed, note)
	if *stats {
		report := coverage.Report()
		if *asJSON {
			b, _ := json.Marshal(map[string]any{"stats": report})
			fmt.Fprintf(stdout, "%s\n", b)
		} else {
			report.Write(stdout)
		}
	}
	if *asJSON {
		summary := map[string]any{"runs": runs, "violations": violations, "events": events,
			"corpusErrors": corpusBad, "interrupted": ctx.Err() != nil}
		if shard.of > 1 {
			summary["shard"] = shard.String()
		}
		b, _ := json.Marshal(summary)
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		fmt.Fprintln(stdout, summary)
	}
	switch {
	case internal > 0:
		return exitInternal
	case ctx.Err() != nil:
		// Not a pass, whatever was found so far: CI must not read a run
		// killed half way as a clean one.
		return exitInterrupted
	case violations > 0:
		return exitViolation
	case corpusBad > 0:
		return exitUsage
	}
	return exitClean
}

func errOr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// seedRunner runs a range of seeds on workers and hands results back in
// seed order.
type seedRunner struct {
	first, count uint64
	deadline     time.Time
	overrides    faults.Overrides
	opts         sim.Options
	flags        seedFlags
	corpus       string
	sample       float64
	stats        bool
	shard        shard
}

// run hands each result to emit, in seed order, under a lock; it holds
// only the results that finished ahead of an earlier seed (at most about
// one per worker).
func (r *seedRunner) run(ctx context.Context, workers int, emit func(*seedResult)) {
	var mu sync.Mutex
	done := map[uint64]*seedResult{}
	next, emitted := uint64(0), uint64(0)
	take := func() (uint64, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= r.count || ctx.Err() != nil || (!r.deadline.IsZero() && time.Now().After(r.deadline)) {
			return 0, false
		}
		i := next
		next++
		return i, true
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				res := r.safely(r.first + r.shard.seedIndex(i))
				mu.Lock()
				done[i] = res
				for done[emitted] != nil { // emit in seed order
					emit(done[emitted])
					delete(done, emitted)
					emitted++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// safely runs a seed; a panic of turnsim itself (the system under test's
// are caught by the world) becomes that seed's internal error.
func (r *seedRunner) safely(seed uint64) (res *seedResult) {
	defer func() {
		if p := recover(); p != nil {
			res = &seedResult{Seed: fmt.Sprintf("%#x", seed), Internal: fmt.Sprintf("%v\n%s", p, debug.Stack())}
		}
	}()
	return r.one(seed)
}

// one runs a seed, and shrinks and records a failure.
func (r *seedRunner) one(seed uint64) *seedResult {
	v := faults.RunSeed(seed, r.overrides, r.opts, sampled(seed, r.sample))
	res := &seedResult{Seed: fmt.Sprintf("%#x", seed), Events: len(v.Result.Events), Violations: v.Violations}
	if r.stats {
		x := faults.Exercise(v)
		res.exercised = &x
	}
	if len(v.Violations) == 0 {
		return res
	}
	first := faults.Principal(v.Violations)
	res.Invariant = first.Invariant
	shrunk := v.Scenario
	if first.Invariant != oracle.Nondeterminism && first.Invariant != oracle.SUTPanic {
		shrunk, res.ShrinkRuns = faults.Shrink(v.Scenario, first.Invariant, r.opts)
	}
	res.Plan = faults.PlanLines(shrunk)
	res.Reproduce = fmt.Sprintf("simrun replay --seed %#x%s", seed, r.flags.args())
	res.GoTest = fmt.Sprintf("go test ./faults -run '^TestSeeds$' -sim.seed=%#x", seed)
	if r.flags.args() != "" {
		res.GoTest = ""
	}
	entry, err := faults.NewEntry(version, seed, r.overrides, r.flags.mutant, first.Invariant, first.Message, shrunk)
	if err == nil {
		res.Corpus, err = entry.Write(r.corpus)
	}
	if err != nil {
		res.CorpusErr = err.Error()
	}
	return res
}

// sampled reports whether a seed is among the share run twice: a fixed
// function of the seed, so that -j does not change which.
func sampled(seed uint64, share float64) bool {
	h := seed * 0x9E3779B97F4A7C15
	return float64(h>>11)/float64(1<<53) < share
}

// replayCorpus replays every entry first: a regression entry must pass now;
// a mutant's entry replays only against that mutant, where it must still
// fail. It returns the bad entries and the violations.
func replayCorpus(dir, mutant string, opts sim.Options, out *runPrinter) (bad, violations int) {
	for _, le := range faults.LoadCorpus(dir) {
		if le.Err != nil {
			bad++
			out.corpusError(le.Path, le.Err)
			continue
		}
		e := le.Entry
		if e.Mutant != mutant {
			continue // another mutant's entry, or a mutant's entry under the correct loop
		}
		_, vs := faults.Check(le.Scenario, opts)
		still := false
		for _, v := range vs {
			still = still || v.Invariant == e.Invariant
		}
		switch {
		case mutant == "" && len(vs) > 0:
			violations++
			out.corpusFailure(le.Path, vs)
		case mutant != "" && !still:
			violations++
			out.corpusFailure(le.Path, []oracle.Violation{{Invariant: e.Invariant, Message: "the mutant's entry no longer reproduces its violation"}})
		}
	}
	return bad, violations
}

// runPrinter prints results as they come, in seed order.
type runPrinter struct {
	w    io.Writer
	json bool
	mu   sync.Mutex
}

func (p *runPrinter) seed(res *seedResult) {
	if res.Internal != "" {
		p.mu.Lock()
		defer p.mu.Unlock()
		fmt.Fprintf(p.w, "seed %s: internal error of turnsim: %s\n", res.Seed, res.Internal)
		return
	}
	if len(res.Violations) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		b, _ := json.Marshal(res)
		fmt.Fprintf(p.w, "%s\n", b)
		return
	}
	for _, v := range res.Violations {
		fmt.Fprintf(p.w, "seed %s: %s\n", res.Seed, formatViolation(v))
	}
	fmt.Fprintf(p.w, "  shrunk plan (%d lines, %d shrink runs):\n", len(res.Plan), res.ShrinkRuns)
	for _, l := range res.Plan {
		fmt.Fprintf(p.w, "    %s\n", l)
	}
	fmt.Fprintf(p.w, "  reproduce: %s\n", res.Reproduce)
	if res.GoTest != "" {
		fmt.Fprintf(p.w, "             %s\n", res.GoTest)
	}
	if res.Corpus != "" {
		fmt.Fprintf(p.w, "  corpus: %s\n", res.Corpus)
	} else {
		fmt.Fprintf(p.w, "  corpus: not written: %s\n", res.CorpusErr)
	}
}

func (p *runPrinter) corpusError(path string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		b, _ := json.Marshal(map[string]string{"corpusEntry": path, "error": err.Error()})
		fmt.Fprintf(p.w, "%s\n", b)
		return
	}
	fmt.Fprintf(p.w, "%s: error: %v\n", path, err)
}

func (p *runPrinter) corpusFailure(path string, vs []oracle.Violation) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		b, _ := json.Marshal(map[string]any{"corpusEntry": path, "violations": vs})
		fmt.Fprintf(p.w, "%s\n", b)
		return
	}
	for _, v := range vs {
		fmt.Fprintf(p.w, "%s: %s\n", path, formatViolation(v))
	}
}

// progress is a one-line progress report, only on a terminal.
type progress struct {
	w          io.Writer
	on         bool
	total      uint64
	began      time.Time
	last       time.Time
	runs, bad  int
	timeBudget time.Duration
}

func newProgress(w io.Writer, total uint64, budget time.Duration) *progress {
	p := &progress{w: w, total: total, began: time.Now(), timeBudget: budget}
	if f, ok := w.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

func (p *progress) update(res *seedResult) {
	p.runs++
	if len(res.Violations) > 0 {
		p.bad++
	}
	if !p.on || time.Since(p.last) < 250*time.Millisecond {
		return
	}
	p.last = time.Now()
	elapsed := time.Since(p.began)
	rate := float64(p.runs) / elapsed.Seconds()
	eta := "?"
	switch {
	case p.timeBudget > 0:
		eta = (p.timeBudget - elapsed).Round(time.Second).String()
	case rate > 0:
		eta = (time.Duration(float64(p.total-uint64(p.runs))/rate) * time.Second).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r%d runs, %.0f runs/s, %d violations, ETA %s   ", p.runs, rate, p.bad, eta)
}

func (p *progress) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// shard is this process's share of a run: the seed indices ≡ index (mod
// of). The zero value and 0/1 are the whole run.
type shard struct{ index, of uint64 }

func (s shard) String() string { return fmt.Sprintf("%d/%d", s.index, s.of) }

// count is how many of n seed indices fall to this shard.
func (s shard) count(n uint64) uint64 {
	if s.of <= 1 {
		return n
	}
	if s.index >= n {
		return 0
	}
	return (n-s.index-1)/s.of + 1
}

// seedIndex is the run-wide index of this shard's k-th seed.
func (s shard) seedIndex(k uint64) uint64 {
	if s.of <= 1 {
		return k
	}
	return s.index + k*s.of
}

// parseShard reads --shard i/n, or else Kubernetes Indexed Jobs'
// JOB_COMPLETION_INDEX with JOB_COMPLETION_COUNT.
func parseShard(flag string, getenv func(string) string) (shard, error) {
	text, from := flag, "--shard"
	if text == "" {
		index, count := getenv("JOB_COMPLETION_INDEX"), getenv("JOB_COMPLETION_COUNT")
		if index == "" && count == "" {
			return shard{0, 1}, nil
		}
		if index == "" || count == "" {
			return shard{}, errors.New("JOB_COMPLETION_INDEX and JOB_COMPLETION_COUNT go together (set both, or --shard i/n)")
		}
		text, from = index+"/"+count, "JOB_COMPLETION_INDEX/JOB_COMPLETION_COUNT"
	}
	i, n, ok := strings.Cut(text, "/")
	index, err1 := strconv.ParseUint(i, 10, 64)
	of, err2 := strconv.ParseUint(n, 10, 64)
	if !ok || err1 != nil || err2 != nil || of == 0 || index >= of {
		return shard{}, fmt.Errorf("%s %q: want i/n with 0 ≤ i < n, e.g. 0/4", from, text)
	}
	return shard{index, of}, nil
}

// runFlagProblem is what is wrong with run's arguments, or "": each of
// these once made run go on with a default (10,000 seeds) instead.
func runFlagProblem(rest []string, duration time.Duration, sample float64, corpus string) string {
	switch {
	case len(rest) > 0:
		return fmt.Sprintf("unexpected argument %q (run takes flags only; to replay a corpus entry: simrun replay ENTRY)", strictjson.Printable(rest[0]))
	case duration < 0:
		return fmt.Sprintf("--duration %v: must be positive", duration)
	case !(sample >= 0 && sample <= 1):
		return fmt.Sprintf("--determinism-sample %v: must be a share in [0,1]", sample)
	}
	if info, err := os.Stat(corpus); err == nil && !info.IsDir() {
		return fmt.Sprintf("--corpus %s: not a folder (the corpus is a folder of entries)", corpus)
	}
	return ""
}
