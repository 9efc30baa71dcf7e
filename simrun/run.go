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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/dshloop"
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/internal/words"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

const runUsage = `usage: simrun run [--seeds N] [--start S] [--seed S] [--duration D] [-j N]
                  [--policy FILE] [--faults KINDS] [--mutant NAME]
                  [--sut model|dsh|both] [--dsh-loop DIR] [--dsh-view]
                  [--listeners NAMES] [--blocked-after D]
                  [--corpus DIR] [--json] [--determinism-sample P] [--stats] [--shard I/N]

Draws a configuration and a fault plan from each seed, runs it in the
deterministic world and checks every invariant. The corpus is replayed
first. Each violation is shrunk to a minimal plan, written to the corpus
and printed with its reproduction line. The last line is
"N runs, V violations, …". Results are the same for any -j.

--sut dsh runs each plan on DSH's own loop, its real packages in one Node
process a worker, in virtual time (make dsh-loop installs them into
--dsh-loop); --sut both runs it on the model too and compares the two
runs' skeletons, a difference being a failure. The plans are drawn from
what DSH's composition can enact, in its terms. A recorded finding about
DSH that reproduces is reported apart; any other violation fails.

--dsh-view derives every log of the campaign (on --sut both, DSH's and
the model's) with DSH's own Web view code too: its conversation node
Definitions, assembler and row renderers from the install, run in one
Node process a worker. Each log is derived whole, in every tail window of
a turn with recovery, paged in as the Web UI pages history, and appended
live; each is compared node by node, and the whole log and the live page
row by row, with turnsim's view under the rule DSH renders turn errors by
(a difference is a violation: differs-from-dsh-view). The rendering
invariants are judged on what DSH's code derives: recorded findings about
it (rc.8's turn-error-hidden-by-retry, auth-text-in-retry-row, and
assistant-withdrawn-live, a difference from turnsim's view) are counted
by class apart, each with its first seed's reproduction line; any other
is a violation. The summary line says how many runs' logs were derived.

Fault kinds: ` + "server, rate-limit, rate-limit-over-cap, auth, overflow, timeout, transport, empty-response, stream-closed, invalid-request, quota, custom, partial, hang, latency, cancel, dispose, late-input, outage, summary-fail, listener-throw, natural-overflow" + `

Exit status: 0 clean, 1 violations, 2 bad usage or input (a bad corpus
entry, policy file or kind), 3 an internal error, 130 interrupted (SIGINT
or SIGTERM): the summary so far is printed, the corpus is whole.

flags:
`

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
	if problem := runFlagProblem(rest, setFlags(fs), *duration, *sample, *corpus); problem != "" {
		fmt.Fprintf(stderr, "simrun run: %s\n", problem)
		return exitUsage
	}
	sf.jobs = *workers
	overrides, opts, err := sf.resolve()
	if err != nil {
		fmt.Fprintf(stderr, "simrun run: %v\n", err)
		return exitUsage
	}
	defer sf.close()
	first, err := parseSeed(*start)
	count := uint64(*seeds)
	if *one != "" {
		first, err = parseSeed(*one)
		count = 1
	}
	if err != nil || *seeds < 1 {
		fmt.Fprintf(stderr, "simrun run: %v\n", errOr(err, "--seeds must be positive (a run of no seed checks nothing)"))
		return exitUsage
	}
	if err := checkJobs(*workers); err != nil {
		fmt.Fprintf(stderr, "simrun run: %v\n", err)
		return exitUsage
	}
	if err := campaign.SeedRange(first, count); err != nil && *duration == 0 {
		fmt.Fprintf(stderr, "simrun run: --start %s --seeds %d: %v\n", *start, *seeds, err)
		return exitUsage
	}
	shard, err := campaign.ParseShard(*shardFlag, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "simrun run: %v\n", err)
		return exitUsage
	}
	if *duration == 0 && shard.Count(count) == 0 {
		// As --seeds 0: a run of no seed checks nothing (a shard's job
		// running --seed once passed with 0 runs).
		fmt.Fprintf(stderr, "simrun run: shard %s of %d seeds runs none of them (the shard is from --shard or JOB_COMPLETION_INDEX/JOB_COMPLETION_COUNT)\n", shard, count)
		return exitUsage
	}
	tuneGCForRuns()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	c := campaign.Config{First: first, Count: count, Duration: *duration, Workers: *workers, Overrides: overrides, Sim: opts,
		Mutant: sf.mutant, Corpus: *corpus, Sample: *sample, Stats: *stats, Shard: shard, Version: version,
		Repro: campaign.Repro{SimrunFlags: sf.args(), Plugged: sf.pluggedNames(), EntryFlags: sf.entryFlags()}}
	if sf.listeners == "" && len(c.Repro.Plugged) > 0 {
		// The line names the listeners, so that a simrun without them
		// refuses it rather than replaying another draw.
		c.Repro.SimrunFlags += " --listeners " + strings.Join(c.Repro.Plugged, ",")
	}
	if sf.args() == "" && len(c.Repro.Plugged) == 0 {
		c.Repro.GoTest = "go test ./campaign -run '^TestSeeds$' -sim.seed=%#x"
	}
	out := &runPrinter{w: stdout, json: *asJSON}
	// The corpus is replayed first, by the campaign (once across shards:
	// by shard 0); its entries are printed as they come.
	c.OnEntry = func(r campaign.CorpusResult) {
		switch {
		case r.Err != nil:
			out.corpusError(r.Path, r.Err)
		case len(r.Violations) > 0:
			out.corpusFailure(r.Path, r.Violations)
		}
	}
	total := shard.Count(count)
	if *duration > 0 {
		total = 0
	}
	progress := newProgress(stderr, total, *duration)
	// Only counts are kept: memory stays flat in the number of seeds.
	sum := campaign.Run(ctx, c, func(res *campaign.Result) {
		out.seed(res)
		progress.update(res)
	})
	progress.done()
	sayOtherFlags(stderr, *corpus, sum.Corpus.Skipped)
	corpusBad := sum.Corpus.Unreadable
	if *stats {
		report := sum.Coverage.Report()
		if *asJSON {
			b, _ := json.Marshal(map[string]any{"stats": report})
			fmt.Fprintf(stdout, "%s\n", b)
		} else {
			report.Write(stdout)
		}
	}
	if *asJSON {
		summary := campaign.ShardSummary{Runs: sum.Runs, Violations: sum.Violations, Events: sum.Events, Internal: sum.Internal,
			CorpusErrors: corpusBad, CorpusNotWritten: sum.CorpusNotWritten, Interrupted: sum.Interrupted, Blocked: sum.Blocked,
			ViewFindings: sum.ViewFindings, ViewRuns: sum.ViewRuns, ViewDiffering: sum.ViewDiffering,
			Campaign: campaignOf(first, count, *duration, sf), Start: fmt.Sprintf("%#x", first)}
		if *duration == 0 {
			summary.Seeds = count
		}
		if shard.Of > 1 {
			summary.Shard = shard.String()
		}
		fmt.Fprintf(stdout, "%s\n", summary.JSON())
	} else {
		writeViewFindings(stdout, sum.ViewFindings)
		if shard.Index == 0 {
			fmt.Fprintf(stdout, "corpus %s: %s\n", strings.TrimSuffix(*corpus, "/")+"/", corpusNote(sum.Corpus))
		}
		fmt.Fprintf(stdout, "checked: %s\n", checkedNote(opts, c.Sample, c.Overrides.Kinds))
		if *stats {
			fmt.Fprintf(stdout, "cancels landed: %s\n", sum.Coverage.Report().CancelsNote())
		}
		fmt.Fprintln(stdout, sum)
	}
	switch {
	case sum.Internal > 0:
		return exitInternal
	case sum.Interrupted:
		// Not a pass, whatever was found so far: CI must not read a run
		// killed half way as a clean one.
		return exitInterrupted
	case sum.Violations > 0:
		return exitViolation
	case corpusBad > 0:
		return exitUsage
	}
	return exitClean
}

