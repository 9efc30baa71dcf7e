package simtest

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/sim"
)

// withoutSimEnv clears the SIM_* a CI job may set for its own campaign:
// these tests are about check's defaults and set what they need. (Not
// parallel: it changes the process's environment and flags.)
func withoutSimEnv(t *testing.T) {
	for _, k := range []string{"SIM_SEED", "SIM_RUNS", "SIM_DURATION", "SIM_MUTANT", "SIM_TIMELINE"} {
		t.Setenv(k, "")
	}
	// And the -sim.* flags given to this test binary, which are for
	// TestSeeds.
	seed, runs, duration, mutant, timeline := *flagSeed, *flagRuns, *flagDuration, *flagMutant, *flagTimeline
	*flagSeed, *flagRuns, *flagDuration, *flagMutant, *flagTimeline = "", 0, 0, "", false
	t.Cleanup(func() {
		*flagSeed, *flagRuns, *flagDuration, *flagMutant, *flagTimeline = seed, runs, duration, mutant, timeline
	})
}

// otherSystem is a system under test besides the model, for the
// refusals of simtest.System (it runs nothing).
type otherSystem struct{}

func (otherSystem) Name() string { return "other" }
func (otherSystem) Run(*sim.Scenario, sim.Options) *sim.Result {
	return &sim.Result{System: "other", Refused: "runs nothing"}
}

// recorder is a test seen from check: what it reported.
type recorder struct {
	name   string
	errors []string
	logs   []string
	fatal  string
}

func (r *recorder) Helper()           {}
func (r *recorder) Name() string      { return r.name }
func (r *recorder) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// retryServer is the worked example of docs/own-listener.md: SERVER retried twice per
// step, 100 ms apart; with ignoreCancel its wait is on a context of its
// own (the bug), else on the turn signal (the fix).
func retryServer(ignoreCancel bool) sim.Listener {
	return sim.Listener{Name: "retry-server", MaxRetries: 2, Codes: []string{"SERVER"}, New: func(env sim.Env) loop.RequestErrorListener {
		retries := map[[2]int]int{}
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			step := [2]int{ev.Turn, ev.Step}
			if ev.Failure.Code != "SERVER" || retries[step] >= 2 {
				return next()
			}
			retries[step]++
			signal := context.Context(ev.Signal)
			if ignoreCancel {
				signal = context.Background()
			}
			if err := env.Clock.Sleep(signal, 100*time.Millisecond); err != nil {
				return loop.NoAction, nil
			}
			return loop.Retry, nil
		}
	}}
}

