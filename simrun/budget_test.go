package simrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/sim"
)

// TestBudgetComparesPolicies: two policies on the same seeds; the one
// with more retries exhausts no more turns, and both reports print.
func TestBudgetComparesPolicies(t *testing.T) {
	dir := t.TempDir()
	env := filepath.Join(dir, "env.json")
	os.WriteFile(env, []byte(`{"failures":[{"code":"SERVER","status":503,"p":0.5}]}`), 0o644)
	one := filepath.Join(dir, "one.json")
	os.WriteFile(one, []byte(`{"mode":"normal","maxRetries":1,"backoff":{"initialDelayMs":10,"maxDelayMs":100,"jitterRatio":0}}`), 0o644)
	status, out, errOut := simrun("budget", "--policy", one, "--policy", "default", "--env", env, "--runs", "2000", "--json")
	if status != exitClean {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a report per policy:\n%s", out)
	}
	var reports [2]struct {
		Policy     string
		Turns      int
		Exhausted  int
		BoundsMs   []any
		Exhaustion float64
	}
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &reports[i]); err != nil {
			t.Fatal(err)
		}
	}
	if reports[0].Turns != 2000 || reports[1].Turns != 2000 || reports[1].Exhausted > reports[0].Exhausted {
		t.Errorf("reports %+v", reports)
	}
	// p^(n+1) with p = 0.5, n = 1 is 0.25; 2000 turns put it within ±0.03.
	if e := reports[0].Exhaustion; e < 0.22 || e > 0.28 {
		t.Errorf("maxRetries 1 at p 0.5 exhausted %.3f of turns, want about 0.25", e)
	}
	if status, _, errOut := simrun("budget", "--env", env); status != exitUsage || !strings.Contains(errOut, "--policy") {
		t.Errorf("no policy: status %d, %q", status, errOut)
	}
	os.WriteFile(env, []byte(`{"failures":[{"code":"SERVER","p":2}]}`), 0o644)
	if status, _, errOut := simrun("budget", "--policy", "default", "--env", env); status != exitUsage || !strings.Contains(errOut, "failures[0].p: must be in [0,1]") {
		t.Errorf("a bad environment: status %d, %q", status, errOut)
	}
}

// TestBudgetAssert: a bound the report keeps exits 0, one it breaks exits
// 1 naming the figure, a malformed one exits 2.
func TestBudgetAssert(t *testing.T) {
	dir := t.TempDir()
	env := filepath.Join(dir, "env.json")
	os.WriteFile(env, []byte(`{"failures":[{"code":"SERVER","status":503,"p":0.5}]}`), 0o644)
	args := []string{"budget", "--policy", "default", "--env", env, "--runs", "500"}
	// p = 0.5 and 5 retries exhaust 1/64 of turns: about 0.016.
	if status, _, errOut := simrun(append(args, "--assert", "exhaustion<0.05", "--assert", "violations<=0")...); status != exitClean {
		t.Errorf("bounds that hold: status %d\n%s", status, errOut)
	}
	status, out, errOut := simrun(append(args, "--assert", "exhaustion<0.001", "--assert", "violations<1", "--json")...)
	if status != exitViolation || !strings.Contains(errOut, "assert exhaustion<0.001 FAILS for policy default: exhaustion = ") {
		t.Errorf("a bound that fails: status %d\n%s", status, errOut)
	}
	// --json carries the verdicts, named as --assert names them.
	var report struct {
		Asserts []struct {
			Bound, Figure string
			Value         float64
			Holds         bool
		}
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || len(report.Asserts) != 2 || report.Asserts[0].Bound != "exhaustion<0.001" ||
		report.Asserts[0].Holds || report.Asserts[0].Value == 0 || !report.Asserts[1].Holds || report.Asserts[1].Figure != "violations" {
		t.Errorf("--json asserts %+v (%v) in %s", report.Asserts, err, out)
	}
	// NaN once was accepted and always failed, Inf always held.
	for _, bad := range []string{"exhaustion", "exhaust<1", "exhaustion<lots", "exhaustion<NaN", "exhaustion<Inf"} {
		if status, _, _ := simrun(append(args, "--assert", bad)...); status != exitUsage {
			t.Errorf("--assert %q: status %d, want 2", bad, status)
		}
	}
}

// TestBudgetTrace: one turn's log, as a violation's reproduction line
// asks for, reads back clean; --trace over many turns is refused.
func TestBudgetTrace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "turn.jsonl")
	if status, _, errOut := simrun("budget", "--policy", "default", "--seed", "0x2a", "--runs", "1", "--trace", out); status != exitClean {
		t.Fatalf("status %d: %s", status, errOut)
	}
	if status, text, _ := simrun("check", out); status != exitClean || !strings.Contains(text, "1 files, 0 violations, 0 errors") {
		t.Errorf("the trace checks with status %d:\n%s", status, text)
	}
	if status, _, errOut := simrun("budget", "--policy", "default", "--runs", "5", "--trace", out); status != exitUsage || !strings.Contains(errOut, "--runs 1") {
		t.Errorf("--trace over 5 turns: status %d, %q", status, errOut)
	}
}

