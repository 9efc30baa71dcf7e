package simrun

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/turnsim/turnsim/budget"
	"github.com/turnsim/turnsim/budget/report"
	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/judge"
)

const budgetUsage = `usage: simrun budget --policy FILE [--policy FILE…] [--env FILE] [--fail CODE[/STATUS]=P…]
                     [--outage [CODE[/STATUS]@]FROM+FOR…] [--runs N] [--seed S]
                     [--assert 'FIGURE<BOUND'…] [--json] [--html OUT.html]
                     [--trace OUT.jsonl [--turn N]] [--sut model|dsh|both] [--dsh-loop DIR]
                     [--listeners NAMES] [--blocked-after DURATION] [-j N]

Runs N turns (one request each, unless the environment's workload makes
steps) under each policy (a DSH RetryPolicyConfig; the
word "default" names DSH's default) against a fault environment, on the
same seeds for every policy, each turn checked by the oracle. Reports per
policy: turns completed, exhausted (error after retries), failed at once
(error without a retry), aborted, and why turns failed (by code and
reason); the exhaustion probability with its 95% Wilson interval; attempts
per turn; virtual time in recovery (p50, p90, p99, max, over the turns
that met a failure) beside the bounds that follow from the policy alone;
request amplification; oracle violations, with their reproduction.

An environment file: {"failures": [{"code": "SERVER", "status": 503, "p": 0.2}],
"outages": [{"fromMs": 0, "forMs": 20000, "code": "SERVER"}]}. --fail and
--outage add the common cases to it (or make one): --fail SERVER/503=0.2,
--outage 0+20000. Without any, no request fails.

With "horizonMs" the environment is one stretch of virtual time: turns
arrive over it ("arrivals": {"perMinute": 30}, or a "schedule" of rates),
incidents arrive and last as a process over it ("incidents": [{"perHour":
0.5, "forMs": {"uniform": [20000, 40000]}, "code": "SERVER", "status":
503}]), outages are times on it, and a turn meets whatever is happening
while its requests run. --runs is then refused (the turns are the
arrivals); the report adds each incident, failed turns per minute, the
exhaustion interval widened for turns an incident failed together, and
analytic cross-checks; --trace --turn N writes turn N's log.

Every duration an environment or --outage gives (latencies,
Retry-Afters, outages' and incidents' lengths; of a distribution, its
fixed value, its uniform's high end, or the longest draw of an
exponential: 36.7 times its mean, 73.5 for an incident's length, drawn as
two), and an outage's fromMs without a horizon, is at most
--max-duration-ms. A horizon is at most a year (366 days), a ceiling of
its own: --max-duration-ms bounds what each turn meets in its own world
from its arrival, not the stretch turns arrive over (an outage's fromMs
is then a time on it, under horizonMs). A workload's tool results are
each at most --max-result-chars, and a turn's together (toolSteps ×
resultChars) at most --max-total-result-chars.

--assert 'exhaustion<0.001' --assert 'p99_recovery_ms<20000' makes the
exit status 1 when a policy's report breaks a bound, so budgets can be
pinned in CI. Figures: exhaustion, exhaustion_hi (the interval's upper
end), exhausted_share and failed_at_once_share (its two parts),
p50/p90/p99/max_recovery_ms, amplification, violations, aborted.
--html draws the policies side by side with the bounds' verdicts.

Exit status: 0, 1 an invariant was violated or an --assert failed, 2 bad
usage or input (a --policy given twice included), 130 interrupted
(SIGINT or SIGTERM, also while a horizon's arrivals are drawn): the
report of the turns run is printed, marked interrupted, and no bound is
checked.

flags:
`

// repeated collects a flag given several times (--policy, --assert, …).
type repeated []string

func (p *repeated) String() string     { return strings.Join(*p, ",") }
func (p *repeated) Set(v string) error { *p = append(*p, v); return nil }

