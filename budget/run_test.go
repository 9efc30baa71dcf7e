package budget

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/sim"
)

// mustRun is c.Run for a configuration the test builds valid.
func mustRun(t testing.TB, c Config, seed uint64, runs int) Report {
	t.Helper()
	r, err := c.Run(context.Background(), seed, runs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func normal(n int) *loop.RetryPolicy {
	p := retry.DefaultPolicy()
	p.MaxRetries = n
	return p
}

// TestExhaustionMatchesTheAnalytic: one request per turn, independent
// retryable failures with probability p, n retries: a turn is exhausted
// exactly when all n+1 attempts fail, with probability p^(n+1). The
// Monte-Carlo interval must contain it, and no turn may violate an
// invariant.
func TestExhaustionMatchesTheAnalytic(t *testing.T) {
	tests := []struct {
		p    float64
		n    int
		runs int
	}{
		{0.5, 1, 3000},
		{0.5, 2, 3000},
		{0.3, 1, 3000},
		{0.8, 3, 3000},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("p=%v n=%d", tt.p, tt.n), func(t *testing.T) {
			env := &Environment{Failures: []Failure{{Code: "SERVER", Status: 503, P: tt.p}}}
			r := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: normal(tt.n)}, Env: env}, 1, tt.runs)
			want := math.Pow(tt.p, float64(tt.n+1))
			if want < r.ExhaustionLo || want > r.ExhaustionHi {
				t.Errorf("exhaustion %.4f in [%.4f, %.4f] does not contain p^(n+1) = %.4f", r.Exhaustion, r.ExhaustionLo, r.ExhaustionHi, want)
			}
			if len(r.Violations) > 0 {
				t.Errorf("%d turns violate the oracle, first: %v", len(r.Violations), r.Violations[0].Violations[0])
			}
			if r.FailedAtOnce != 0 || r.Completed+r.Exhausted != tt.runs {
				t.Errorf("completed %d, exhausted %d, failed at once %d of %d", r.Completed, r.Exhausted, r.FailedAtOnce, tt.runs)
			}
		})
	}
}

// TestOutagesAgainstTheDefaultPolicy: under a permanent SERVER outage the
// default policy's recovery time lies in the analytic [13,950, 17,050] ms;
// an outage longer than 17,050 ms exhausts the turn it starts with, one
// shorter than 13,950 ms never does.
func TestOutagesAgainstTheDefaultPolicy(t *testing.T) {
	p := retry.DefaultPolicy()
	outage := func(ms float64) *Environment {
		return &Environment{Outages: []Outage{{FromMs: 0, ForMs: ms, Code: "SERVER", Status: 503}}}
	}
	permanent := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: p}, Env: outage(1e9)}, 1, 200)
	if permanent.Exhausted != 200 {
		t.Errorf("a permanent outage exhausted %d of 200 turns", permanent.Exhausted)
	}
	if permanent.RecoveryMax > 17050 || permanent.RecoveryP50 < 13950 {
		t.Errorf("recovery p50 %v, max %v, outside [13950, 17050]", permanent.RecoveryP50, permanent.RecoveryMax)
	}
	if long := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: p}, Env: outage(17051)}, 1, 200); long.Exhausted != 200 {
		t.Errorf("an outage of 17,051 ms exhausted %d of 200 turns, want all", long.Exhausted)
	}
	if short := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: p}, Env: outage(13949)}, 1, 200); short.Completed != 200 {
		t.Errorf("an outage of 13,949 ms completed %d of 200 turns, want all", short.Completed)
	}
}

// TestParseEnvironmentErrors: a bad environment names its field or line.
func TestParseEnvironmentErrors(t *testing.T) {
	tests := []struct{ why, raw, want string }{
		{"a probability above one", `{"failures":[{"code":"SERVER","p":1.5}]}`, "failures[0].p: must be in [0,1], got 1.5"},
		{"a failure without a code", `{"failures":[{"p":0.1}]}`, "failures[0].code: missing"},
		{"an empty outage", `{"outages":[{"code":"SERVER","fromMs":0,"forMs":0}]}`, "outages[0].forMs: must be > 0, got 0"},
		{"an unknown field", `{"failure":[]}`, `invalid environment: failure: unknown field (known: failures, outages, bursts, latencyMs, workload, horizonMs, arrivals, incidents)`},
		{"an unknown field deep inside: its whole path (it once gave only its name)", `{"failures":[{"code":"SERVER","p":0.1},{"code":"AUTH","prob":0.1}]}`,
			`invalid environment: failures[1].prob: unknown field (known: code, status, p, retryAfterMs)`},
		{"a value of the wrong kind: its index too", `{"failures":[{"code":"SERVER","p":"high"}]}`, `invalid environment: failures[0].p: must be a number, got a string "high"`},
		{"broken JSON on line 2", "{\n\"failures\": [}", "line 2, column 14: unexpected }"},
	}
	for _, tt := range tests {
		_, err := ParseEnvironment([]byte(tt.raw))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.why, err, tt.want)
		}
	}
}