// TestBudgetStrictInputs: a retryable code nothing can produce is warned
// about on stderr (it once passed silently), and --json writes no
// violations as [] (it once wrote null where the text said 0).
func TestBudgetStrictInputs(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "typo.json")
	os.WriteFile(policy, []byte(`{"mode":"normal","maxRetries":2,"retryableCodes":["SERVR"],"backoff":{"initialDelayMs":10,"maxDelayMs":100,"jitterRatio":0}}`), 0o644)
	status, out, errOut := simrun("budget", "--policy", policy, "--fail", "SERVER/503=0.2", "--runs", "20", "--json")
	if status != exitClean {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	if !strings.Contains(errOut, `retryableCodes lists "SERVR", which no provider sends and no failure of the environment has (its codes: SERVER)`) {
		t.Errorf("no warning about SERVR: %q", errOut)
	}
	if !strings.Contains(out, `"violations":[]`) || strings.Contains(out, "null") {
		t.Errorf("--json: %s", out)
	}
}

// TestBudgetPerTurnFiguresKept: per-turn environments report what they
// did before environments over time existed — the files are simrun
// budget --json of commit 4d18a55, byte for byte, on the same seeds.
func TestBudgetPerTurnFiguresKept(t *testing.T) {
	t.Chdir("..") // the module's root, where the files were made: a report names its policy file as given
	for _, c := range []struct{ env, policy string }{
		{"server-20pct", "default"},
		{"outage-20s", "default"},
		{"overflow-workload", "examples/budget/compaction-bundle.json"},
	} {
		want, err := os.ReadFile(filepath.Join("simrun", "testdata", "budget-per-turn", c.env+".json"))
		if err != nil {
			t.Fatal(err)
		}
		status, got, errOut := simrun("budget", "--policy", c.policy, "--env", "examples/budget/"+c.env+".json", "--runs", "3000", "--seed", "7", "--json")
		if status != exitClean {
			t.Fatalf("%s: status %d: %s", c.env, status, errOut)
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("%s: the report changed (-want +got):\n%s", c.env, diff)
		}
	}
}