func runBudget(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("budget", stderr, budgetUsage)
	var policies repeated
	fs.Var(&policies, "policy", "a DSH RetryPolicyConfig JSON file, or \"default\" (repeat to compare)")
	envFile := fs.String("env", "", "the fault environment JSON file")
	var fails, outages repeated
	fs.Var(&fails, "fail", "add an independent failure CODE[/STATUS]=P to the environment, e.g. SERVER/503=0.2 (repeatable)")
	fs.Var(&outages, "outage", "add an outage [CODE[/STATUS]@]FROM+FOR in ms (default SERVER/503), e.g. 0+20000 (repeatable)")
	runs := fs.Int("runs", 10000, "turns per policy (not with a horizon: its turns are those that arrive)")
	workers := fs.Int("j", runtime.GOMAXPROCS(0), "policies run at once (the report is the same for any -j)")
	listenerNames := fs.String("listeners", "", "the listeners of this simrun's main measured beside llm-retry, comma-separated (default: all it registered)")
	blockedAfter := registerBlockedAfter(fs)
	seed := fs.String("seed", "1", "the first turn's seed; turn i uses seed+i under every policy (with a horizon, also the seed its arrivals and incidents are drawn from)")
	asJSON := fs.Bool("json", false, "print one JSON report per policy")
	htmlOut := fs.String("html", "", "also write a self-contained HTML page of the reports here")
	trace := fs.String("trace", "", "with one --policy and --runs 1 (or --turn N under a horizon): write that turn's v1 session log here")
	turn := fs.Int("turn", -1, "with --trace under an environment with a horizon: the turn, by its number in the run")
	var sut, dshLoop string
	registerSUT(fs, &sut, &dshLoop)
	var asserts repeated
	fs.Var(&asserts, "assert", "FIGURE<BOUND (or <=, >, >=) that every policy's report must keep, e.g. exhaustion<0.001 (repeatable)")
	rest, err := parseInterspersed(fs, args)
	if err == errHelp {
		return exitClean
	} else if err != nil {
		return exitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "simrun budget: "+format+"\n", a...)
		return exitUsage
	}
	if len(rest) > 0 {
		return fail("unexpected argument %q", rest[0])
	}
	if len(policies) == 0 {
		return fail("give at least one --policy FILE (or --policy default)")
	}
	// A policy given twice was measured twice, under one name: two
	// reports nothing told apart.
	for i, name := range policies {
		if j := slices.IndexFunc(policies[:i], func(p string) bool { return samePolicy(p, name) }); j >= 0 {
			again := ""
			if policies[j] != name {
				again = fmt.Sprintf(" (as %s before)", strictjson.Printable(policies[j]))
			}
			return fail("--policy %s is given twice%s: each policy is measured once, its report named by it", strictjson.Printable(name), again)
		}
	}
	var inputs []string
	for _, p := range policies {
		if p != "default" {
			inputs = append(inputs, p)
		}
	}
	if *envFile != "" {
		inputs = append(inputs, *envFile)
	}
	if err := checkOutputs(inputs, output{"--html", *htmlOut}, output{"--trace", *trace}); err != nil {
		return fail("%v", err)
	}
	if *runs < 1 {
		return fail("--runs must be at least 1")
	}
	if err := checkJobs(*workers); err != nil {
		return fail("%v", err)
	}
	runsSet := false
	fs.Visit(func(f *flag.Flag) { runsSet = runsSet || f.Name == "runs" })
	first, err := parseSeed(*seed)
	if err != nil {
		return fail("--seed: %v", err)
	}
	env := &budget.Environment{}
	if *envFile != "" {
		if env, err = budget.LoadEnvironment(*envFile); err != nil {
			return fail("%v", err)
		}
	}
	for _, f := range fails {
		parsed, err := budget.ParseFailFlag(f)
		if err != nil {
			return fail("--fail %v", err)
		}
		env.Failures = append(env.Failures, parsed)
	}
	for _, o := range outages {
		parsed, err := budget.ParseOutageFlag(o)
		if err != nil {
			return fail("--outage %v", err)
		}
		env.Outages = append(env.Outages, parsed)
	}
	if len(fails)+len(outages) > 0 {
		// The file was checked as it was read; what the flags add is
		// checked with it: an --outage's time against the horizon, and
		// every figure against the limits.
		if err := env.Validate(); err != nil {
			return fail("the environment with --fail and --outage: %v", err)
		}
	}
	if env.Timed() && runsSet {
		return fail("--runs: the environment has a horizon (horizonMs): its turns are those that arrive over it")
	}
	if err := campaign.SeedRange(first, uint64(*runs)); err != nil && !env.Timed() {
		return fail("--seed %s --runs %d: turn i runs on seed+i: %v", *seed, *runs, err)
	}
	for _, field := range env.UnusualCodes() {
		fmt.Fprintf(stderr, "simrun budget: warning: the environment's %s is not a code DSH's adapter derives (%s): DSH matches codes as written, so only a policy listing it exactly retries it — a typo?\n",
			field, strings.Join(budget.ProviderCodes(), ", "))
	}
	var checks []budget.Bound
	for _, a := range asserts {
		c, err := budget.ParseBound(a)
		if err != nil {
			return fail("--assert %v", err)
		}
		checks = append(checks, c)
	}
	// A main's own listeners: a reproduction line names them, so that a
	// simrun without them refuses it rather than measuring another turn.
	chosen := &seedFlags{listeners: *listenerNames}
	mine, err := chosen.plugged()
	if err != nil {
		return fail("%v", err)
	}
	mineNames := chosen.pluggedNames()
	if sut != "" && sut != "model" && len(mine) > 0 {
		return fail("--sut %s: a listener of one's own is Go code, which runs in the model only (--listeners)", sut)
	}
	system, pool, err := openSUT(sut, dshLoop, *workers)
	if err != nil {
		return fail("%v", err)
	}
	if pool != nil {
		defer pool.Close()
	}
	var resolved []budget.Config
	for _, name := range policies {
		c, err := budget.LoadPolicy(name)
		if err != nil {
			return fail("%v", err)
		}
		c.Env = env
		c.Listeners = mine // a main's own listeners, beside llm-retry
		c.BlockedAfter = *blockedAfter
		c.System = system
		// What a file cannot say but the run needs: a bundle's listener
		// order naming a listener this simrun has not got.
		if err := c.Validate(); err != nil {
			return fail("%s: %v", name, err)
		}
		for _, code := range budget.UnheardCodes(c.RetryPolicy, env) {
			fmt.Fprintf(stderr, "simrun budget: warning: %s: retryableCodes lists %s, which no provider sends and no failure of the environment has (its codes: %s): its retries are never measured — a typo?\n",
				name, strictjson.Printable(strconv.Quote(code)), strings.Join(env.Codes(), ", "))
		}
		resolved = append(resolved, c)
	}
	if *trace != "" {
		switch {
		case env.Timed() && (len(resolved) != 1 || *turn < 0):
			return fail("--trace writes one turn's log: give one --policy and the turn, --turn N (the environment has a horizon)")
		case env.Timed() && (*asJSON || *htmlOut != "" || len(checks) > 0):
			// The report is the whole horizon's: a trace is one turn of it.
			return fail("--trace --turn writes one turn's log and no report: run without --json, --html and --assert")
		case env.Timed():
			vs, err := resolved[0].TraceTurn(first, *turn, *trace)
			if err != nil {
				return fail("--trace: %v", err)
			}
			fmt.Fprintf(stdout, "turn %d of the horizon from seed %#x: its log is in %s (simrun check --view %s)\n", *turn, first, *trace, *trace)
			// The run's own verdict: a listener's count of retries is a
			// fact of the run that the log alone does not show.
			for _, v := range vs {
				fmt.Fprintf(stdout, "  %s: %s\n", v.Invariant, v.Message)
			}
			if len(vs) > 0 {
				return exitViolation
			}
			fmt.Fprintf(stdout, "  no violation\n")
			return exitClean
		case *turn >= 0:
			return fail("--turn numbers the turns of a horizon; without one, --seed S --runs 1 is turn S")
		case len(resolved) != 1 || *runs != 1:
			return fail("--trace writes one turn's log: give one --policy and --runs 1")
		}
		if err := resolved[0].Trace(first, *trace); err != nil {
			return fail("--trace: %v", err)
		}
	} else if *turn >= 0 {
		return fail("--turn names the turn --trace writes: give --trace FILE")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tuneGCForBudget()
	status := exitClean
	var named []report.Named
	done := runSideBySide(ctx, resolved, first, *runs, *workers)
	for i, c := range resolved {
		rp := <-done[i]
		if rp == nil {
			break
		}
		var blocked *budget.BlockedError
		blockedStatus := -1
		if errors.As(rp.err, &blocked) { // a listener of one's own
			// Its report, of the turns before the block, is printed
			// below, and the run stops there (it printed none, and under
			// a signal nothing at all).
			fmt.Fprintf(stderr, "simrun budget: policy %s: %v\n", strictjson.Printable(policies[i]), rp.err)
			blockedStatus = exitViolation
			if ctx.Err() != nil {
				blockedStatus = exitInterrupted // a signal came while it blocked: not a finished run
			}
			rp.err = nil
		}
		var refused *budget.RefusedError
		if errors.As(rp.err, &refused) { // the environment asks what --sut cannot enact
			return fail("--sut %s: policy %s: %v", sut, strictjson.Printable(policies[i]), rp.err)
		}
		if rp.err != nil { // validated above: turnsim's own fault
			fmt.Fprintf(stderr, "simrun budget: internal error: policy %s: %v\n", policies[i], rp.err)
			return exitInternal
		}
		r := rp.Report
		if env.Timed() && r.Turns == 0 && !r.Interrupted {
			return fail("no turn arrived over the horizon from seed %#x (%s): nothing to measure; give a longer horizonMs or more arrivals", first, report.Span(env.HorizonMs))
		}
		named = append(named, report.Named{Policy: policies[i], Report: r, Config: c})
		if len(r.Violations) > 0 {
			status = exitViolation
		}
		if *asJSON {
			out := budgetJSON(policies[i], r)
			if len(checks) > 0 && !r.Interrupted {
				// The verdicts a CI job reads, named as --assert names them.
				asserts := []map[string]any{}
				for _, c := range checks {
					ok, v := c.Holds(r)
					asserts = append(asserts, map[string]any{"bound": c.String(), "figure": c.Figure, "value": v, "holds": ok})
				}
				out["asserts"] = asserts
			}
			b, _ := json.Marshal(out)
			fmt.Fprintf(stdout, "%s\n", b)
		} else {
			reproduce := func(t budget.Turn) string {
				line := fmt.Sprintf("simrun budget --policy %s", policies[i])
				if *envFile != "" {
					line += " --env " + *envFile
				}
				for _, f := range fails {
					line += " --fail " + f
				}
				for _, o := range outages {
					line += " --outage " + o
				}
				if len(mineNames) > 0 {
					line += " --listeners " + strings.Join(mineNames, ",")
				}
				if env.Timed() {
					return line + fmt.Sprintf(" --seed %#x --turn %d --trace turn.jsonl && simrun check --view turn.jsonl", first, t.Index)
				}
				return line + fmt.Sprintf(" --seed %#x --runs 1 --trace turn.jsonl && simrun check --view turn.jsonl", t.Seed)
			}
			printBudget(stdout, policies[i], r, reproduce)
		}
		if blockedStatus >= 0 {
			fmt.Fprintf(stderr, "simrun budget: stopped at the block after %d turns of policy %s; no --assert checked, no --html written\n", r.Turns, policies[i])
			return blockedStatus
		}
		if r.Interrupted {
			// A partial report holds up no bound, and says so.
			of := fmt.Sprint(*runs)
			if env.Timed() {
				of = "the horizon's"
			}
			fmt.Fprintf(stderr, "simrun budget: interrupted after %d of %s turns of policy %s; no --assert checked, no --html written\n", r.Turns, of, policies[i])
			return exitInterrupted
		}
		for _, c := range checks {
			ok, v := c.Holds(r)
			verdict := "holds"
			if !ok {
				verdict, status = "FAILS", exitViolation
			}
			fmt.Fprintf(stderr, "assert %s %s for policy %s: %s = %.6g\n", c, verdict, policies[i], c.Figure, v)
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "simrun budget: interrupted after %d of %d policies; no --html written\n", len(named), len(resolved))
		return exitInterrupted
	}
	if *htmlOut != "" {
		if err := writeAtomically(*htmlOut, func(w io.Writer) error {
			return report.WritePage(w, report.Page{Reports: named, Env: env, Bounds: checks, Seed: &first})
		}); err != nil {
			return fail("--html: %v", err)
		}
	}
	return status
}

