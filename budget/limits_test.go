package budget

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/sim"
)

// withLimits sets limits.Current for the test, as a command's flags do.
func withLimits(t *testing.T, edit func(l *limits.Limits)) {
	saved := limits.Current
	t.Cleanup(func() { limits.Current = saved })
	edit(&limits.Current)
}

// TestDurationsWithinTheLimit: every duration an environment gives, and
// a per-turn outage's time, is held to --max-duration-ms as a scenario's
// are (a latency of 1e300 ms once gave false turn-terminates and
// log-well-formed violations); a distribution by the most it can draw.
// A horizon's times are its own: an outage on a year's horizon may begin
// past the limit.
func TestDurationsWithinTheLimit(t *testing.T) {
	over := " is over the limit of 2147483647 ms (raise it with --max-duration-ms)"
	tests := []struct{ why, env, want string }{
		{"a latency past any clock", `{"latencyMs":{"fixed":1e300}}`, "latencyMs.fixed: 1e+300 ms" + over},
		{"a uniform by its high end", `{"latencyMs":{"uniform":[0,3e9]}}`, "latencyMs.uniform[1]: 3000000000 ms" + over},
		{"an exponential by its longest draw, 53·ln 2 means (its mean alone is within)", `{"latencyMs":{"exponentialMean":1e8}}`,
			"latencyMs.exponentialMean: 3673680057 ms, the longest draw of a mean of 100000000 ms (36.7 × the mean)," + over},
		{"an exponential whose every draw is within", `{"latencyMs":{"exponentialMean":5e7}}`, ""},
		{"exactly the limit", `{"latencyMs":{"fixed":2147483647}}`, ""},
		{"a failure's Retry-After", `{"failures":[{"code":"RATE_LIMIT","p":0.1,"retryAfterMs":{"fixed":3e9}}]}`, "failures[0].retryAfterMs.fixed: 3000000000 ms" + over},
		{"a burst's Retry-After", `{"bursts":{"pGoodToBad":0.1,"pBadToGood":0.5,"failures":[{"code":"RATE_LIMIT","p":1,"retryAfterMs":{"uniform":[1,3e9]}}]}}`,
			"bursts.failures[0].retryAfterMs.uniform[1]: 3000000000 ms" + over},
		{"an outage's length", `{"outages":[{"code":"SERVER","fromMs":0,"forMs":3e9}]}`, "outages[0].forMs: 3000000000 ms" + over},
		{"a per-turn outage's time, in each turn's world", `{"outages":[{"code":"SERVER","fromMs":3e9,"forMs":10}]}`, "outages[0].fromMs: 3000000000 ms" + over},
		{"an outage's Retry-After", `{"outages":[{"code":"RATE_LIMIT","fromMs":0,"forMs":10,"retryAfterMs":{"fixed":3e9}}]}`, "outages[0].retryAfterMs.fixed: 3000000000 ms" + over},
		{"an outage on a year's horizon begins at a time on it, under horizonMs", `{"horizonMs":31536000000,"arrivals":{"perMinute":0.01},"outages":[{"code":"SERVER","fromMs":3e10,"forMs":1000}]}`, ""},
		{"an incident's length", `{"horizonMs":31536000000,"arrivals":{"perMinute":0.01},"incidents":[{"perHour":0.1,"forMs":{"fixed":3e10},"code":"SERVER"}]}`,
			"incidents[0].forMs.fixed: 30000000000 ms" + over},
		{"an incident's exponential length by its longest length-biased draw: two draws", `{"horizonMs":86400000,"arrivals":{"perMinute":1},"incidents":[{"perHour":0.1,"forMs":{"exponentialMean":3e7},"code":"SERVER"}]}`,
			"incidents[0].forMs.exponentialMean: 2204208034 ms, the longest draw of a mean of 30000000 ms (73.5 × the mean)," + over},
		{"an incident's Retry-After", `{"horizonMs":86400000,"arrivals":{"perMinute":1},"incidents":[{"perHour":1,"forMs":{"fixed":1000},"code":"RATE_LIMIT","retryAfterMs":{"fixed":3e9}}]}`,
			"incidents[0].retryAfterMs.fixed: 3000000000 ms" + over},
	}
	for _, tt := range tests {
		_, err := ParseEnvironment([]byte(tt.env))
		want := tt.want
		if want == "" {
			want = "no error"
		}
		if diff := cmp.Diff(want, errText(err)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.why, diff)
		}
	}
	if _, err := ParseOutageFlag("0+3e9"); errText(err) != `"0+3e9": FOR: 3000000000 ms`+over {
		t.Errorf("--outage 0+3e9: %v", err)
	}
	// The flag raises the bound, for every one of them.
	withLimits(t, func(l *limits.Limits) { l.DurationMs = 4e9 })
	for _, raw := range []string{`{"outages":[{"code":"SERVER","fromMs":3e9,"forMs":3e9}]}`, `{"latencyMs":{"exponentialMean":1e8}}`} {
		if _, err := ParseEnvironment([]byte(raw)); err != nil {
			t.Errorf("%s under --max-duration-ms 4e9: %v", raw, err)
		}
	}
}