// TestBudgetOverAHorizon: an environment with a horizon runs the turns
// that arrive over it (--runs is refused, not ignored), reports its
// incidents in --json, and a turn of it is traced by its number where it
// ran, among the incidents it met there.
func TestBudgetOverAHorizon(t *testing.T) {
	dir := t.TempDir()
	env := filepath.Join(dir, "hour.json")
	os.WriteFile(env, []byte(`{"horizonMs":3600000,"arrivals":{"perMinute":20},
		"outages":[{"fromMs":600000,"forMs":60000,"code":"SERVER","status":503}]}`), 0o644)
	status, out, errOut := simrun("budget", "--policy", "default", "--env", env, "--json")
	if status != exitClean {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	var r struct {
		Turns, Exhausted int
		Timeline         struct {
			Incidents []struct {
				Source            string
				TurnsHit, Failed  int
				LongestRecoveryMs float64
				FailedTurns       []int
			}
			FailedPerMinute []int
			DesignEffect    float64
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	in := r.Timeline.Incidents
	// 20 turns a minute meet a minute's outage; the default policy waits
	// 14–17 s, so the turns of its first 43 s or so are exhausted.
	if r.Turns < 1000 || len(in) != 1 || in[0].Source != "outages[0]" || in[0].TurnsHit < 15 || in[0].Failed != r.Exhausted || r.Exhausted < 5 {
		t.Errorf("report: %+v", r)
	}
	// A scheduled outage is on every seed: the turns it fails are not a
	// drawn cluster, and do not widen the interval.
	if r.Timeline.DesignEffect != 1 || len(in[0].FailedTurns) != 5 {
		t.Errorf("design effect %v, failed turns named %v", r.Timeline.DesignEffect, in[0].FailedTurns)
	}
	if len(r.Timeline.FailedPerMinute) < 60 || r.Timeline.FailedPerMinute[10] == 0 {
		t.Errorf("failed per minute: %v", r.Timeline.FailedPerMinute)
	}
	if status, _, errOut := simrun("budget", "--policy", "default", "--env", env, "--runs", "10"); status != exitUsage || !strings.Contains(errOut, "--runs: the environment has a horizon") {
		t.Errorf("--runs with a horizon: status %d, %q", status, errOut)
	}
	// Turn numbers count arrivals; the ones around minute 10 met the outage.
	trace := filepath.Join(dir, "turn.jsonl")
	met := 0
	for turn := 150; turn < 260; turn += 20 {
		if status, _, errOut := simrun("budget", "--policy", "default", "--env", env, "--turn", strconv.Itoa(turn), "--trace", trace); status != exitClean {
			t.Fatalf("--trace --turn %d: status %d: %s", turn, status, errOut)
		}
		if status, text, _ := simrun("check", trace); status != exitClean || !strings.Contains(text, "0 violations") {
			t.Errorf("turn %d's trace checks with status %d:\n%s", turn, status, text)
		}
		if log, _ := os.ReadFile(trace); strings.Contains(string(log), `"code":"SERVER"`) {
			met++
		}
	}
	if met == 0 || met == 6 {
		t.Errorf("%d of 6 traced turns around minute 10 met the outage: a trace is not placed where its turn ran", met)
	}
	if status, _, errOut := simrun("budget", "--policy", "default", "--env", env, "--turn", "999999", "--trace", trace); status != exitUsage || !strings.Contains(errOut, "has") {
		t.Errorf("a turn past the horizon's: status %d, %q", status, errOut)
	}
}

// TestBudgetSameForAnyJ: policies run side by side print the same bytes,
// text, --json and page, as one at a time.
func TestBudgetSameForAnyJ(t *testing.T) {
	dir := t.TempDir()
	env := filepath.Join(dir, "hours.json")
	os.WriteFile(env, []byte(`{"horizonMs":7200000,"arrivals":{"perMinute":10},"failures":[{"code":"SERVER","status":503,"p":0.3}],
		"incidents":[{"perHour":3,"forMs":{"exponentialMean":20000},"code":"SERVER","status":503}]}`), 0o644)
	run := func(j string, extra ...string) string {
		page := filepath.Join(dir, "page-"+j+".html")
		args := append([]string{"budget", "--policy", "default", "--policy", "../examples/budget/two-retries.json", "--policy", "../examples/budget/steady.json",
			"--env", env, "--assert", "exhaustion_hi<0.01", "-j", j, "--html", page}, extra...)
		status, out, errOut := simrun(args...)
		html, _ := os.ReadFile(page)
		return fmt.Sprintf("status %d\n%s\n%s\n%s", status, out, errOut, html)
	}
	for _, extra := range [][]string{nil, {"--json"}} {
		one, three := run("1", extra...), run("3", extra...)
		if diff := cmp.Diff(one, three); diff != "" {
			t.Errorf("%v: -j 1 and -j 3 differ (-one +three):\n%s", extra, diff)
		}
	}
}

// TestBudgetRefusesWhatMeasuresNothing: a horizon no turn arrives over is
// refused (its report said exhaustion 0 and every bound held), and a code
// no provider sends is warned about with its field.
func TestBudgetRefusesWhatMeasuresNothing(t *testing.T) {
	dir := t.TempDir()
	env := filepath.Join(dir, "empty.json")
	os.WriteFile(env, []byte(`{"horizonMs":1.5,"arrivals":{"perMinute":30}}`), 0o644)
	status, _, errOut := simrun("budget", "--policy", "default", "--env", env, "--assert", "exhaustion<0.001")
	if status != exitUsage || !strings.Contains(errOut, "no turn arrived over the horizon") || strings.Contains(errOut, "holds") {
		t.Errorf("an empty horizon: status %d, %q", status, errOut)
	}
	os.WriteFile(env, []byte(`{"horizonMs":600000,"arrivals":{"perMinute":3},"incidents":[{"perHour":6,"forMs":{"fixed":30000},"code":"server"}]}`), 0o644)
	status, _, errOut = simrun("budget", "--policy", "default", "--env", env)
	if status != exitClean || !strings.Contains(errOut, `warning: the environment's incidents[0].code "server" is not a code DSH's adapter derives`) {
		t.Errorf("a lowercase code: status %d, %q", status, errOut)
	}
}

// TestBudgetHorizonJSONLists: a horizon without incidents or failures
// writes its lists as [] (they were null).
func TestBudgetHorizonJSONLists(t *testing.T) {
	env := filepath.Join(t.TempDir(), "calm.json")
	os.WriteFile(env, []byte(`{"horizonMs":600000,"arrivals":{"perMinute":2}}`), 0o644)
	status, out, errOut := simrun("budget", "--policy", "default", "--env", env, "--json")
	if status != exitClean || !strings.Contains(out, `"incidents":[]`) || !strings.Contains(out, `"checks":[]`) || strings.Contains(out, "null") {
		t.Errorf("status %d: %s%s", status, out, errOut)
	}
}

// TestBudgetWithAListenerOfOnesOwn: in a main with a listener registered,
// a violating turn's reproduction line names the listener (a simrun
// without it refuses the line rather than measuring another turn), and
// --trace --turn prints the run's verdict, which a listener's count of
// retries makes and its log alone does not show.
func TestBudgetWithAListenerOfOnesOwn(t *testing.T) {
	eager := sim.Listener{Name: "eager", Place: sim.Outermost, MaxRetries: 1, New: func(sim.Env) loop.RequestErrorListener {
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			if ev.Failure.Code == "RATE_LIMIT" {
				return loop.Retry, nil // at once, and past its budget of one
			}
			return next()
		}
	}}
	plugged = []sim.Listener{eager}
	t.Cleanup(func() { plugged = nil })
	t.Chdir(t.TempDir()) // the reproduction line writes turn.jsonl where it runs
	env := "storm.json"
	os.WriteFile(env, []byte(`{"horizonMs":1200000,"arrivals":{"perMinute":2},"failures":[{"code":"RATE_LIMIT","status":429,"p":0.5}]}`), 0o644)
	status, out, errOut := simrun("budget", "--policy", "default", "--env", env)
	line := regexp.MustCompile(`reproduce: (simrun budget [^&]*) &&`).FindStringSubmatch(out)
	if status != exitViolation || line == nil || !strings.Contains(line[1], " --listeners eager ") {
		t.Fatalf("status %d, no reproduction naming the listener:\n%s%s", status, out, errOut)
	}
	args := strings.Fields(strings.TrimPrefix(line[1], "simrun "))
	status, out, errOut = simrun(args...)
	if status != exitViolation || !strings.Contains(out, "attempts-within-policy: eager answered retry") {
		t.Errorf("the reproduction line: status %d\n%s%s", status, out, errOut)
	}
	plugged = nil
	if status, _, errOut := simrun(args...); status != exitUsage || !strings.Contains(errOut, `--listeners: "eager" is not registered in this simrun`) {
		t.Errorf("the line in a simrun without the listener: status %d, %q", status, errOut)
	}
}

// TestBudgetRefusesWhatCannotBeMeasured: a policy given twice (once run
// twice without a word, under one name), and what a file cannot know of
// but the run needs: a bundle's listener order naming a listener this
// simrun has not got, which once ran with neither.
func TestBudgetRefusesWhatCannotBeMeasured(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("two.json", []byte(`{"mode":"normal","maxRetries":2}`), 0o644)
	os.Symlink("two.json", "also-two.json")
	os.WriteFile("huge.json", []byte(`{"mode":"normal","maxRetries":9007199254740991}`), 0o644)
	abs, _ := filepath.Abs("two.json")
	os.WriteFile("mine.json", []byte(`{"retryPolicy":{},"compaction":{"maxOverflowRetries":1},"listenerOrder":["compaction","mine","retry"]}`), 0o644)
	for _, tt := range []struct {
		why  string
		args []string
		want string
	}{
		{"the same word twice", []string{"--policy", "default", "--policy", "default"}, "simrun budget: --policy default is given twice: each policy is measured once, its report named by it\n"},
		{"one file spelled two ways", []string{"--policy", "two.json", "--policy", "default", "--policy", "./two.json"}, "simrun budget: --policy ./two.json is given twice (as two.json before): each policy is measured once, its report named by it\n"},
		{"one file by its absolute path", []string{"--policy", "two.json", "--policy", abs}, "simrun budget: --policy " + abs + " is given twice (as two.json before): each policy is measured once, its report named by it\n"},
		{"one file through a link", []string{"--policy", "also-two.json", "--policy", "two.json"}, "simrun budget: --policy two.json is given twice (as also-two.json before): each policy is measured once, its report named by it\n"},
		{"a budget no turn can spend, though DSH takes it", []string{"--policy", "huge.json"}, "simrun budget: huge.json: policy: maxRetries: 9007199254740991 is more retries than a turn can make within its bound of 500000 events (16 an attempt): at most 31249\n"},
		{"an order naming a listener nothing registered", []string{"--policy", "mine.json"},
			`simrun budget: mine.json: policy: listenerOrder[1]: unknown listener "mine" (built in: retry, compaction, always-retry, throw, cancel-then-next, cancel-then-retry; plugged in: none)` + "\n"},
	} {
		status, out, errOut := simrun(append([]string{"budget", "--runs", "10"}, tt.args...)...)
		if status != exitUsage || out != "" {
			t.Errorf("%s: status %d, stdout %q", tt.why, status, out)
		}
		if diff := cmp.Diff(tt.want, errOut); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.why, diff)
		}
	}
}