// TestBurstsMatchTheAnalytic: a provider that is bad (every request
// fails) with probability pGB of entering the bad state and pBG of leaving
// it, stepped before each request from good: n retries exhaust a turn when
// the first request finds the provider bad and it stays bad for n more,
// with probability pGB·(1−pBG)^n.
func TestBurstsMatchTheAnalytic(t *testing.T) {
	env := &Environment{Bursts: &Bursts{PGoodToBad: 0.3, PBadToGood: 0.4,
		Failures: []Failure{{Code: "SERVER", Status: 503, P: 1}}}}
	for _, n := range []int{0, 1, 2} {
		r := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: normal(n)}, Env: env}, 1, 4000)
		want := 0.3 * math.Pow(0.6, float64(n))
		if want < r.ExhaustionLo || want > r.ExhaustionHi {
			t.Errorf("n=%d: exhaustion %.4f in [%.4f, %.4f] does not contain %.4f", n, r.Exhaustion, r.ExhaustionLo, r.ExhaustionHi, want)
		}
	}
}

// TestRetryAfter: a provider's Retry-After within the cap is the wait,
// exactly; above the cap, normal mode does not retry at all.
func TestRetryAfter(t *testing.T) {
	fixed := func(ms float64) *Environment {
		return &Environment{Failures: []Failure{{Code: "RATE_LIMIT", Status: 429, P: 0.5, RetryAfterMs: &Distribution{Fixed: &ms}}}}
	}
	seen := 0
	for seed := uint64(1); seed <= 200; seed++ {
		turn, err := Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: fixed(2000)}.Turn(seed)
		if err != nil {
			t.Fatal(err)
		}
		if len(turn.Violations) > 0 {
			t.Fatalf("seed %d: %v", seed, turn.Violations[0])
		}
		if turn.Attempts == 2 && turn.End == "completed" {
			seen++
			if turn.RecoveryMs != 2000 {
				t.Errorf("seed %d: one Retry-After of 2000 ms, recovery %v ms", seed, turn.RecoveryMs)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no turn of 200 failed exactly once")
	}
	over := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: fixed(12000)}, 1, 500)
	if over.Exhausted != 0 || over.FailedAtOnce == 0 || over.FailedAtOnce+over.Completed != 500 {
		t.Errorf("Retry-After over the cap: exhausted %d, failed at once %d, completed %d", over.Exhausted, over.FailedAtOnce, over.Completed)
	}
}

// TestDistributions: each kind draws within its range; a malformed one
// names its field.
func TestDistributions(t *testing.T) {
	five, mean := 5.0, 100.0
	uniform := [2]float64{10, 20}
	if got := (&Distribution{Fixed: &five}).draw(0.7); got != 5 {
		t.Errorf("fixed 5 drew %v", got)
	}
	if got := (&Distribution{Uniform: &uniform}).draw(0.5); got != 15 {
		t.Errorf("uniform [10,20] at 0.5 drew %v", got)
	}
	if got := (&Distribution{Exponential: &mean}).draw(1 - math.Exp(-1)); math.Abs(got-100) > 1e-9 {
		t.Errorf("exponential mean 100 at its 1−1/e quantile drew %v", got)
	}
	_, err := ParseEnvironment([]byte(`{"latencyMs":{"fixed":1,"exponentialMean":2}}`))
	if err == nil || err.Error() != "latencyMs: needs exactly one of fixed, uniform, exponentialMean" {
		t.Errorf("two kinds at once: %v", err)
	}
	// A workload's tool result is bounded like a scenario's: 2e9
	// characters once ran a turn at 3.75 GB that no signal stopped.
	_, err = ParseEnvironment([]byte(`{"workload":{"toolSteps":1,"resultChars":2000000000}}`))
	if err == nil || err.Error() != "workload.resultChars: 2000000000 is over the limit of 16777216 (raise it with --max-result-chars)" {
		t.Errorf("a 2 GB tool result: %v", err)
	}
	_, err = ParseEnvironment([]byte(`{"bursts":{"pGoodToBad":0.1,"pBadToGood":0.5,"failures":[{"code":"SERVER","p":1,"retryAfterMs":{"uniform":[5,1]}}]}}`))
	if err == nil || !strings.HasPrefix(err.Error(), "bursts.failures[0].retryAfterMs.uniform: want [low, high]") {
		t.Errorf("a reversed range: %v", err)
	}
}