// runSideBySide runs the policies up to workers at once and gives each
// one's report on its channel, in the order given: each report is its own
// turns' alone, so the bytes printed are the same for any -j. Policies
// start in that order too, so that an interrupt finds the first ones
// begun (their partial report is printed) and only later ones not (nil).
func runSideBySide(ctx context.Context, configs []budget.Config, first uint64, runs, workers int) []chan *sideReport {
	done := make([]chan *sideReport, len(configs))
	for i := range done {
		done[i] = make(chan *sideReport, 1)
	}
	slots := make(chan struct{}, max(workers, 1))
	go func() {
		for i, c := range configs {
			slots <- struct{}{}
			if ctx.Err() != nil {
				for _, d := range done[i:] {
					d <- nil // interrupted before it began
				}
				return
			}
			go func() {
				defer func() { <-slots }()
				r, err := c.Run(ctx, first, runs)
				done[i] <- &sideReport{r, err}
			}()
		}
	}()
	return done
}

// sideReport is one policy's report, or why it could not run.
type sideReport struct {
	budget.Report
	err error
}

// samePolicy says two --policy arguments name one policy: the same word
// or the same file, however its path is spelled.
func samePolicy(a, b string) bool {
	if a == "default" || b == "default" {
		return a == b
	}
	return samePath(a, b)
}