// TestBudgetDurationsWithinTheLimit: --outage and an environment's
// durations are held to --max-duration-ms, as a scenario's are; a
// latency of 1e300 ms once exited 1 with violations blamed on the loop.
func TestBudgetDurationsWithinTheLimit(t *testing.T) {
	env := filepath.Join(t.TempDir(), "slow.json")
	os.WriteFile(env, []byte(`{"latencyMs":{"fixed":1e300}}`), 0o644)
	over := " is over the limit of 2147483647 ms (raise it with --max-duration-ms)\n"
	for _, tt := range []struct {
		why  string
		args []string
		want string
	}{
		{"an environment's latency", []string{"--env", env}, "simrun budget: " + env + ": latencyMs.fixed: 1e+300 ms" + over},
		{"an outage's length", []string{"--outage", "0+3e9"}, `simrun budget: --outage "0+3e9": FOR: 3000000000 ms` + over},
		{"an outage's time in each turn's world", []string{"--outage", "3e9+1000"}, "simrun budget: the environment with --fail and --outage: outages[0].fromMs: 3000000000 ms" + over},
	} {
		status, _, errOut := simrun(append([]string{"budget", "--policy", "default", "--runs", "5"}, tt.args...)...)
		if status != exitUsage {
			t.Errorf("%s: status %d", tt.why, status)
		}
		if diff := cmp.Diff(tt.want, errOut); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.why, diff)
		}
	}
	if status, _, errOut := simrun("budget", "--policy", "default", "--runs", "5", "--max-duration-ms", "4e9", "--outage", "0+3e9"); status != exitClean {
		t.Errorf("raised by its flag: status %d: %s", status, errOut)
	}
}

