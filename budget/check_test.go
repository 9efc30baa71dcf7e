package budget

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// recordingTB collects what a test of one's own would fail with: the
// failures Assess gives (budgettest.Check fails a test with each).
type recordingTB struct{ errors []string }

// checkInto is budgettest.Check on a recorder, within the package.
func (c Config) checkInto(tb *recordingTB, seed uint64, runs int, bounds ...Bound) Report {
	r, failures := c.Assess(seed, runs, bounds...)
	tb.errors = append(tb.errors, failures...)
	return r
}

// TestCheckReportsAnAuthorsBug: a listener of the author's that answers
// retry to everything, without a budget, never lets a turn end under a
// permanent outage; Check names the seed, the invariant and how to get the
// log, and Trace writes a log that reads back.
func TestCheckReportsAnAuthorsBug(t *testing.T) {
	always := sim.Listener{Name: "retry-everything", Place: sim.Outermost, MaxRetries: sim.Unbounded, New: func(sim.Env) loop.RequestErrorListener {
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) { return loop.Retry, nil }
	}}
	// As long an outage as the duration limit allows: permanent, for a turn.
	cfg := Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: &Environment{Outages: []Outage{{FromMs: 0, ForMs: limits.Current.DurationMs, Code: "SERVER"}}},
		Listeners: []sim.Listener{always}}
	var tb recordingTB
	r := cfg.checkInto(&tb, 1, 3, Violations.Below(1))
	if len(r.Violations) != 3 || len(tb.errors) != 4 {
		t.Fatalf("%d violations, errors:\n%s", len(r.Violations), strings.Join(tb.errors, "\n"))
	}
	if !strings.HasPrefix(tb.errors[0], "turn seed 0x1: turn-terminates: ") || !strings.Contains(tb.errors[0], `cfg.TraceTurn(0x1, 0, "turn.jsonl") returns its violations`) {
		t.Errorf("first error: %s", tb.errors[0])
	}
	if tb.errors[3] != `bound violations<1 fails: violations = 3 over 3 turns from seed 0x1; turns that did not complete include 0, 1, 2 (cfg.TraceTurn(0x1, N, "turn.jsonl") writes turn N's log)` {
		t.Errorf("bound error: %s", tb.errors[3])
	}
	path := filepath.Join(t.TempDir(), "turn.jsonl")
	if err := cfg.Trace(1, path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, events, err := session.ReadAll(f, session.ReadOptions{}); err != nil || len(events) == 0 {
		t.Errorf("the trace reads back with %d events, %v", len(events), err)
	}
}

// TestCheckPassesACorrectListener: a listener that owns nothing passes
// every failure on; the figures are llm-retry's, and Check is quiet.
func TestCheckPassesACorrectListener(t *testing.T) {
	passOn := sim.Listener{Name: "observer", New: func(sim.Env) loop.RequestErrorListener {
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) { return next() }
	}}
	env := &Environment{Failures: []Failure{{Code: "SERVER", Status: 503, P: 0.5}}}
	var tb recordingTB
	with := Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: env, Listeners: []sim.Listener{passOn}}.checkInto(&tb, 1, 300, Exhaustion.Below(0.1))
	without := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: env}, 1, 300)
	if len(tb.errors) > 0 || with.Exhausted != without.Exhausted || with.Completed != without.Completed {
		t.Errorf("errors %v; with the listener %+v, without %+v", tb.errors, with, without)
	}
}

// ExampleConfig_Run: a policy author's own listener, outermost, that
// retries RATE_LIMIT once without waiting and leaves everything else to
// llm-retry (DSH's default policy, which does not retry RATE_LIMIT
// here: the environment's Retry-After is over its cap).
func ExampleConfig_Run() {
	over := 20000.0
	env := &Environment{Failures: []Failure{{Code: "RATE_LIMIT", Status: 429, P: 0.5, RetryAfterMs: &Distribution{Fixed: &over}}}}
	once := sim.Listener{Name: "rate-limit-once", Place: sim.Outermost, MaxRetries: 1, New: func(sim.Env) loop.RequestErrorListener {
		retried := false // per run: one turn
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			if ev.Failure.Code == "RATE_LIMIT" && !retried {
				retried = true
				return loop.Retry, nil
			}
			return next()
		}
	}}
	without, err := Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: env}.Run(context.Background(), 1, 1000)
	if err != nil {
		fmt.Println(err) // a policy, environment or listener that a file could not give
		return
	}
	with, err := Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: env, Listeners: []sim.Listener{once}}.Run(context.Background(), 1, 1000)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("without: %d of 1000 turns failed\n", without.FailedAtOnce+without.Exhausted)
	fmt.Printf("with:    %d of 1000 turns failed, %d violations\n", with.FailedAtOnce+with.Exhausted, len(with.Violations))
	// Output:
	// without: 491 of 1000 turns failed
	// with:    252 of 1000 turns failed, 0 violations
}