// TestCheckReportsOneShrunkFailure: the buggy listener fails within 200
// seeds with one report — the first failing seed, its shrunk plan, the
// go test and simrun lines that reproduce it, its corpus entry (written,
// 0644) — and a count of the others; the next run replays that entry
// first and fails on it; the fixed listener passes, entry and all.
func TestCheckReportsOneShrunkFailure(t *testing.T) {
	withoutSimEnv(t)
	corpus := filepath.Join(t.TempDir(), "turnsim")
	r := &recorder{name: "TestRetryServer"}
	check(r, Listeners(retryServer(true)), Runs(200), Corpus(corpus))
	if r.fatal != "" || len(r.errors) != 1 {
		t.Fatalf("fatal %q, %d errors: %q", r.fatal, len(r.errors), r.errors)
	}
	report := r.errors[0]
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`^seed (0x[0-9a-f]+): cancel-takes-effect-at-once turn \d+ step \d+ seqs \d+,\d+: turn \d+ ended [0-9.]+ ms after the cancel`),
		regexp.MustCompile(`(?m)^  shrunk plan \(\d+ lines, \d+ shrink runs\):\n    listeners: .*retry-server.*\n(    .+\n)+`),
		regexp.MustCompile(`(?m)^  the shrunk plan gives: cancel-takes-effect-at-once `),
		regexp.MustCompile(`(?m)^  reproduce: go test \./simtest -run '\^TestRetryServer\$' -sim\.seed=0x[0-9a-f]+$`),
		regexp.MustCompile(`(?m)^             simrun replay \S+cancel-takes-effect-at-once-[0-9a-f]{12}\.json \(with retry-server registered`),
		regexp.MustCompile(`(?m)^  corpus: \S+\.json$`),
		regexp.MustCompile(`(?m)^(and \d+ more of 200 seeds failed: 0x|the only failing seed of 200)`),
	} {
		if !want.MatchString(report) {
			t.Errorf("the report has no match for %s:\n%s", want, report)
		}
	}
	entries, _ := filepath.Glob(filepath.Join(corpus, "*.json"))
	if len(entries) != 1 {
		t.Fatalf("%d corpus entries, want the one failure's: %v", len(entries), entries)
	}
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	if info, err := os.Stat(entries[0]); err != nil || info.Mode().Perm() != 0o666&^os.FileMode(umask) {
		t.Errorf("the entry's mode: %v, %v; want 0666 less the umask (os.CreateTemp's 0600 once made entries unreadable to other users)", info.Mode(), err)
	}

	again := &recorder{name: "TestRetryServer"}
	check(again, Listeners(retryServer(true)), Runs(200), Corpus(corpus))
	if len(again.errors) != 1 || !strings.Contains(again.errors[0], filepath.Base(entries[0])+" (seed 0x") || !strings.Contains(again.errors[0], "fails again") {
		t.Errorf("the second run does not fail on the corpus entry first: %q", again.errors)
	}

	fixed := &recorder{name: "TestRetryServer"}
	check(fixed, Listeners(retryServer(false)), Runs(200), Corpus(corpus))
	if len(fixed.errors) != 0 || fixed.fatal != "" {
		t.Errorf("the fixed listener fails: %q %q", fixed.errors, fixed.fatal)
	}
}