// TestBudgetInterruptedWhileDrawing: a horizon's arrivals are drawn
// looking at the signal: a year of 90 rates repeated every minute (47
// million rates, a handful of turns) once ignored SIGINT, sent twice, ran
// on for seconds and exited 0 with a full report.
func TestBudgetInterruptedWhileDrawing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	rates := make([]string, 90)
	for i := range rates {
		rates[i] = fmt.Sprintf(`{"fromMs":%d,"perMinute":0.00001}`, i*600)
	}
	env := filepath.Join(t.TempDir(), "year.json")
	os.WriteFile(env, []byte(`{"horizonMs":31536000000,"arrivals":{"repeatEveryMs":60000,"schedule":[`+strings.Join(rates, ",")+`]}}`), 0o644)
	status, out, errOut := interrupt(t, syscall.SIGINT, "budget", "--policy", "default", "--env", env)
	if status != exitInterrupted || !strings.Contains(out, "(interrupted: every figure is over these)") || !strings.Contains(errOut, "simrun budget: interrupted after") {
		t.Errorf("exit %d, want 130, marked interrupted\nstdout:\n%s\nstderr:\n%s", status, out, errOut)
	}
}

// TestBudgetEscapesWhatItQuotes: a failure code or a policy file name
// with control characters is printed escaped (ESC and U+202E reached the
// terminal raw from the report, though the warning above it escaped them).
func TestBudgetEscapesWhatItQuotes(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "evil\x1b[2J\u202e.json")
	os.WriteFile(policy, []byte(`{"maxRetries":1}`), 0o644)
	status, out, errOut := simrun("budget", "--runs", "20", "--policy", policy, "--fail", "X\x1b[2J=0.5")
	if status != exitClean {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	if strings.ContainsAny(out+errOut, "\x1b\u202e") {
		t.Errorf("raw control characters in the output:\n%q", out)
	}
	if !strings.Contains(out, `X\x1b[2J`) {
		t.Errorf("the code is not shown escaped:\n%s", out)
	}
}