// writeViewFindings prints each class of recorded finding about DSH's
// view code a campaign's logs showed: how often, the first seed's words
// and the line that replays it.
func writeViewFindings(w io.Writer, counts []campaign.ViewFindingCount) {
	for _, f := range counts {
		printLine(w, "DSH's view code: recorded finding %s (%s) in %s, %s; first in seed %s: %s",
			f.Class, f.Invariant, words.Plural(f.Seeds, "seed"), words.Plural(f.Turns, "turn"), f.First, f.Example)
		printLine(w, "  reproduce: %s", f.Reproduce)
	}
}

// campaignOf names the campaign a run belongs to, the same for each of
// its shards: merge refuses shards of different campaigns.
func campaignOf(first, count uint64, d time.Duration, sf seedFlags) string {
	seeds := fmt.Sprintf("--seeds %d", count)
	if d > 0 {
		seeds = "--duration " + d.String()
	}
	return fmt.Sprintf("--start %#x %s%s (turnsim %s)", first, seeds, sf.args(), version)
}

func errOr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// checkedNote says what every run of a campaign was held to: the
// invariants (those of --sut both and --dsh-view only with them) and the
// fault kinds a seed may draw.
func checkedNote(opts sim.Options, sample float64, kinds []string) string {
	n := 0
	for _, inv := range oracle.Invariants {
		switch {
		case inv.ID == oracle.DiffersFromModel && opts.SystemName() != dshloop.SystemBoth,
			inv.ID == oracle.DiffersFromDSHView && opts.ViewCheck == nil:
			continue
		}
		n++
	}
	kindsNote := fmt.Sprintf("all %d fault kinds", len(faults.Kinds))
	if kinds != nil {
		kindsNote = "fault kinds " + strings.Join(kinds, ", ")
	}
	return fmt.Sprintf("%d invariants on every run (docs/invariants.md; nondeterminism on the %.0f%% of seeds run twice), %s",
		n, sample*100, kindsNote)
}