// TestCheckRefusesBadSettings: a bad listener, flag value or mutant is a
// fatal error that names it, before any seed runs.
func TestCheckRefusesBadSettings(t *testing.T) {
	withoutSimEnv(t)
	tests := []struct {
		why  string
		opts []Option
		env  map[string]string
		want string
	}{
		{"a listener without a name", []Option{Listeners(sim.Listener{New: retryServer(false).New})}, nil, "listener 1 has no name"},
		{"two listeners of one name", []Option{Listeners(retryServer(false), retryServer(true))}, nil, `two listeners are named "retry-server"`},
		{"a listener placed nowhere", []Option{Listeners(sim.Listener{Name: "x", New: retryServer(false).New, Place: 42})}, nil, `listener "x": Place 42`},
		{"a name a listenerOrder cannot spell", []Option{Listeners(sim.Listener{Name: "has space", New: retryServer(false).New})}, nil, `listener "has space": a name is letters`},
		{"the name of a test listener", []Option{Listeners(sim.Listener{Name: "throw", New: retryServer(false).New})}, nil, `listener "throw": the name of one of turnsim's test listeners`},
		{"a fault kind that does not exist", []Option{Faults("no-such-kind")}, nil, `simtest.Faults: unknown fault kind "no-such-kind"`},
		{"a negative count", []Option{Runs(-1)}, nil, `simtest.Runs(-1): want a positive count`},
		{"a count of none, which once ran the default 1,000", []Option{Runs(0)}, nil, `simtest.Runs(0): want a positive count`},
		{"Faults of no kind, which once meant every kind", []Option{Faults()}, nil, `simtest.Faults: no kind given`},
		{"a mutant on another system, which is Go code of the model", []Option{System(otherSystem{}), Mutant("retry-auth")}, nil, `simtest.Mutant "retry-auth" with simtest.System(other)`},
		{"a listener of one's own on another system", []Option{System(otherSystem{}), Listeners(retryServer(false))}, nil, `simtest.System(other) with simtest.Listeners`},
		{"Faults of an empty name, which once meant every kind", []Option{Faults("")}, nil, `simtest.Faults: "" names no kind`},
		{"Faults with an empty name among kinds", []Option{Faults("server", "")}, nil, `simtest.Faults: "server," names no kind`},
		{"a listener's budget no run can put to the test (a million ran out of memory)", []Option{Listeners(sim.Listener{Name: "x", New: retryServer(false).New, MaxRetries: 1_000_000})}, nil,
			`listener "x": MaxRetries 1000000 is more than a run can put to the test (at most 10000 a step`},
		{"a policy's NaN delay, which once ran as a sut-panic", []Option{Policy(&loop.RetryPolicy{Mode: loop.ModeNormal, MaxRetries: 2, RetryableCodes: []string{"SERVER"}, InitialDelayMs: math.NaN(), MaxDelayMs: 1000})}, nil,
			`simtest.Policy: backoff.initialDelayMs: must be a finite number, got NaN`},
		{"a policy's budget past a safe integer, which once was an internal error", []Option{Policy(&loop.RetryPolicy{Mode: loop.ModeNormal, MaxRetries: math.MaxInt, RetryableCodes: []string{"SERVER"}, InitialDelayMs: 100, MaxDelayMs: 1000})}, nil,
			`simtest.Policy: maxRetries: must be a non-negative safe integer`},
		{"a policy of neither mode", []Option{Policy(&loop.RetryPolicy{Mode: "bogus", InitialDelayMs: 100, MaxDelayMs: 1000})}, nil, `simtest.Policy: mode: must be "normal" or "always"`},
		{"a jitter ratio of 7", []Option{Policy(&loop.RetryPolicy{Mode: loop.ModeNormal, MaxRetries: 2, RetryableCodes: []string{"SERVER"}, InitialDelayMs: 100, MaxDelayMs: 1000, JitterRatio: 7})}, nil,
			`simtest.Policy: backoff.jitterRatio: must be in [0,1]`},
		{"a negative budget, which once passed silently", []Option{Policy(&loop.RetryPolicy{Mode: loop.ModeNormal, MaxRetries: -1, RetryableCodes: []string{"SERVER"}, InitialDelayMs: 100, MaxDelayMs: 1000})}, nil,
			`simtest.Policy: maxRetries: must be a non-negative safe integer, got -1`},
		{"seeds past 2^64−1, which would wrap to 0", []Option{From(math.MaxUint64 - 5), Runs(10)}, nil, `run past the last seed`},
		{"a seed in Go's 0o form", nil, map[string]string{"SIM_SEED": "0o17"}, `SIM_SEED: seed "0o17" is not an unsigned integer (decimal or 0x…)`},
		{"a seed with Go's digit separators", nil, map[string]string{"SIM_SEED": "1_000"}, `SIM_SEED: seed "1_000" is not an unsigned integer`},
		{"a seed that is no number, named by the variable it came from", nil, map[string]string{"SIM_SEED": "twelve"}, `SIM_SEED: seed "twelve"`},
		{"a count that is no count", nil, map[string]string{"SIM_RUNS": "-3"}, `SIM_RUNS "-3"`},
		{"one seed beside a count, of which the seed once won without a word", nil, map[string]string{"SIM_SEED": "5", "SIM_RUNS": "10"}, `SIM_SEED runs one seed; SIM_RUNS "10" says how many run: give one of them`},
		{"a duration that is none", nil, map[string]string{"SIM_DURATION": "soon"}, `SIM_DURATION "soon"`},
		{"a mutant the zoo does not have", nil, map[string]string{"SIM_MUTANT": "nope"}, `SIM_MUTANT "nope": no such mutant`},
		{"a plug-in under the name llm-retry registers, which the facts know as the built-in", []Option{Listeners(sim.Listener{Name: "llm-retry", New: retryServer(false).New})}, nil, `listener "llm-retry": the name the built-in retry registers on the agent`},
		{"a replacement of a built-in with a budget of its own", []Option{Listeners(sim.Listener{Name: "retry", MaxRetries: 2, New: retryServer(false).New})}, nil, `listener "retry" replaces the built-in, in its place and with its budget`},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			r := &recorder{name: "TestX"}
			check(r, append(tt.opts, Corpus(t.TempDir()))...)
			if !strings.Contains(r.fatal, tt.want) {
				t.Errorf("fatal %q, want it to say %q", r.fatal, tt.want)
			}
		})
	}
}