// TestCompactionBundleUnderNaturalOverflow: tool results outgrow a small
// context window; a plain retry policy (no compaction) loses every turn to
// the overflow, a bundle that installs compaction-basic recovers them.
func TestCompactionBundleUnderNaturalOverflow(t *testing.T) {
	env := &Environment{Workload: &Workload{ToolSteps: 3, ResultChars: 4000, ContextWindow: 2500}}
	plain, err := ParsePolicy([]byte(`{"mode":"normal","maxRetries":2}`))
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := ParsePolicy([]byte(`{"retryPolicy":{"mode":"normal","maxRetries":2},"compaction":{"maxOverflowRetries":1},"listenerOrder":["compaction","retry"]}`))
	if err != nil || bundle.Compaction == nil {
		t.Fatalf("bundle %+v, %v", bundle, err)
	}
	plain.Env, bundle.Env = env, env
	if r := mustRun(t, plain, 1, 100); r.Completed != 0 || len(r.Violations) > 0 {
		t.Errorf("without compaction: %d of 100 completed, %d violations", r.Completed, len(r.Violations))
	}
	r := mustRun(t, bundle, 1, 100)
	if r.Completed != 100 || len(r.Violations) > 0 {
		t.Errorf("with compaction: %d of 100 completed, %d violations", r.Completed, len(r.Violations))
	}
	if r.Amplification <= 1 {
		t.Errorf("compaction's retries should amplify requests, got %v", r.Amplification)
	}
}

// TestParsePolicyErrors: a bundle's errors name the field.
func TestParsePolicyErrors(t *testing.T) {
	tests := []struct{ why, raw, want string }{
		{"a bad jitter in a bundle", `{"retryPolicy":{"backoff":{"jitterRatio":3}}}`, "retryPolicy.backoff.jitterRatio"},
		{"an unknown bundle field", `{"retryPolicy":{},"requests":[]}`, "requests: unknown field of a policy bundle"},
		{"a bad plain policy", `{"mode":"sometimes"}`, "mode"},
	}
	for _, tt := range tests {
		_, err := ParsePolicy([]byte(tt.raw))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.why, err, tt.want)
		}
	}
	if _, err := ParseEnvironment([]byte(`{"workload":{"toolSteps":-1}}`)); err == nil || !strings.HasPrefix(err.Error(), "workload.toolSteps: ") {
		t.Errorf("a negative tool step count: %v", err)
	}
	for _, row := range []struct{ raw, want string }{
		{`{"failures":[{"code":"SERVER","status":99999,"p":0.1}]}`, "failures[0].status: must be an HTTP status in 100..599, got 99999"},
		{`{"bursts":{"pGoodToBad":0.1,"pBadToGood":0.5,"failures":[{"code":"SERVER","status":42,"p":1}]}}`, "bursts.failures[0].status: must be an HTTP status in 100..599, got 42"},
		{`{"outages":[{"code":"SERVER","status":700,"fromMs":0,"forMs":10}]}`, "outages[0].status: must be an HTTP status in 100..599, got 700"},
	} {
		if _, err := ParseEnvironment([]byte(row.raw)); err == nil || err.Error() != row.want {
			t.Errorf("%s: %v, want %q", row.raw, err, row.want)
		}
	}
}

// TestFlagForms: the command line's short forms of a failure and an
// outage, and their errors.
func TestFlagForms(t *testing.T) {
	f, err := ParseFailFlag("SERVER/503=0.2")
	if err != nil || f != (Failure{Code: "SERVER", Status: 503, P: 0.2}) {
		t.Errorf("SERVER/503=0.2: %+v, %v", f, err)
	}
	if f, err := ParseFailFlag("AUTH=0.01"); err != nil || f.Code != "AUTH" || f.Status != 0 {
		t.Errorf("AUTH=0.01: %+v, %v", f, err)
	}
	o, err := ParseOutageFlag("0+20000")
	if err != nil || o != (Outage{FromMs: 0, ForMs: 20000, Code: "SERVER", Status: 503}) {
		t.Errorf("0+20000: %+v, %v", o, err)
	}
	if o, err := ParseOutageFlag("RATE_LIMIT/429@5000+3000"); err != nil || o.Code != "RATE_LIMIT" || o.Status != 429 || o.FromMs != 5000 {
		t.Errorf("RATE_LIMIT/429@5000+3000: %+v, %v", o, err)
	}
	// SERVER/99999 was once accepted and only reported later, as an
	// oracle violation of the logs it wrote.
	for _, bad := range []string{"SERVER", "SERVER=2", "=0.1", "SERVER/x=0.1", "SERVER/99999=0.1", "SERVER/99=0.1"} {
		if _, err := ParseFailFlag(bad); err == nil {
			t.Errorf("--fail %q accepted", bad)
		}
	}
	for _, bad := range []string{"20000", "0+0", "-5+10", "@0+10", "X/y@0+10", "SERVER/600@0+10"} {
		if _, err := ParseOutageFlag(bad); err == nil {
			t.Errorf("--outage %q accepted", bad)
		}
	}
}

