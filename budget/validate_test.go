package budget

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/sim"
)

// runMethods are every way the Go API runs a configuration, each giving
// the error it returned (Check's, as the failure it gave its TB). Each is
// asked for 3 turns; path is where a trace would go.
func runMethods(path string) []struct {
	name string
	run  func(Config) error
} {
	return []struct {
		name string
		run  func(Config) error
	}{
		{"Run", func(c Config) error { _, err := c.Run(context.Background(), 1, 3); return err }},
		{"Turn", func(c Config) error { _, err := c.Turn(1); return err }},
		{"Trace", func(c Config) error { return c.Trace(1, path) }},
		{"TraceTurn", func(c Config) error { _, err := c.TraceTurn(1, 0, path); return err }},
		{"Check", func(c Config) error {
			var tb recordingTB
			c.checkInto(&tb, 1, 3, Exhaustion.Below(1))
			if len(tb.errors) != 1 {
				return errors.New("Check gave " + strings.Join(tb.errors, " | "))
			}
			return errors.New(strings.TrimPrefix(tb.errors[0], "budget: "))
		}},
	}
}

// TestGoValuesAreValidatedAsFilesAre: a configuration built in Go is held
// to what its file would be, by every run method, with the error the
// loader gives for the same content (prefixed with the part it is in);
// none of them panics, runs out of memory, or runs and blames the loop.
func TestGoValuesAreValidatedAsFilesAre(t *testing.T) {
	withPolicy := func(edit func(p *loop.RetryPolicy)) *loop.RetryPolicy {
		p := retry.DefaultPolicy()
		edit(p)
		return p
	}
	server := func(f Failure) *Environment { return &Environment{Failures: []Failure{f}} }
	nan := math.NaN()
	compaction := compact.DefaultConfig()
	noTokens := compact.Config{MaxOverflowRetries: 1}
	tests := []struct {
		why string
		cfg Config
		// twin is the same content as a file: want is then the loader's
		// error for it, prefixed "policy: " or "environment: ".
		twinPolicy, twinEnv string
		want                string // when the content has no file form
	}{
		{why: "P2: MaxRetries past a safe integer panicked with an index out of range",
			cfg:        Config{Recovery: sim.Recovery{RetryPolicy: withPolicy(func(p *loop.RetryPolicy) { p.MaxRetries = math.MaxInt })}, Env: server(Failure{Code: "SERVER", P: 0.5})},
			twinPolicy: `{"maxRetries":9223372036854775807}`},
		{why: "P3: a horizon without arrivals dereferenced nil",
			cfg: Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: &Environment{HorizonMs: 1000}}, twinEnv: `{"horizonMs":1000}`},
		{why: "S7: a probability of 7 ran as always failing",
			cfg: Config{Env: server(Failure{Code: "SERVER", P: 7})}, twinEnv: `{"failures":[{"code":"SERVER","p":7}]}`},
		{why: "S7: a NaN probability, which no file can write",
			cfg: Config{Env: server(Failure{Code: "SERVER", P: nan})}, want: "environment: failures[0].p: must be in [0,1], got NaN"},
		{why: "S7: a status of -1",
			cfg: Config{Env: server(Failure{Code: "SERVER", Status: -1, P: 0.1})}, twinEnv: `{"failures":[{"code":"SERVER","status":-1,"p":0.1}]}`},
		{why: "S7: a mode of neither normal nor always",
			cfg: Config{Recovery: sim.Recovery{RetryPolicy: withPolicy(func(p *loop.RetryPolicy) { p.Mode = "bogus" })}}, twinPolicy: `{"mode":"bogus"}`},
		{why: "S7: a negative budget",
			cfg: Config{Recovery: sim.Recovery{RetryPolicy: withPolicy(func(p *loop.RetryPolicy) { p.MaxRetries = -1 })}}, twinPolicy: `{"maxRetries":-1}`},
		{why: "S7: a NaN delay gave 8 violations blamed on the loop; no file can write one",
			cfg:  Config{Recovery: sim.Recovery{RetryPolicy: withPolicy(func(p *loop.RetryPolicy) { p.InitialDelayMs = nan })}, Env: server(Failure{Code: "SERVER", P: 0.5})},
			want: "policy: backoff.initialDelayMs: must be a finite number, got NaN"},
		{why: "S7: a negative delay",
			cfg: Config{Recovery: sim.Recovery{RetryPolicy: withPolicy(func(p *loop.RetryPolicy) { p.InitialDelayMs = -5 })}}, twinPolicy: `{"backoff":{"initialDelayMs":-5}}`},
		{why: "S7: a NaN latency",
			cfg: Config{Env: &Environment{LatencyMs: &Distribution{Fixed: &nan}}}, want: "environment: latencyMs.fixed: must be ≥ 0, got NaN"},
		{why: "S7: a negative Retry-After",
			cfg:     Config{Env: server(Failure{Code: "RATE_LIMIT", P: 0.1, RetryAfterMs: fixed(-1)})},
			twinEnv: `{"failures":[{"code":"RATE_LIMIT","p":0.1,"retryAfterMs":{"fixed":-1}}]}`},
		{why: "M4: a horizon of +Inf ran out of memory (23 GB)",
			cfg:  Config{Env: &Environment{HorizonMs: math.Inf(1), Arrivals: &Arrivals{PerMinute: 1}}},
			want: "environment: horizonMs: must be > 0 and at most a year, 31622400000 ms (a ceiling of its own: --max-duration-ms bounds the times each turn meets from its arrival, not the stretch turns arrive over), got +Inf"},
		{why: "M4: a billion turns a minute over a day ran out of memory",
			cfg:     Config{Env: &Environment{HorizonMs: 86400000, Arrivals: &Arrivals{PerMinute: 1e9}}},
			twinEnv: `{"horizonMs":86400000,"arrivals":{"perMinute":1e9}}`},
		{why: "a schedule repeated every +Inf ms expected NaN turns, which no bound refused",
			cfg:  Config{Env: &Environment{HorizonMs: 86400000, Arrivals: &Arrivals{RepeatEveryMs: math.Inf(1), Schedule: []Rate{{FromMs: 0, PerMinute: 1e9}}}}},
			want: "environment: arrivals.repeatEveryMs: must be finite, got +Inf"},
		{why: "a rate of +Inf a minute",
			cfg:  Config{Env: &Environment{HorizonMs: 86400000, Arrivals: &Arrivals{Schedule: []Rate{{FromMs: 0, PerMinute: 1}, {FromMs: 1000, PerMinute: math.Inf(1)}}}}},
			want: "environment: arrivals.schedule[1].perMinute: must be finite, got +Inf"},
		{why: "S1: a latency of 1e300 ms gave turn-terminates and log-well-formed violations",
			cfg: Config{Env: &Environment{LatencyMs: fixed(1e300)}}, twinEnv: `{"latencyMs":{"fixed":1e300}}`},
		{why: "a bundle's compaction is read as a bundle's file is",
			cfg: Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy(), Compaction: &noTokens}}, twinPolicy: `{"retryPolicy":{},"compaction":{"maxOverflowRetries":1,"maxTokens":0}}`},
		{why: "a listener order naming nothing registered once ran with no listener at all",
			cfg:  Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy(), Compaction: &compaction, ListenerOrder: []string{"compaction", "bogus"}}},
			want: `policy: listenerOrder[1]: unknown listener "bogus" (built in: retry, compaction, always-retry, throw, cancel-then-next, cancel-then-retry; plugged in: none)`},
		{why: "a listener without a constructor panicked inside every turn",
			cfg: Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Listeners: []sim.Listener{{Name: "mine"}}}, want: `listeners: listener "mine" has no constructor (New)`},
	}
	path := filepath.Join(t.TempDir(), "turn.jsonl")
	for _, tt := range tests {
		want := tt.want
		switch {
		case tt.twinPolicy != "":
			_, err := ParsePolicy([]byte(tt.twinPolicy))
			if err == nil {
				t.Fatalf("%s: the twin %s is accepted", tt.why, tt.twinPolicy)
			}
			want = "policy: " + err.Error()
		case tt.twinEnv != "":
			_, err := ParseEnvironment([]byte(tt.twinEnv))
			if err == nil {
				t.Fatalf("%s: the twin %s is accepted", tt.why, tt.twinEnv)
			}
			want = "environment: " + err.Error()
		}
		if diff := cmp.Diff(want, errText(tt.cfg.Validate())); diff != "" {
			t.Errorf("%s: Validate (-want +got):\n%s", tt.why, diff)
		}
		for _, m := range runMethods(path) {
			if diff := cmp.Diff(want, errText(m.run(tt.cfg))); diff != "" {
				t.Errorf("%s: %s (-want +got):\n%s", tt.why, m.name, diff)
			}
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s: a trace was written", tt.why)
			os.Remove(path)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// TestRunsOfNoTurnRefused: a per-turn run of no turn measures nothing and
// held every bound (Check(tb, 1, 0, "exhaustion<0.001") passed); under a
// horizon runs is not read.
func TestRunsOfNoTurnRefused(t *testing.T) {
	cfg := Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: &Environment{Failures: []Failure{{Code: "SERVER", P: 1}}}}
	for _, runs := range []int{0, -5} {
		_, err := cfg.Run(context.Background(), 1, runs)
		if diff := cmp.Diff("runs: a run measures at least 1 turn, got "+strconv.Itoa(runs), errText(err)); diff != "" {
			t.Errorf("runs %d (-want +got):\n%s", runs, diff)
		}
		var tb recordingTB
		cfg.checkInto(&tb, 1, runs, Exhaustion.Below(0.001))
		if len(tb.errors) != 1 || !strings.Contains(tb.errors[0], "runs: a run measures at least 1 turn") {
			t.Errorf("Check over %d turns: %q", runs, tb.errors)
		}
	}
}

// TestFilesValidateInGo: what a loader accepts, Validate accepts: reading
// a policy back through its file form loses nothing (an always-mode
// policy has no budget nor codes, a bundle's compaction its pruner).
func TestFilesValidateInGo(t *testing.T) {
	pruned := compact.DefaultConfig()
	pruned.Pruner = compact.DefaultPruner()
	always := &loop.RetryPolicy{Mode: loop.ModeAlways, InitialDelayMs: 500, MaxDelayMs: 1000, JitterRatio: 0.1}
	for _, c := range []Config{
		{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}},
		{Recovery: sim.Recovery{RetryPolicy: always}},
		{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy(), Compaction: &pruned, ListenerOrder: []string{"compaction", "retry"}}},
		{Recovery: sim.Recovery{Compaction: &pruned}},
		{}, // no policy, no environment: nothing fails, nothing retries
	} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	paths, _ := filepath.Glob(filepath.Join("..", "examples", "budget", "*.json"))
	for _, path := range paths {
		var c Config
		if env, err := LoadEnvironment(path); err == nil {
			c.Env = env
		} else if c, err = LoadPolicy(path); err != nil {
			t.Fatalf("%s is neither an environment nor a policy: %v", path, err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}