// TestCheckNamesATimedTurn: over a horizon, a turn is replayed by its
// place in the run, not its seed alone (its incidents depend on when it
// ran): Check's message names TraceTurn, and TraceTurn writes the turn
// that met the outage.
func TestCheckNamesATimedTurn(t *testing.T) {
	always := sim.Listener{Name: "retry-everything", Place: sim.Outermost, MaxRetries: sim.Unbounded, New: func(sim.Env) loop.RequestErrorListener {
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) { return loop.Retry, nil }
	}}
	env := &Environment{HorizonMs: 600e3, Arrivals: &Arrivals{PerMinute: 2}, Outages: []Outage{{FromMs: 300e3, ForMs: 240e3, Code: "SERVER"}}}
	cfg := Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: env, Listeners: []sim.Listener{always}}
	var tb recordingTB
	r := cfg.checkInto(&tb, 1, 0)
	// The first five violating turns one by one, then a count.
	if len(r.Violations) <= failuresShown || len(r.Violations) == r.Turns || len(tb.errors) != failuresShown+1 ||
		tb.errors[failuresShown] != fmt.Sprintf("and %d more turns the oracle failed, of %d", len(r.Violations)-failuresShown, r.Turns) {
		t.Fatalf("%d violations of %d turns, errors:\n%s", len(r.Violations), r.Turns, strings.Join(tb.errors, "\n"))
	}
	first := r.Violations[0]
	if want := fmt.Sprintf("turn %d (seed %#x): ", first.Index, first.Seed); !strings.HasPrefix(tb.errors[0], want) || !strings.Contains(tb.errors[0], fmt.Sprintf("replay it: cfg.TraceTurn(0x1, %d, \"turn.jsonl\")", first.Index)) {
		t.Errorf("error %q, want it to begin %q and name TraceTurn", tb.errors[0], want)
	}
	path := filepath.Join(t.TempDir(), "turn.jsonl")
	vs, err := cfg.TraceTurn(1, first.Index, path)
	if err != nil {
		t.Fatal(err)
	}
	// The replay gives the run's verdict again.
	if diff := cmp.Diff(first.Violations, vs); diff != "" {
		t.Errorf("TraceTurn's violations differ from the run's (-run +replay):\n%s", diff)
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), `"code":"SERVER"`) {
		t.Errorf("turn %d's trace never met the outage", first.Index)
	}
	// Its times are the horizon's: it begins where it arrived.
	f, _ := os.Open(path)
	defer f.Close()
	header, events, err := session.ReadAll(f, session.ReadOptions{})
	arrival := newTimeline(env, 1).arrivals[first.Index]
	if want := sim.Epoch.UnixMilli() + int64(math.Round(arrival)); err != nil || header.CreatedAt != want || events[0].Time != want {
		t.Errorf("the trace begins at %d (events at %d, %v), want %d: the turn arrived %.0f ms into the horizon", header.CreatedAt, events[0].Time, err, want, arrival)
	}
}

// TestAListenerThatBlocksEndsTheRun: a listener of the author's that waits
// on the real world (here the turn signal, which only the world cancels,
// and the world waits for the listener) makes Run return an error naming
// it and the turn, once the watchdog's real time has passed, for a
// per-turn environment and over a horizon (Run once hung with no
// message), and Check fails with it.
func TestAListenerThatBlocksEndsTheRun(t *testing.T) {
	waits := sim.Listener{Name: "waits", Place: sim.Outermost, New: func(sim.Env) loop.RequestErrorListener {
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			<-ev.Signal.Done()
			return next()
		}
	}}
	perTurn := &Environment{Failures: []Failure{{Code: "SERVER", Status: 503, P: 1}}}
	horizon := &Environment{Failures: perTurn.Failures, HorizonMs: 600e3, Arrivals: &Arrivals{PerMinute: 2}}
	for _, tt := range []struct {
		why  string
		env  *Environment
		want string
	}{
		{"a per-turn environment", perTurn, `turn 0 (seed 0x1): listener "waits" blocked outside virtual time: no answer after 20ms of real time`},
		{"over a horizon", horizon, `turn 0 (seed 0x1): listener "waits" blocked outside virtual time`},
	} {
		t.Run(tt.why, func(t *testing.T) {
			cfg := Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: tt.env, Listeners: []sim.Listener{waits}, BlockedAfter: 20 * time.Millisecond}
			r, err := cfg.Run(t.Context(), 1, 100)
			var blocked *BlockedError
			if !errors.As(err, &blocked) || !strings.HasPrefix(err.Error(), tt.want) || blocked.Listener != "waits" || blocked.Turn != 0 || blocked.Seed != 1 {
				t.Fatalf("Run: %v (%+v), want a BlockedError of turn 0, seed 1 and listener waits, beginning %q", err, blocked, tt.want)
			}
			if !r.Interrupted || r.Turns != 0 {
				t.Errorf("the report: %d turns, interrupted %v; want the turns before the block, marked interrupted", r.Turns, r.Interrupted)
			}
			var tb recordingTB
			cfg.checkInto(&tb, 1, 100)
			if len(tb.errors) != 1 || !strings.Contains(tb.errors[0], `listener "waits" blocked outside virtual time`) {
				t.Errorf("Check reports %q", tb.errors)
			}
		})
	}
	if _, err := (Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: perTurn, Listeners: []sim.Listener{waits}, BlockedAfter: 20 * time.Millisecond}).Turn(7); err == nil ||
		!strings.HasPrefix(err.Error(), `turn seed 0x7: listener "waits" blocked`) {
		t.Errorf("Turn: %v", err)
	}
}

// TestCheckNamesWhatIsNoBound: a bound built in Go of a figure the
// package has not fails the test with what ParseBound would say of its
// text; the bounds beside it are checked still.
func TestCheckNamesWhatIsNoBound(t *testing.T) {
	var tb recordingTB
	Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}}.checkInto(&tb, 1, 10, Figure("exhaustion_high").Below(0.1), Exhaustion.Above(0.5))
	want := []string{
		`bound "exhaustion_high<0.1": unknown figure "exhaustion_high" (known: aborted, amplification, exhausted_share, exhaustion, exhaustion_hi, failed_at_once_share, max_recovery_ms, p50_recovery_ms, p90_recovery_ms, p99_recovery_ms, violations)`,
		`bound exhaustion>0.5 fails: exhaustion = 0 over 10 turns from seed 0x1`,
	}
	if diff := cmp.Diff(want, tb.errors); diff != "" {
		t.Errorf("Check's failures (-want +got):\n%s", diff)
	}
}