// TestUnheardCodes: a normal-mode policy's retryable code that no provider
// sends and the environment never produces is named (SERVR, a typo); a
// provider's code, one the environment produces (a custom one), and
// HTTP_<status> are not.
func TestUnheardCodes(t *testing.T) {
	env := &Environment{Failures: []Failure{{Code: "SERVER", P: 0.1}}, Outages: []Outage{{Code: "MAINTENANCE", ForMs: 1}}}
	p := &loop.RetryPolicy{Mode: loop.ModeNormal, RetryableCodes: []string{"SERVR", "SERVER", "TIMEOUT", "MAINTENANCE", "HTTP_418", "OVERLOADED"}}
	if diff := cmp.Diff([]string{"SERVR", "OVERLOADED"}, UnheardCodes(p, env)); diff != "" {
		t.Errorf("unheard codes (-want +got):\n%s", diff)
	}
	if got := UnheardCodes(&loop.RetryPolicy{Mode: loop.ModeAlways}, env); got != nil {
		t.Errorf("always mode lists no codes, got %v", got)
	}
}

// TestWhyTurnsFailed: the breakdown accounts for every turn that did not
// complete, and each reason is the last failure's: a RATE_LIMIT whose
// Retry-After is over the cap is never retried, whatever came before it
// (such turns were counted as exhausted when an earlier failure had been
// retried); AUTH is not retryable under DSH's default policy; a SERVER
// failure ends a turn only when the step's budget is spent.
func TestWhyTurnsFailed(t *testing.T) {
	over := 20000.0
	env := &Environment{Failures: []Failure{{Code: "RATE_LIMIT", Status: 429, P: 0.2, RetryAfterMs: &Distribution{Fixed: &over}},
		{Code: "AUTH", Status: 401, P: 0.05}, {Code: "SERVER", Status: 503, P: 0.4}}}
	p := retry.DefaultPolicy()
	r := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: p}, Env: env}, 1, 2000)
	total := 0
	for _, f := range r.Failures {
		total += f.Turns
		var ok bool
		switch f.Code {
		case "RATE_LIMIT":
			ok = strings.HasPrefix(f.Why, "not retried: Retry-After over the cap")
		case "AUTH":
			ok = strings.HasPrefix(f.Why, "not retried: code not retryable")
		case "SERVER":
			ok = f.Why == fmt.Sprintf("exhausted: %d of %d retries", p.MaxRetries, p.MaxRetries)
		}
		if !ok {
			t.Errorf("%d × %s: %s", f.Turns, f.Code, f.Why)
		}
	}
	if want := r.Exhausted + r.FailedAtOnce + r.Aborted; total != want || total == 0 {
		t.Errorf("the breakdown holds %d turns, want the %d that did not complete", total, want)
	}
	for i := 1; i < len(r.Failures); i++ {
		if r.Failures[i].Turns > r.Failures[i-1].Turns {
			t.Errorf("rows not the most frequent first: %v", r.Failures)
		}
	}
}

// TestRecoveryCoversTurnsThatMetAFailure: under a workload of four steps
// a turn makes four requests without any failure; the recovery figures
// cover only turns with a failed attempt (every turn once counted, and a
// p50 of 0 ms hid the recoveries).
func TestRecoveryCoversTurnsThatMetAFailure(t *testing.T) {
	env := &Environment{Failures: []Failure{{Code: "SERVER", Status: 503, P: 0.08}}, Workload: &Workload{ToolSteps: 3}}
	r := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: env}, 1, 2000)
	failing := 0
	for n, c := range r.Attempts {
		if n > 4 { // a failed attempt is one request more than the four steps
			failing += c
		}
	}
	held := 0
	for _, b := range r.RecoveryHistogram {
		held += b.Count
	}
	if r.MetFailure != failing || held != failing || r.RecoveryP50 == 0 {
		t.Errorf("%d turns met a failure, the recovery figures cover %d (histogram %d), p50 %v", failing, r.MetFailure, held, r.RecoveryP50)
	}
}