func printBudget(w io.Writer, name string, r budget.Report, reproduce func(budget.Turn) string) {
	// What the report quotes from its inputs — the policy's file name, a
	// failure's code, an oracle message — goes through the one escaper.
	fmt.Fprintf(w, "policy %s\n", strictjson.Printable(name))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if r.Interrupted {
		fmt.Fprintf(tw, "  turns\t%d (interrupted: every figure is over these)\n", r.Turns)
	} else if r.Timeline != nil {
		fmt.Fprintf(tw, "  turns\t%d, arrived over %s of virtual time\n", r.Turns, report.Span(r.Timeline.HorizonMs))
	} else {
		fmt.Fprintf(tw, "  turns\t%d\n", r.Turns)
	}
	fmt.Fprintf(tw, "  completed\t%d\n", r.Completed)
	fmt.Fprintf(tw, "  exhausted (error after retries)\t%d\n", r.Exhausted)
	fmt.Fprintf(tw, "  failed at once (error, no retry)\t%d\n", r.FailedAtOnce)
	fmt.Fprintf(tw, "  aborted\t%d\n", r.Aborted)
	for i, f := range r.Failures {
		label := ""
		if i == 0 {
			label = "  why turns failed"
		}
		code := f.Code
		if code == "" {
			code = "-"
		}
		fmt.Fprintf(tw, "%s\t%d × %s: %s\n", label, f.Turns, strictjson.Printable(code), f.Why)
	}
	if tl := r.Timeline; tl != nil && tl.DesignEffect >= 1.01 {
		fmt.Fprintf(tw, "  exhaustion\t%.6g  (95%% CI %.6g … %.6g, widened %.3g× for turns an incident failed together)\n",
			r.Exhaustion, tiny(r.ExhaustionLo), r.ExhaustionHi, math.Sqrt(tl.DesignEffect))
	} else {
		fmt.Fprintf(tw, "  exhaustion\t%.6g  (95%% CI %.6g … %.6g)\n", r.Exhaustion, tiny(r.ExhaustionLo), r.ExhaustionHi)
	}
	fmt.Fprintf(tw, "  recovery ms (turns with a failure)\tp50 %s  p90 %s  p99 %s  max %s\n", num(r.RecoveryP50), num(r.RecoveryP90), num(r.RecoveryP99), num(r.RecoveryMax))
	fmt.Fprintf(tw, "  waits of an exhausted step, from the policy, ms\t%s … %s\n", num(r.BoundLo), num(r.BoundHi))
	fmt.Fprintf(tw, "  amplification\t%.4g × the fault-free world's requests\n", r.Amplification)
	var hist []string
	shown := 0
	for n, c := range r.Attempts {
		if c == 0 {
			continue
		}
		if shown++; shown > attemptsShown {
			hist = append(hist, fmt.Sprintf("… and %d turns with %d to %d", turnsOver(r.Attempts, n), n, len(r.Attempts)-1))
			break
		}
		hist = append(hist, fmt.Sprintf("%d×%d", n, c))
	}
	fmt.Fprintf(tw, "  attempts per turn\t%s\n", strings.Join(hist, "  "))
	fmt.Fprintf(tw, "  violations\t%d\n", len(r.Violations))
	if r.Timeline != nil {
		printTimeline(tw, r.Timeline)
	}
	tw.Flush()
	for _, t := range r.Violations {
		v := judge.Principal(t.Violations)
		name := fmt.Sprintf("seed %#x", t.Seed)
		if r.Timeline != nil {
			name = fmt.Sprintf("turn %d (seed %#x)", t.Index, t.Seed)
		}
		fmt.Fprintf(w, "  %s: %s: %s\n", name, v.Invariant, strictjson.Printable(v.Message))
		for _, other := range t.Violations {
			if other.Invariant != v.Invariant || other.Message != v.Message {
				fmt.Fprintf(w, "    and %s: %s\n", other.Invariant, strictjson.Printable(other.Message))
			}
		}
		fmt.Fprintf(w, "    reproduce: %s\n", strictjson.Printable(reproduce(t)))
	}
}