// TestBudgetReportsTheTurnsBeforeABlock: a listener of one's own that
// blocks outside virtual time stops the run at that turn; the report of
// the turns before it is printed (it once printed none), and the exit
// says a finding.
func TestBudgetReportsTheTurnsBeforeABlock(t *testing.T) {
	turns := 0
	blocks := sim.Listener{Name: "blocks", MaxRetries: 1, Place: sim.Outermost, New: func(sim.Env) loop.RequestErrorListener {
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			turns++
			if turns > 3 {
				<-ev.Signal.Done() // a real wait: only the world could end it, and it waits for the listener
			}
			return next()
		}
	}}
	plugged = []sim.Listener{blocks}
	t.Cleanup(func() { plugged = nil })
	status, out, errOut := simrun("budget", "--policy", "default", "--fail", "SERVER/503=0.5", "--runs", "50", "-j", "1", "--blocked-after", "300ms")
	if status != exitViolation {
		t.Fatalf("status %d, want 1 (a finding about the listener)\n%s%s", status, out, errOut)
	}
	if !strings.Contains(out, "policy default") || !strings.Contains(out, "turns") {
		t.Errorf("no report of the turns before the block:\n%s", out)
	}
	if !strings.Contains(errOut, `listener "blocks" blocked outside virtual time`) || !strings.Contains(errOut, "stopped at the block after") {
		t.Errorf("stderr does not say where the run stopped:\n%s", errOut)
	}
}