// TestCheckAgainstAMutant: -sim.mutant (here its environment twin) runs
// the campaign against a mutant of the zoo, which it must catch; the
// reproduction line carries it, and the caller's corpus gets no entry of
// turnsim's own planted bug.
func TestCheckAgainstAMutant(t *testing.T) {
	withoutSimEnv(t)
	t.Setenv("SIM_MUTANT", "budget-off-by-one")
	corpus := t.TempDir()
	r := &recorder{name: "TestSeeds"}
	check(r, Runs(300), Corpus(corpus))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "-sim.mutant=budget-off-by-one") {
		t.Errorf("errors %q", r.errors)
	}
	if entries, _ := os.ReadDir(corpus); len(entries) != 0 {
		t.Errorf("a mutant's failure was written to the caller's corpus: %v", entries)
	}
}

// TestTimelineOfAFailure: a failure's report says how to see the shrunk
// plan's timeline, and with SIM_TIMELINE=1 (or -sim.timeline) it holds
// it, one line an event, up to the retry the mutant let through.
func TestTimelineOfAFailure(t *testing.T) {
	withoutSimEnv(t)
	t.Setenv("SIM_MUTANT", "budget-off-by-one")
	without := &recorder{name: "TestSeeds"}
	check(without, Runs(300), Corpus(t.TempDir()))
	if len(without.errors) != 1 || !strings.Contains(without.errors[0], "(-sim.timeline, or SIM_TIMELINE=1, prints the shrunk plan's timeline here)") ||
		strings.Contains(without.errors[0], "timeline of the shrunk plan") {
		t.Errorf("without SIM_TIMELINE, errors %q", without.errors)
	}
	t.Setenv("SIM_TIMELINE", "1")
	with := &recorder{name: "TestSeeds"}
	check(with, Runs(300), Corpus(t.TempDir()))
	if len(with.errors) != 1 {
		t.Fatalf("errors %q", with.errors)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^timeline of the shrunk plan:$`),
		regexp.MustCompile(`(?m)^ +0  t1 +1 turn/start$`),
		regexp.MustCompile(`(?m)^ +0  t1 s1 +\d+ llm/retry +retry 1/0 `),
		regexp.MustCompile(`(?m)^ +\d+  t1 +\d+ turn/end `),
	} {
		if !want.MatchString(with.errors[0]) {
			t.Errorf("the report has no match for %s:\n%s", want, with.errors[0])
		}
	}
}

// TestTimelineOfAnEntryThatFailsAgain: the rerun the hint leads to fails
// on the corpus entry first, and SIM_TIMELINE prints the entry's timeline
// there too (it once printed nothing on that path).
func TestTimelineOfAnEntryThatFailsAgain(t *testing.T) {
	withoutSimEnv(t)
	corpus := filepath.Join(t.TempDir(), "turnsim")
	first := &recorder{name: "TestRetryServer"}
	check(first, Listeners(retryServer(true)), Runs(200), Corpus(corpus))
	if len(first.errors) != 1 {
		t.Fatalf("the first run did not fail once: %q", first.errors)
	}
	again := &recorder{name: "TestRetryServer"}
	check(again, Listeners(retryServer(true)), Runs(200), Corpus(corpus))
	if len(again.errors) != 1 || !strings.Contains(again.errors[0], "(-sim.timeline, or SIM_TIMELINE=1, prints the entry's timeline here)") {
		t.Errorf("without SIM_TIMELINE: %q", again.errors)
	}
	t.Setenv("SIM_TIMELINE", "1")
	with := &recorder{name: "TestRetryServer"}
	check(with, Listeners(retryServer(true)), Runs(200), Corpus(corpus))
	if len(with.errors) != 1 || !regexp.MustCompile(`(?m)^timeline of the entry:\n(.*\n)* +0  t1 +1 turn/start$`).MatchString(with.errors[0]) {
		t.Errorf("with SIM_TIMELINE=1: %q", with.errors)
	}
}

// TestSkippedEntriesSayWhy: under a mutant, the corpus's regression
// entries of the correct loop are skipped, and the log says so (it once
// called them "of mutants other than this run's").
func TestSkippedEntriesSayWhy(t *testing.T) {
	withoutSimEnv(t)
	corpus := filepath.Join(t.TempDir(), "turnsim")
	failing := &recorder{name: "TestRetryServer"}
	check(failing, Listeners(retryServer(true)), Runs(200), Corpus(corpus))
	if len(failing.errors) != 1 {
		t.Fatalf("the listener's campaign did not fail once: %q", failing.errors)
	}
	t.Setenv("SIM_MUTANT", "budget-off-by-one")
	r := &recorder{name: "TestRetryServer"}
	check(r, Listeners(retryServer(false)), Runs(50), Corpus(corpus))
	want := "none replayed first; skipped 1: regressions of the correct loop, not replayed against mutant budget-off-by-one"
	if !slices.ContainsFunc(r.logs, func(l string) bool { return strings.Contains(l, want) }) {
		t.Errorf("no log says %q: %q", want, r.logs)
	}
}

// TestOneSeedSkipsTheCorpus: -sim.seed (here SIM_SEED) runs that seed
// alone, without the corpus before it: the reproduction line of a failure
// reproduces the seed, not the entry kept of it.
func TestOneSeedSkipsTheCorpus(t *testing.T) {
	withoutSimEnv(t)
	corpus := filepath.Join(t.TempDir(), "turnsim")
	first := &recorder{name: "TestRetryServer"}
	check(first, Listeners(retryServer(true)), Runs(200), Corpus(corpus))
	seed := regexp.MustCompile(`^seed (0x[0-9a-f]+)`).FindStringSubmatch(strings.Join(first.errors, ""))
	if seed == nil {
		t.Fatalf("no failing seed: %q", first.errors)
	}
	t.Setenv("SIM_SEED", seed[1])
	again := &recorder{name: "TestRetryServer"}
	check(again, Listeners(retryServer(true)), Corpus(corpus))
	if len(again.errors) != 1 || !strings.HasPrefix(again.errors[0], "seed "+seed[1]+":") || !strings.Contains(again.errors[0], "the only failing seed of 1") {
		t.Errorf("SIM_SEED=%s: %q", seed[1], again.errors)
	}
}

// TestUnexercisedListenerFails: a listener with a budget that never
// answers retry (its code is a typo no provider fails with) is not
// tested by a green campaign, and Check says so instead of passing.
func TestUnexercisedListenerFails(t *testing.T) {
	withoutSimEnv(t)
	typo := sim.Listener{Name: "retry-rate-limit", MaxRetries: 3, New: func(sim.Env) loop.RequestErrorListener {
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			if ev.Failure.Code == "RATE_LIMITED" { // the typo: RATE_LIMIT
				return loop.Retry, nil
			}
			return next()
		}
	}}
	r := &recorder{name: "TestTypo"}
	check(r, Listeners(typo), Runs(200), Corpus(t.TempDir()))
	if len(r.errors) != 1 || !regexp.MustCompile(`^campaign: retry-rate-limit was asked \d+ times in 200 seeds and never answered retry, though its MaxRetries is 3`).MatchString(r.errors[0]) {
		t.Errorf("errors %q", r.errors)
	}
}

// TestADurationRunsASeedAtLeast: a duration over before the first seed
// still runs it (no seed once ran, and a campaign that checked nothing
// passed), and says how many ran.
func TestADurationRunsASeedAtLeast(t *testing.T) {
	withoutSimEnv(t)
	t.Setenv("SIM_DURATION", "1ns")
	r := &recorder{name: "TestX"}
	check(r, Corpus(t.TempDir()))
	if len(r.errors) != 0 || len(r.logs) != 1 || !regexp.MustCompile(`^campaign: \d+ seeds? from 0x1, \d+ events, no violation$`).MatchString(r.logs[0]) {
		t.Errorf("errors %q, logs %q", r.errors, r.logs)
	}
	sum := campaign.Run(context.Background(), campaign.Config{First: 1, Duration: time.Nanosecond}, func(*campaign.Result) {})
	if sum.Runs < 1 {
		t.Errorf("Run with a duration of 1ns ran %d seeds, want at least 1", sum.Runs)
	}
}

// TestSeedsNeverWrap: a count past 2^64−1 stops there instead of going
// on from seed 0.
func TestSeedsNeverWrap(t *testing.T) {
	var seeds []string
	sum := campaign.Run(context.Background(), campaign.Config{First: math.MaxUint64 - 2, Count: 10, NoShrink: true}, func(r *campaign.Result) { seeds = append(seeds, r.Seed) })
	want := []string{"0xfffffffffffffffd", "0xfffffffffffffffe", "0xffffffffffffffff"}
	if diff := cmp.Diff(want, seeds); diff != "" || sum.Runs != 3 {
		t.Errorf("%d runs; seeds (-want +got):\n%s", sum.Runs, diff)
	}
}

// TestAReplacementIsNamedInItsReproduction: a listener in llm-retry's
// place is part of the failure: the reproduction lines and the entry
// name it, and replaying the entry without it is refused (a replay of the
// stock llm-retry would pass).
func TestAReplacementIsNamedInItsReproduction(t *testing.T) {
	withoutSimEnv(t)
	buggy := retryServer(true)
	buggy.Name, buggy.MaxRetries, buggy.Codes = sim.ListenerRetry, 0, nil
	corpus := t.TempDir()
	r := &recorder{name: "TestMine"}
	check(r, Listeners(buggy), Runs(300), Corpus(corpus))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "--listeners retry (with retry registered") {
		t.Fatalf("errors %q", r.errors)
	}
	// A campaign of no seed replays the corpus alone.
	sum := campaign.Run(t.Context(), campaign.Config{Corpus: corpus, Workers: 1}, func(*campaign.Result) {})
	if sum.Corpus.Unreadable != 1 || sum.Runs != 0 {
		t.Errorf("the entry replayed without the listener it was made with: %+v, want 1 refused and no run", sum.Corpus)
	}
}

// TestCheckReportsAListenerThatBlocks: a listener that waits on the real
// world (here the turn signal, which only the world cancels, and the world
// waits for the listener) fails the test with one failure naming it, once
// the watchdog's real time has passed (go test once died of "all
// goroutines are asleep - deadlock!"), and the campaign stops there
// instead of waiting it out on every seed; the failure is not shrunk
// (each run of it waits out the watchdog again) and is kept.
func TestCheckReportsAListenerThatBlocks(t *testing.T) {
	withoutSimEnv(t)
	waits := sim.Listener{Name: "waits", MaxRetries: 1, Codes: []string{"SERVER"}, New: func(env sim.Env) loop.RequestErrorListener {
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			<-ev.Signal.Done()
			return next()
		}
	}}
	watchdog := BlockedAfter(20 * time.Millisecond)
	corpus := t.TempDir()
	r := &recorder{name: "TestMine"}
	check(r, Listeners(waits), Runs(1000), Corpus(corpus), watchdog)
	if r.fatal != "" || len(r.errors) != 1 {
		t.Fatalf("fatal %q, errors %q: want one failure", r.fatal, r.errors)
	}
	got := r.errors[0]
	for _, want := range []string{`turn-terminates`, `listener "waits" blocked outside virtual time: no answer after 20ms of real time`,
		"plan as drawn (", "not shrunk: a plug-in blocked outside virtual time", "-sim.seed=", "corpus: testdata/"} {
		if !strings.Contains(got, want) && !strings.Contains(got, strings.Replace(want, "testdata/", corpus, 1)) {
			t.Errorf("the failure does not say %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got, "the only failing seed of ") {
		t.Errorf("the campaign went on after the block:\n%s", got)
	}

	c, err := (&settings{first: 1, corpus: corpus, listeners: []sim.Listener{waits}, blockedAfter: 20 * time.Millisecond}).config(r)
	if err != nil {
		t.Fatal(err)
	}
	sum := campaign.Run(context.Background(), c, func(*campaign.Result) {})
	if sum.Blocked != "waits" || sum.Interrupted || sum.Runs == int(c.Count) ||
		!strings.Contains(sum.String(), `(stopped: listener "waits" blocked outside virtual time)`) {
		t.Errorf("blocked %q, interrupted %v, %d of %d seeds ran, %q: want the campaign stopped at the block", sum.Blocked, sum.Interrupted, sum.Runs, c.Count, sum)
	}
}