// attemptsShown is how many counts of attempts a turn the text prints
// before it sums up the tail (an always-mode policy riding a long outage
// makes thousands of different counts).
const attemptsShown = 16

// turnsOver counts the turns with n attempts or more.
func turnsOver(attempts []int, n int) int {
	sum := 0
	for _, c := range attempts[n:] {
		sum += c
	}
	return sum
}

// tiny prints a figure that is zero but for floating-point rounding
// (Wilson's lower end at k = 0) as 0.
func tiny(v float64) float64 {
	if math.Abs(v) < 1e-12 {
		return 0
	}
	return v
}

func num(ms float64) string {
	if math.IsInf(ms, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.1f", ms)
}

func budgetJSON(name string, r budget.Report) map[string]any {
	hi := any(r.BoundHi)
	if math.IsInf(r.BoundHi, 1) {
		hi = nil // unbounded (always mode)
	}
	violations := []map[string]any{} // [] when none, as the text says 0
	failures := r.Failures
	if failures == nil {
		failures = []budget.FailureRow{}
	}
	for _, t := range r.Violations {
		v := map[string]any{"seed": fmt.Sprintf("%#x", t.Seed), "violations": t.Violations}
		if r.Timeline != nil {
			v["turn"] = t.Index // a horizon's turn is reproduced by its number (--turn), not its seed
		}
		violations = append(violations, v)
	}
	out := map[string]any{"policy": name, "turns": r.Turns, "completed": r.Completed, "exhausted": r.Exhausted,
		"failedAtOnce": r.FailedAtOnce, "aborted": r.Aborted, "exhaustion": r.Exhaustion,
		"exhaustionCI95": []float64{r.ExhaustionLo, r.ExhaustionHi}, "attempts": r.Attempts,
		"recoveryMs": map[string]float64{"p50": r.RecoveryP50, "p90": r.RecoveryP90, "p99": r.RecoveryP99, "max": r.RecoveryMax},
		"boundsMs":   []any{r.BoundLo, hi}, "amplification": r.Amplification, "violations": violations, "failures": failures,
		"interrupted": r.Interrupted}
	if r.Timeline != nil { // a per-turn environment's report is as it was
		out["timeline"] = r.Timeline
		out["failedTurns"] = append([]int{}, r.FailedTurns...)
	}
	return out
}