// corpusNote says what replaying the corpus first did: "2 entries
// replayed first, as they should; 1 failed; skipped: …".
func corpusNote(c campaign.CorpusSummary) string {
	note := words.Plural(c.Replayed, "entry") + " replayed first, as they should"
	switch {
	case c.Replayed == 0 && c.Failed > 0:
		note = fmt.Sprintf("%s replayed first, and failed (above)", words.Plural(c.Failed, "entry"))
	case c.Replayed == 0:
		note = "no entry replayed first"
	case c.Failed > 0:
		note += fmt.Sprintf("; %d failed (above)", c.Failed)
	}
	if c.Unreadable > 0 {
		note += fmt.Sprintf("; %d could not be read (above)", c.Unreadable)
	}
	return note + c.Skipped.Note()
}

// sayOtherFlags says on stderr which entries of this run's mutant (or of
// none) were made with other flags (--sut, --dsh-view): regressions this
// run does not replay, so that a clean run without the flags they need is
// not read as their replay.
func sayOtherFlags(stderr io.Writer, dir string, skipped campaign.Skips) {
	var reasons []string
	for _, k := range skipped {
		if k.OtherFlags() {
			reasons = append(reasons, k.Reason)
		}
	}
	if len(reasons) > 0 {
		fmt.Fprintf(stderr, "simrun run: corpus %s: %s skipped (run with the same flags to replay them)\n", dir, strings.Join(reasons, "; "))
	}
}

// runPrinter prints results as they come, in seed order.
type runPrinter struct {
	w    io.Writer
	json bool
	mu   sync.Mutex
}

func (p *runPrinter) seed(res *campaign.Result) {
	if res.Internal == "" && len(res.Violations) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		b, _ := json.Marshal(res)
		fmt.Fprintf(p.w, "%s\n", b)
		return
	}
	res.Write(p.w, true)
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

func (p *progress) update(res *campaign.Result) {
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

// runFlagProblem is what is wrong with run's arguments, or "": each of
// these once made run go on with a default (10,000 seeds) instead, or
// silently dropped one of two flags that say how many seeds run.
func runFlagProblem(rest []string, set map[string]bool, duration time.Duration, sample float64, corpus string) string {
	switch {
	case len(rest) > 0:
		return fmt.Sprintf("unexpected argument %q (run takes flags only; to replay a corpus entry: simrun replay ENTRY)", strictjson.Printable(rest[0]))
	case set["seed"] && (set["seeds"] || set["start"] || set["duration"]):
		return "--seed runs one seed: give it alone, or --start with --seeds or --duration"
	case set["seeds"] && set["duration"]:
		return "--seeds and --duration both say how many seeds run: give one"
	case duration < 0:
		return fmt.Sprintf("--duration %v: must be positive", duration)
	case !(sample >= 0 && sample <= 1):
		return fmt.Sprintf("--determinism-sample %v: must be a share in [0,1]", sample)
	}
	if why := notAFolder(corpus); why != "" {
		return fmt.Sprintf("--corpus %s (the corpus is a folder of entries)", why)
	}
	return ""
}