// TestHorizonCeilingStated: a horizon is bounded by a year, not by
// --max-duration-ms (2^31 ms, 24.8 days), and the message says which and
// why.
func TestHorizonCeilingStated(t *testing.T) {
	week := `{"horizonMs":2592000000,"arrivals":{"perMinute":0.1}}` // 30 days: over --max-duration-ms
	if _, err := ParseEnvironment([]byte(week)); err != nil {
		t.Errorf("30 days: %v", err)
	}
	_, err := ParseEnvironment([]byte(`{"horizonMs":4e10,"arrivals":{"perMinute":1}}`))
	want := "horizonMs: must be > 0 and at most a year, 31622400000 ms (a ceiling of its own: --max-duration-ms bounds the times each turn meets from its arrival, not the stretch turns arrive over), got 40000000000"
	if diff := cmp.Diff(want, errText(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// schedule is a horizon's environment with a schedule of n rates of
// perMinute each, spread over a period of periodMs repeated.
func schedule(t *testing.T, horizonMs float64, n int, periodMs, perMinute float64) []byte {
	t.Helper()
	rates := make([]Rate, n)
	for i := range rates {
		rates[i] = Rate{FromMs: float64(i) * periodMs / float64(n), PerMinute: perMinute}
	}
	raw, err := json.Marshal(map[string]any{"horizonMs": horizonMs, "arrivals": map[string]any{"schedule": rates, "repeatEveryMs": periodMs}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestScheduleRatesCountedBeforeDrawn: the rates a horizon goes through
// are its schedule's entries times the periods it repeats over, counted
// before any is drawn: a 35 KB environment (a year, 1,000 rates repeated
// every minute) once took 1.5 GB in 5 s, and 10 rates took 872 MB before
// "no turn arrived". Both are known at once now, without allocating them.
func TestScheduleRatesCountedBeforeDrawn(t *testing.T) {
	const year = 365 * 24 * 3600e3
	big := schedule(t, year, 1000, 60e3, 0.00001)
	var err error
	if n := allocated(func() { _, err = ParseEnvironment(big) }); n > 8<<20 {
		t.Errorf("refusing %d bytes of environment allocated %d bytes", len(big), n)
	}
	want := "arrivals: a schedule of 1000 rates repeated every 60000 ms goes through 525600000 rates over the horizon, more than the 50000000 a run draws (each change of rate is a draw): repeat it less often, give fewer rates or a shorter horizon"
	if diff := cmp.Diff(want, errText(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// 5,256,000 rates are within the bound: neither reading nor drawing
	// them holds them.
	ten := schedule(t, year, 10, 60e3, 0.00001)
	var env *Environment
	if n := allocated(func() { env, err = ParseEnvironment(ten) }); err != nil || n > 8<<20 {
		t.Fatalf("reading 10 rates repeated allocated %d bytes: %v", n, err)
	}
	var tl *timeline
	if n := allocated(func() { tl = newTimeline(env, 1) }); n > 8<<20 {
		t.Errorf("drawing %d arrivals allocated %d bytes", len(tl.arrivals), n)
	}
	// The count over one period is the count over every period's: 0.00001
	// a minute over a year.
	if got, want := env.expectedTurns(), 0.00001*year/60e3; fmt.Sprintf("%.6g", got) != fmt.Sprintf("%.6g", want) {
		t.Errorf("expected turns %v, want %v", got, want)
	}
}

// TestIncidentsBoundedInTotal: each kind's incidents were bounded, not
// their sum: kinds of 600,000 incidents each held millions.
func TestIncidentsBoundedInTotal(t *testing.T) {
	kind := IncidentKind{PerHour: 600_000.0 / (24 * 7), ForMs: fixed(1000), Code: "SERVER"} // 600,000 over a week
	env := &Environment{HorizonMs: 7 * 24 * 3600e3, Arrivals: &Arrivals{PerMinute: 0.01}, Incidents: []IncidentKind{kind}}
	if err := env.Validate(); err != nil {
		t.Fatalf("one kind: %v", err)
	}
	env.Incidents = append(env.Incidents, kind)
	want := "incidents[1].perHour: 3571.4285714285716 an hour brings the incidents expected over the horizon, with the kinds before it, to 1200002, more than the 1000000 a run takes"
	if diff := cmp.Diff(want, errText(env.Validate())); diff != "" {
		t.Errorf("two kinds (-want +got):\n%s", diff)
	}
}

// TestWorkloadResultsBoundedInTotal: a turn's history and log hold every
// tool result of its steps at once, so their sum is bounded
// (--max-total-result-chars, as a scenario's), not only each one (100
// steps of 16 M characters, each under --max-result-chars, took 2.5 GB in
// 4 s).
func TestWorkloadResultsBoundedInTotal(t *testing.T) {
	tests := []struct{ why, env, want string }{
		{"100 results of 16 M", `{"workload":{"toolSteps":100,"resultChars":16000000}}`,
			"workload: a turn's tool results, toolSteps × resultChars = 100 × 16000000 = 1600000000 characters, is over the limit of 67108864 (raise it with --max-total-result-chars)"},
		{"100 results whose sum is within", `{"workload":{"toolSteps":100,"resultChars":671088}}`, "no error"},
		{"each result is still bounded on its own", `{"workload":{"toolSteps":1,"resultChars":16777217}}`,
			"workload.resultChars: 16777217 is over the limit of 16777216 (raise it with --max-result-chars)"},
		{"no tool step: its results are never made", `{"workload":{"toolSteps":0,"resultChars":16777216}}`, "no error"},
	}
	for _, tt := range tests {
		_, err := ParseEnvironment([]byte(tt.env))
		if diff := cmp.Diff(tt.want, errText(err)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.why, diff)
		}
	}
	withLimits(t, func(l *limits.Limits) { l.TotalResultChars = 1 << 31 })
	if _, err := ParseEnvironment([]byte(tests[0].env)); err != nil {
		t.Errorf("under --max-total-result-chars 2147483648: %v", err)
	}
}

// TestScriptedAttemptsBounded: a normal-mode budget past what a turn can
// spend within its bound on events is refused (DSH takes 2^53−1, which
// under p = 1 scripted every attempt up front and ran out of memory, then
// summed its recovery bounds term by term without end); the largest one
// a turn can spend is scripted in full.
func TestScriptedAttemptsBounded(t *testing.T) {
	p := retry.DefaultPolicy()
	p.MaxRetries = 1<<53 - 1
	c := Config{Recovery: sim.Recovery{RetryPolicy: p}, Env: &Environment{Failures: []Failure{{Code: "SERVER", P: 1}}}}
	want := fmt.Sprintf("policy: maxRetries: 9007199254740991 is more retries than a turn can make within its bound of 500000 events (16 an attempt): at most %d", maxBudgetRetries)
	if diff := cmp.Diff(want, errText(c.Validate())); diff != "" {
		t.Errorf("Validate (-want +got):\n%s", diff)
	}
	p.MaxRetries = maxBudgetRetries
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	s, _ := c.world(1, nil)
	if len(s.Requests) != maxBudgetRetries+1 || s.MaxEvents > eventCeiling {
		t.Errorf("%d requests scripted, want %d; %d events allowed", len(s.Requests), maxBudgetRetries+1, s.MaxEvents)
	}
}

// TestUniformOfTwo: a uniform is [low, high]; an array of another length
// was read as if padded or cut ([1] as [1 0], [1,2,3] as [1 2]).
func TestUniformOfTwo(t *testing.T) {
	tests := []struct{ why, env, want string }{
		{"one value", `{"latencyMs":{"uniform":[1]}}`, "invalid environment: latencyMs.uniform: must be an array of 2 values, got 1 value"},
		{"three values", `{"failures":[{"code":"RATE_LIMIT","p":0.1,"retryAfterMs":{"uniform":[1,2,3]}}]}`, "invalid environment: failures[0].retryAfterMs.uniform: must be an array of 2 values, got 3 values"},
		{"none", `{"latencyMs":{"uniform":[]}}`, "invalid environment: latencyMs.uniform: must be an array of 2 values, got 0 values"},
		{"two", `{"latencyMs":{"uniform":[1,2]}}`, "no error"},
		{"a value of the wrong kind is still named where it is", `{"latencyMs":{"uniform":[1,"a"]}}`, `invalid environment: latencyMs.uniform[1]: must be a number, got a string "a"`},
	}
	for _, tt := range tests {
		_, err := ParseEnvironment([]byte(tt.env))
		if diff := cmp.Diff(tt.want, errText(err)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.why, diff)
		}
	}
}

// TestNumberReadable: a figure in a message is as a file writes it, but
// a huge or tiny one is not hundreds of digits.
func TestNumberReadable(t *testing.T) {
	tests := []struct {
		why  string
		v    float64
		want string
	}{
		{"an ordinary figure in full, not 4e+06", 4e6, "4000000"},
		{"a fraction", 0.25, "0.25"},
		{"a year in ms", 31622400000, "31622400000"},
		{"1e308 was 309 digits", 1e308, "1e+308"},
		{"from 1e21, as JavaScript", 1e21, "1e+21"},
		{"below 1e-6", 5e-7, "5e-07"},
		{"zero", 0, "0"},
		{"a negative one", -1e300, "-1e+300"},
	}
	for _, tt := range tests {
		if got := number(tt.v); got != tt.want {
			t.Errorf("%s: number(%v) = %q, want %q", tt.why, tt.v, got, tt.want)
		}
	}
	if _, err := ParseEnvironment([]byte(`{"horizonMs":1e308,"arrivals":{"perMinute":1}}`)); err == nil || !strings.HasSuffix(err.Error(), "got 1e+308") {
		t.Errorf("a horizon of 1e308: %v", err)
	}
}
