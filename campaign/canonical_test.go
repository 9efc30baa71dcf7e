package campaign

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// drawnLike is a plan with a configuration far from DSH's defaults, the
// way a seed draws one.
func drawnLike() *sim.Scenario {
	s := sim.Default()
	s.RetryPolicy = &loop.RetryPolicy{Mode: loop.ModeNormal, MaxRetries: 6,
		RetryableCodes: []string{"EMPTY_RESPONSE", "RATE_LIMIT", "SERVER", "TIMEOUT", "TRANSPORT", "STREAM_CLOSED", "AUTH"},
		InitialDelayMs: 10, MaxDelayMs: 200, JitterRatio: 1}
	s.Compaction = &compact.Config{MaxOverflowRetries: 2, MaxTokens: 8192, Pruner: compact.DefaultPruner()}
	s.ListenerOrder = []string{sim.ListenerThrow, sim.ListenerCompaction, sim.ListenerRetry}
	s.StreamIdleTimeoutMs, s.EnforceContextWindow, s.ContextWindow = 1418, true, 2200
	s.Inputs = []sim.Input{{Kind: "send", Text: "hi"}, {Kind: "followup", Text: "again", Trigger: sim.Trigger{AtMs: 60000}}}
	s.Outages = []sim.Outage{{FromMs: 0, ToMs: 20000, Fail: session.LlmFailure{Code: "SERVER", Message: "provider outage"}}}
	return s
}

// TestShortenTimesBisects: an outage becomes exactly as short, an input
// exactly as early, and an enforced context window exactly as small, as
// the plan's failure allows, however the seed drew them (halving stopped
// anywhere between).
func TestShortenTimesBisects(t *testing.T) {
	tests := []struct {
		name          string
		minOutage     float64 // the shortest outage that keeps it failing
		earliestInput float64 // the earliest followup that does
	}{
		{"a long outage is needed, a late input", 12345, 59999},
		{"the shortest outage, the earliest input", 1, 1},
		{"an odd length just below the drawn one", 19999, 30001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := 0
			keeps := func(c *sim.Scenario) bool {
				runs++
				return c.Outages[0].ToMs-c.Outages[0].FromMs >= tt.minOutage && c.Inputs[1].AtMs >= tt.earliestInput && c.ContextWindow >= 1000
			}
			got, changed := shortenTimes(drawnLike(), Keep{}, keeps)
			if !changed {
				t.Fatal("nothing changed")
			}
			if l := got.Outages[0].ToMs - got.Outages[0].FromMs; l != tt.minOutage {
				t.Errorf("outage of %v ms, want %v", l, tt.minOutage)
			}
			if at := got.Inputs[1].AtMs; at != tt.earliestInput {
				t.Errorf("followup at %v ms, want %v", at, tt.earliestInput)
			}
			if got.ContextWindow != 1000 {
				t.Errorf("context window %d, want 1000", got.ContextWindow)
			}
			if runs > 16+16+12 {
				t.Errorf("%d runs: bisection of two numbers below 2^16 and one below 2^12 takes at most 44", runs)
			}
		})
	}
}

// TestCanonicalConfig: a configuration that does not matter to the
// failure ends at DSH's defaults (with the smallest retry budget), and
// what Keep names stays as drawn.
func TestCanonicalConfig(t *testing.T) {
	always := func(*sim.Scenario) bool { return true }
	canonical := sim.Default().RetryPolicy
	canonical.MaxRetries, canonical.JitterRatio = 0, 0
	tests := []struct {
		name       string
		keep       Keep
		wantPolicy *loop.RetryPolicy
		wantOrder  []string
		wantSame   bool
	}{
		{"all of it moves", Keep{}, canonical,
			[]string{sim.ListenerRetry, sim.ListenerCompaction, sim.ListenerThrow}, false},
		{"a pinned policy stays", Keep{Policy: true}, drawnLike().RetryPolicy,
			[]string{sim.ListenerRetry, sim.ListenerCompaction, sim.ListenerThrow}, false},
		{"a configuration of one's own stays whole", Keep{Config: true}, drawnLike().RetryPolicy,
			drawnLike().ListenerOrder, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := drawnLike()
			for changed := true; changed; {
				got, changed = canonicalConfig(got, tt.keep, always)
			}
			if diff := cmp.Diff(tt.wantPolicy, got.RetryPolicy); diff != "" {
				t.Errorf("policy (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantOrder, got.ListenerOrder); diff != "" {
				t.Errorf("listener order (-want +got):\n%s", diff)
			}
			if tt.wantSame {
				if diff := cmp.Diff(drawnLike(), got); diff != "" {
					t.Errorf("the configuration changed (-want +got):\n%s", diff)
				}
				return
			}
			d := sim.Default()
			if diff := cmp.Diff(d.Compaction, got.Compaction); diff != "" {
				t.Errorf("compaction (-want +got):\n%s", diff)
			}
			if got.StreamIdleTimeoutMs != d.StreamIdleTimeoutMs || got.EnforceContextWindow || got.ContextWindow != d.ContextWindow {
				t.Errorf("idle timeout %v, context window %d enforced %v: want DSH's defaults",
					got.StreamIdleTimeoutMs, got.ContextWindow, got.EnforceContextWindow)
			}
		})
	}
}

// TestCanonicalConfigKeepsWhatTheFailureNeeds: a move that would make the
// plan pass is not made, and the rest still are.
func TestCanonicalConfigKeepsWhatTheFailureNeeds(t *testing.T) {
	needsAuthRetried := func(c *sim.Scenario) bool {
		return c.RetryPolicy != nil && slices.Contains(c.RetryPolicy.RetryableCodes, "AUTH") && c.RetryPolicy.MaxRetries >= 2
	}
	got := drawnLike()
	for changed := true; changed; {
		got, changed = canonicalConfig(got, Keep{}, needsAuthRetried)
	}
	want := []string{"EMPTY_RESPONSE", "RATE_LIMIT", "SERVER", "TIMEOUT", "TRANSPORT", "AUTH"}
	if diff := cmp.Diff(want, got.RetryPolicy.RetryableCodes); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if got.RetryPolicy.MaxRetries != 2 || got.RetryPolicy.InitialDelayMs != sim.Default().RetryPolicy.InitialDelayMs {
		t.Errorf("maxRetries %d, initial delay %v: want 2 and DSH's default backoff", got.RetryPolicy.MaxRetries, got.RetryPolicy.InitialDelayMs)
	}
}
