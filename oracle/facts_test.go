package oracle_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/oracle"
)

// threeAttempts writes a step of two failed attempts and a third that
// completes, with the port's and the waterfall's facts of it: the
// attempts-within-policy rows differ only in the listeners' budgets and
// answers.
func threeAttempts(b *logBuilder, facts *oracle.Facts) (f1, f2 int64) {
	f1 = b.fail(1, 1, "SERVER", "busy")
	f2 = b.fail(1, 1, "SERVER", "busy")
	b.complete(1, 1)
	facts.Requests = []oracle.Request{{Seq: f1, Order: 1, Turn: 1, Step: 1, Attempt: 1}, {Seq: f2, Order: 3, Turn: 1, Step: 1, Attempt: 2},
		{Seq: f2 + 1, Order: 5, Turn: 1, Step: 1, Attempt: 3}}
	facts.Waterfalls = []oracle.Waterfall{{Seq: f1 + 1, Order: 2, Retry: true}, {Seq: f2 + 1, Order: 4, Retry: true}}
	return f1, f2
}

// TestFactsViolations: the invariants that read run facts fire when the
// facts show a violation, and stay quiet on the same log without them.
func TestFactsViolations(t *testing.T) {
	noFacts := func() *oracle.Facts { return &oracle.Facts{MaxOverflowRetries: 1, IdleAfterDisposal: -1} }
	tests := []struct {
		why string
		// bare: the log starts empty, not with turn 1's first step (begin).
		bare bool
		// build writes the log, and the run's facts beside it.
		build func(b *logBuilder, facts *oracle.Facts)
		want  []oracle.ID
	}{
		{"a cancel took effect mid-step, then a listener's retry ran another attempt", false, func(b *logBuilder, facts *oracle.Facts) {
			f := b.fail(1, 1, "SERVER", "busy")
			b.complete(1, 1)
			facts.Actions = []oracle.Action{{Seq: f + 1, Kind: "cancel", Cause: "user"}}
		}, []oracle.ID{oracle.CancelledTurnNeverRetries}},
		{"a disposed turn that ends aborted for another cause", false, func(b *logBuilder, facts *oracle.Facts) {
			f := b.fail(1, 1, "SERVER", "busy")
			b.stepEnd(1, 1)
			b.turnEnd(1, abortedBy)
			facts.Actions = []oracle.Action{{Seq: f + 1, Kind: "dispose"}}
		}, []oracle.ID{oracle.CancelledTurnNeverRetries}},
		{"compaction retried twice with maxOverflowRetries 1 and no model message between", false, func(b *logBuilder, facts *oracle.Facts) {
			var decisions []oracle.Decision
			for n := 0; n < 2; n++ {
				b.fail(1, 1, "CONTEXT_WINDOW_EXCEEDED", "too long")
				b.add(`{"type":"compaction/start","data":{"compactionId":"c%d","turn":1}}`, n)
				b.add(`{"type":"compaction/summary","data":{"compactionId":"c%d","summary":[],"shadowedRange":{"start":%d,"end":%d},"shadowedSeqs":[%d],"shadowedTokenCount":10,"provider":"mock","model":"m"}}`, n, 0, 0, 0)
				b.add(`{"type":"user/message","data":{"content":[],"source":{"kind":"plugin","plugin":"compact","compactionId":"c%d"},"role":"user","id":"cp%d"},"surfaceOp":{"op":"replace","start":0,"end":0}}`, n, n)
				end := b.add(`{"type":"compaction/end","data":{"compactionId":"c%d","turn":1}}`, n)
				decisions = append(decisions, oracle.Decision{Seq: end + 1, Listener: oracle.CompactionListener, Retry: true})
			}
			b.complete(1, 1)
			facts.Decisions = decisions
		}, []oracle.ID{oracle.LogWellFormed, oracle.OverflowRecoveryBounded}}, // the test's replace ranges are not on the surface either
		{"compaction answered retry after a summary that failed without a prune", false, func(b *logBuilder, facts *oracle.Facts) {
			b.fail(1, 1, "CONTEXT_WINDOW_EXCEEDED", "too long")
			b.add(`{"type":"compaction/start","data":{"compactionId":"c","turn":1}}`)
			end := b.add(`{"type":"compaction/end","data":{"compactionId":"c","turn":1,"error":"summary unavailable"}}`)
			b.complete(1, 1)
			facts.Decisions = []oracle.Decision{{Seq: end + 1, Listener: oracle.CompactionListener, Retry: true}}
		}, []oracle.ID{oracle.OverflowRecoveryBounded}},
		{"the world stopped a run at its bound", false, func(b *logBuilder, facts *oracle.Facts) {
			b.complete(1, 1)
			facts.Stopped = "stopped at the bound of 10 events"
		}, []oracle.ID{oracle.TurnTerminates}},
		{"an event after the disposed agent went idle", false, func(b *logBuilder, facts *oracle.Facts) {
			b.complete(1, 1)
			b.add(`{"type":"session/title","data":{"title":"late"}}`)
			facts.IdleAfterDisposal = 5
		}, []oracle.ID{oracle.TurnTerminates}},
		{"an input claimed by a completed turn that never entered the history", true, func(b *logBuilder, facts *oracle.Facts) {
			b.add(`{"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":[{"content":[],"source":{"kind":"user"},"role":"user","id":"u1"}]}}`)
			b.turnStart(1)
			b.add(`{"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"removedCount":1,"inserted":[]}}`)
			b.stepStart(1, 1)
			b.header("mock")
			b.complete(1, 1)
			facts.Inputs = []oracle.Input{{ID: "u1"}}
		}, []oracle.ID{oracle.NoLostInput}},
		{"a request went to the model after a cancel took effect, though no chunk of it reached the log", false, func(b *logBuilder, facts *oracle.Facts) {
			f := b.fail(1, 1, "SERVER", "busy")
			b.stepEnd(1, 1)
			b.turnEnd(1, abortedBy)
			facts.Requests = []oracle.Request{{Seq: f, Order: 1, Turn: 1, Step: 1, Attempt: 1}, {Seq: f + 1, Order: 4, Turn: 1, Step: 1, Attempt: 2}}
			facts.Waterfalls = []oracle.Waterfall{{Seq: f + 1, Order: 2, Retry: true}}
			facts.Actions = []oracle.Action{{Seq: f + 1, Order: 3, Turn: 1, Kind: "cancel", Cause: "user"}}
		}, []oracle.ID{oracle.CancelledTurnNeverRetries}},
		{"a cancel of the previous turn does not count against the next turn's request", false, func(b *logBuilder, facts *oracle.Facts) {
			f := b.fail(1, 1, "SERVER", "busy")
			b.stepEnd(1, 1)
			b.turnEnd(1, abortedBy)
			b.turnStart(2)
			b.stepStart(2, 1)
			b.complete(2, 1)
			facts.Requests = []oracle.Request{{Seq: f, Order: 1, Turn: 1, Step: 1, Attempt: 1}, {Seq: f + 4, Order: 3, Turn: 2, Step: 1, Attempt: 1}}
			facts.Actions = []oracle.Action{{Seq: f + 1, Order: 2, Turn: 1, Kind: "cancel", Cause: "user"}}
		}, nil},
		{"a second attempt after the waterfall threw", false, func(b *logBuilder, facts *oracle.Facts) {
			f := b.fail(1, 1, "SERVER", "busy")
			b.complete(1, 1)
			facts.Requests = []oracle.Request{{Seq: f, Order: 1, Turn: 1, Step: 1, Attempt: 1}, {Seq: f + 1, Order: 3, Turn: 1, Step: 1, Attempt: 2}}
			facts.Waterfalls = []oracle.Waterfall{{Seq: f + 1, Order: 2, Threw: true}}
		}, []oracle.ID{oracle.RetryAfterHandledFailure}},
		{"a second attempt that no waterfall answered", false, func(b *logBuilder, facts *oracle.Facts) {
			f := b.fail(1, 1, "SERVER", "busy")
			b.complete(1, 1)
			facts.Requests = []oracle.Request{{Seq: f, Order: 1, Turn: 1, Step: 1, Attempt: 1}, {Seq: f + 1, Order: 2, Turn: 1, Step: 1, Attempt: 2}}
		}, []oracle.ID{oracle.RetryAfterHandledFailure}},
		{"a second attempt after a waterfall that answered no action", false, func(b *logBuilder, facts *oracle.Facts) {
			f := b.fail(1, 1, "SERVER", "busy")
			b.complete(1, 1)
			facts.Requests = []oracle.Request{{Seq: f, Order: 1, Turn: 1, Step: 1, Attempt: 1}, {Seq: f + 1, Order: 3, Turn: 1, Step: 1, Attempt: 2}}
			facts.Waterfalls = []oracle.Waterfall{{Seq: f + 1, Order: 2}}
		}, []oracle.ID{oracle.RetryAfterHandledFailure}},
		{"a second attempt the waterfall answered retry", false, func(b *logBuilder, facts *oracle.Facts) {
			f := b.fail(1, 1, "SERVER", "busy")
			b.complete(1, 1)
			facts.Requests = []oracle.Request{{Seq: f, Order: 1, Turn: 1, Step: 1, Attempt: 1}, {Seq: f + 1, Order: 3, Turn: 1, Step: 1, Attempt: 2}}
			facts.Waterfalls = []oracle.Waterfall{{Seq: f + 1, Order: 2, Retry: true}}
		}, nil},
		{"a retry sent without the steer its step had claimed", true, func(b *logBuilder, facts *oracle.Facts) {
			b.turnStart(1)
			b.stepStart(1, 1)
			steer := b.add(`{"type":"user/message","data":{"content":[],"source":{"kind":"user"},"role":"user","id":"u1"},"surfaceOp":"append"}`)
			b.header("mock")
			f := b.fail(1, 1, "SERVER", "busy")
			b.complete(1, 1)
			facts.Requests = []oracle.Request{{Seq: f, Order: 1, Turn: 1, Step: 1, Attempt: 1, Messages: []int64{steer}},
				{Seq: f + 1, Order: 3, Turn: 1, Step: 1, Attempt: 2}}
			facts.Waterfalls = []oracle.Waterfall{{Seq: f + 1, Order: 2, Retry: true}}
		}, []oracle.ID{oracle.NoLostInput}},
		{"a retry that carries the steer", true, func(b *logBuilder, facts *oracle.Facts) {
			b.turnStart(1)
			b.stepStart(1, 1)
			steer := b.add(`{"type":"user/message","data":{"content":[],"source":{"kind":"user"},"role":"user","id":"u1"},"surfaceOp":"append"}`)
			b.header("mock")
			f := b.fail(1, 1, "SERVER", "busy")
			b.complete(1, 1)
			facts.Requests = []oracle.Request{{Seq: f, Order: 1, Turn: 1, Step: 1, Attempt: 1, Messages: []int64{steer}},
				{Seq: f + 1, Order: 3, Turn: 1, Step: 1, Attempt: 2, Messages: []int64{steer}}}
			facts.Waterfalls = []oracle.Waterfall{{Seq: f + 1, Order: 2, Retry: true}}
		}, nil},
		// cancel-takes-effect-at-once: virtual time between a cancel and
		// its turn's end, whatever the log says.
		{"a listener's wait outlasted a cancel: the turn ended 100 ms after it", false, func(b *logBuilder, facts *oracle.Facts) {
			f := b.fail(1, 1, "SERVER", "busy")
			b.stepEnd(1, 1)
			end := b.turnEnd(1, abortedBy)
			facts.TimeNs = make([]int64, len(b.lines))
			facts.TimeNs[end-1], facts.TimeNs[end] = 100e6, 100e6 // step/end and turn/end
			facts.Actions = []oracle.Action{{Seq: f + 1, TimeNs: 0, Turn: 1, Kind: "cancel", Cause: "user"}}
		}, []oracle.ID{oracle.CancelTakesEffectAtOnce}},
		{"the same cancel, and the turn ends at its virtual time", false, func(b *logBuilder, facts *oracle.Facts) {
			f := b.fail(1, 1, "SERVER", "busy")
			b.stepEnd(1, 1)
			b.turnEnd(1, abortedBy)
			facts.TimeNs = make([]int64, len(b.lines))
			facts.Actions = []oracle.Action{{Seq: f + 1, TimeNs: 0, Turn: 1, Kind: "cancel", Cause: "user"}}
		}, nil},
		{"a cancel between turns reaches no turn: the idle time after it is not a wait", false, func(b *logBuilder, facts *oracle.Facts) {
			b.complete(1, 1)
			b.turnStart(2)
			b.stepStart(2, 1)
			b.complete(2, 1)
			facts.TimeNs = make([]int64, len(b.lines))
			for i := range facts.TimeNs[len(facts.TimeNs)/2:] {
				facts.TimeNs[len(facts.TimeNs)/2+i] = 30e9
			}
			facts.Actions = []oracle.Action{{Seq: 8, TimeNs: 0, Turn: 0, Kind: "cancel", Cause: "user"}}
		}, nil},
		// attempts-within-policy: counted in the listeners' answers and at
		// the port, whether or not anything was logged.
		{"a listener with a budget of 1 answered retry twice in one step, logging nothing", false, func(b *logBuilder, facts *oracle.Facts) {
			f1, f2 := threeAttempts(b, facts)
			facts.Budgets = []oracle.Budget{{Listener: "retry-server", MaxRetries: 1}}
			facts.Decisions = []oracle.Decision{{Seq: f1 + 1, Turn: 1, Step: 1, Listener: "retry-server", Retry: true},
				{Seq: f2 + 1, Turn: 1, Step: 1, Listener: "retry-server", Retry: true}}
		}, []oracle.ID{oracle.AttemptsWithinPolicy}},
		{"a step made three requests where its listeners' budgets allow two", false, func(b *logBuilder, facts *oracle.Facts) {
			threeAttempts(b, facts)
			facts.Budgets = []oracle.Budget{{Listener: "retry-server", MaxRetries: 1}}
		}, []oracle.ID{oracle.AttemptsWithinPolicy}},
		{"two retries of two listeners, one each, within their budgets of 1", false, func(b *logBuilder, facts *oracle.Facts) {
			f1, f2 := threeAttempts(b, facts)
			facts.Budgets = []oracle.Budget{{Listener: "retry-server", MaxRetries: 1}, {Listener: "llm-retry", MaxRetries: 1}}
			facts.Decisions = []oracle.Decision{{Seq: f1 + 1, Turn: 1, Step: 1, Listener: "retry-server", Retry: true},
				{Seq: f2 + 1, Turn: 1, Step: 1, Listener: "llm-retry", Retry: true}}
		}, nil},
		{"budgets near the largest int do not wrap their sum below the requests made (it panicked with an index out of range)", false, func(b *logBuilder, facts *oracle.Facts) {
			threeAttempts(b, facts)
			facts.Budgets = []oracle.Budget{{Listener: "retry-server", MaxRetries: math.MaxInt}, {Listener: "llm-retry", MaxRetries: math.MaxInt - 1}}
		}, nil},
		{"an unbounded listener leaves the step without a bound", false, func(b *logBuilder, facts *oracle.Facts) {
			f1, f2 := threeAttempts(b, facts)
			facts.Budgets = []oracle.Budget{{Listener: "always-retry", MaxRetries: -1}}
			facts.Decisions = []oracle.Decision{{Seq: f1 + 1, Turn: 1, Step: 1, Listener: "always-retry", Retry: true},
				{Seq: f2 + 1, Turn: 1, Step: 1, Listener: "always-retry", Retry: true}}
		}, nil},
		// listener-within-turn: an answer given after its turn's end.
		{"a listener answered turn 1's failure after turn 1 ended", false, func(b *logBuilder, facts *oracle.Facts) {
			b.fail(1, 1, "SERVER", "busy")
			b.stepEnd(1, 1)
			end := b.turnEnd(1, `{"kind":"error","error":{"code":"SERVER","message":"busy"}}`)
			facts.Decisions = []oracle.Decision{{Seq: end + 1, Turn: 1, Step: 1, Listener: "retry-server"}}
		}, []oracle.ID{oracle.ListenerWithinTurn}},
		{"the same answer, given before the turn ended", false, func(b *logBuilder, facts *oracle.Facts) {
			f := b.fail(1, 1, "SERVER", "busy")
			b.stepEnd(1, 1)
			b.turnEnd(1, `{"kind":"error","error":{"code":"SERVER","message":"busy"}}`)
			facts.Decisions = []oracle.Decision{{Seq: f + 1, Turn: 1, Step: 1, Listener: "retry-server"}}
		}, nil},
		{"a panic inside the system under test", false, func(b *logBuilder, facts *oracle.Facts) {
			b.complete(1, 1)
			facts.Panic = "runtime error: index out of range"
		}, []oracle.ID{oracle.SUTPanic}},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			b, facts := begin(), noFacts()
			if tt.bare {
				b = newLog()
			}
			tt.build(b, facts)
			events := b.events(t)
			if diff := cmp.Diff(tt.want, ids(oracle.Check(events, oracle.Options{Facts: facts}))); diff != "" {
				t.Errorf("invariants that fired (-want +got):\n%s\nlog:\n%s", diff, joinLines(b.lines))
			}
		})
	}
}
