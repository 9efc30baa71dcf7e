package oracle_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/oracle"
)

// TestViolationsFire: every log-level invariant fires on a log that breaks
// it, and nothing else fires there. Each row says why its log is wrong.
func TestViolationsFire(t *testing.T) {
	type row struct {
		why   string
		build func(b *logBuilder)
		want  []oracle.ID // the invariants that must fire, and no others
	}
	tests := []row{
		// log-well-formed
		{"turns are numbered 1, 2, …: turn 3 follows turn 1", func(b *logBuilder) {
			b.turnStart(1)
			b.turnEnd(1, completed)
			b.turnStart(3)
			b.turnEnd(3, completed)
		}, []oracle.ID{oracle.LogWellFormed}},
		{"steps start at 1 in every turn", func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 2)
			b.stepEnd(1, 2)
			b.turnEnd(1, completed)
		}, []oracle.ID{oracle.LogWellFormed}},
		{"a chunk names a step that is not open", func(b *logBuilder) {
			*b = *begin()
			b.text(1, 2, "x")
			b.finish(1, 2, "stop")
			b.stepEnd(1, 1)
			b.turnEnd(1, completed)
		}, []oracle.ID{oracle.LogWellFormed}},
		{"llm/retry after step/end (fact 22)", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "SERVER", "busy")
			b.stepEnd(1, 1)
			b.retry(1, 1, "r", 1, "2", "25", "SERVER", "busy")
			b.turnEnd(1, serverError("busy"))
		}, []oracle.ID{oracle.LogWellFormed}},
		{"llm/retry-started without a schedule (fact 22)", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "SERVER", "busy")
			b.started(1, 1, "r", 1)
			b.complete(1, 1)
		}, []oracle.ID{oracle.LogWellFormed}},
		{"llm/retry-started repeated (fact 22)", func(b *logBuilder) {
			*b = *begin()
			b.failRetried(1, 1, "r", 1, "2")
			b.started(1, 1, "r", 1)
			b.complete(1, 1)
		}, []oracle.ID{oracle.LogWellFormed}},
		{"maxRetries 0 in normal mode (fact 22)", func(b *logBuilder) {
			*b = *begin()
			b.failRetried(1, 1, "r", 1, "0")
			b.complete(1, 1)
		}, []oracle.ID{oracle.LogWellFormed, oracle.RetryBudget}},
		{"delayMs -1 (fact 22); no formula allows it either", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "SERVER", "busy")
			b.retry(1, 1, "r", 1, "2", "-1", "SERVER", "busy")
			b.started(1, 1, "r", 1)
			b.complete(1, 1)
		}, []oracle.ID{oracle.BackoffHonoured, oracle.LogWellFormed}},
		{"delayMs 2,147,483,648 (fact 22); above the cap too", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "SERVER", "busy")
			b.retry(1, 1, "r", 1, "2", "2147483648", "SERVER", "busy")
			b.started(1, 1, "r", 1)
			b.complete(1, 1)
		}, []oracle.ID{oracle.BackoffHonoured, oracle.LogWellFormed}},
		{"llm/retry names another provider than the latest header", func(b *logBuilder) {
			b.turnStart(1)
			b.stepStart(1, 1)
			b.header("other")
			b.failRetried(1, 1, "r", 1, "2")
			b.complete(1, 1)
		}, []oracle.ID{oracle.LogWellFormed}},
		{"a turn that never ends", func(b *logBuilder) {
			*b = *begin()
			b.success(1, 1)
			b.stepEnd(1, 1)
		}, []oracle.ID{oracle.LogWellFormed}},
		{"a turn that ends twice", func(b *logBuilder) {
			*b = *begin()
			b.complete(1, 1)
			b.turnEnd(1, completed)
		}, []oracle.ID{oracle.LogWellFormed}},
		{"a compaction bracket crosses turn/end", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "CONTEXT_WINDOW_EXCEEDED", "too long")
			b.add(`{"type":"compaction/start","data":{"compactionId":"c","turn":1}}`)
			b.stepEnd(1, 1)
			b.turnEnd(1, `{"kind":"error","error":{"message":"too long","code":"CONTEXT_WINDOW_EXCEEDED"}}`)
		}, []oracle.ID{oracle.LogWellFormed}},
		{"a summary not followed by its checkpoint message", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "CONTEXT_WINDOW_EXCEEDED", "too long")
			b.add(`{"type":"compaction/start","data":{"compactionId":"c","turn":1}}`)
			b.add(`{"type":"compaction/summary","data":{"compactionId":"c","summary":[],"shadowedRange":{"start":0,"end":0},"shadowedSeqs":[0],"shadowedTokenCount":10,"provider":"mock","model":"m"}}`)
			b.add(`{"type":"compaction/end","data":{"compactionId":"c","turn":1}}`)
			b.complete(1, 1)
		}, []oracle.ID{oracle.LogWellFormed}},
		{"a successful compaction/end without a summary", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "CONTEXT_WINDOW_EXCEEDED", "too long")
			b.add(`{"type":"compaction/start","data":{"compactionId":"c","turn":1}}`)
			b.add(`{"type":"compaction/end","data":{"compactionId":"c","turn":1}}`)
			b.complete(1, 1)
		}, []oracle.ID{oracle.LogWellFormed}},
		{"a checkpoint replaces a range that is not on the surface", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "CONTEXT_WINDOW_EXCEEDED", "too long")
			b.add(`{"type":"compaction/start","data":{"compactionId":"c","turn":1}}`)
			b.add(`{"type":"compaction/summary","data":{"compactionId":"c","summary":[],"shadowedRange":{"start":40,"end":41},"shadowedSeqs":[40,41],"shadowedTokenCount":10,"provider":"mock","model":"m"}}`)
			b.add(`{"type":"user/message","data":{"content":[],"source":{"kind":"plugin","plugin":"compact","compactionId":"c"},"role":"user","id":"cp"},"surfaceOp":{"op":"replace","start":40,"end":41}}`)
			b.add(`{"type":"compaction/end","data":{"compactionId":"c","turn":1}}`)
			b.complete(1, 1)
		}, []oracle.ID{oracle.LogWellFormed}},
		{"a tool result without its tool call", func(b *logBuilder) {
			*b = *begin()
			b.success(1, 1)
			b.add(`{"type":"tool/result","data":{"turn":1,"step":1,"message":{"content":[],"source":{"kind":"tool","callId":"ghost"},"role":"user","id":"r"}},"surfaceOp":"append"}`)
			b.stepEnd(1, 1)
			b.turnEnd(1, completed)
		}, []oracle.ID{oracle.LogWellFormed}},

		// retry-budget
		{"retry 3 with maxRetries 2 (fact 22)", func(b *logBuilder) {
			*b = *begin()
			for n := 1; n <= 3; n++ {
				b.failRetried(1, 1, "r", n, "2")
			}
			b.complete(1, 1)
		}, []oracle.ID{oracle.RetryBudget}},
		{"a skipped number: retry 1 then 3", func(b *logBuilder) {
			*b = *begin()
			for _, n := range []int{1, 3} {
				b.failRetried(1, 1, "r", n, "5")
			}
			b.complete(1, 1)
		}, []oracle.ID{oracle.RetryBudget}},
		{"a chain changes its retryId", func(b *logBuilder) {
			*b = *begin()
			for n, id := range []string{"r", "s"} {
				b.fail(1, 1, "SERVER", "busy")
				b.retry(1, 1, id, n+1, "5", "25", "SERVER", "busy")
				b.started(1, 1, id, n+1)
			}
			b.complete(1, 1)
		}, []oracle.ID{oracle.RetryBudget}},
		{"a new chain in a new step reuses an old retryId", func(b *logBuilder) {
			*b = *begin()
			b.failRetried(1, 1, "r", 1, "5")
			c := b.toolCallChunk(1, 1, "call")
			f := b.finish(1, 1, "tool-calls")
			b.message(1, 1, false, []int64{c, f}, "call")
			b.toolCall(1, 1, "call")
			b.add(`{"type":"tool/result","data":{"turn":1,"step":1,"message":{"content":[],"source":{"kind":"tool","callId":"call"},"role":"user","id":"tr"}},"surfaceOp":"append"}`)
			b.stepEnd(1, 1)
			b.stepStart(1, 2)
			b.failRetried(1, 2, "r", 1, "5")
			b.complete(1, 2)
		}, []oracle.ID{oracle.RetryBudget}},

		// backoff-honoured
		{"a delay the policy's formula cannot give (jitter 0: exactly 25)", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "SERVER", "busy")
			b.add(`{"type":"llm/retry","data":{"retryId":"r","turn":1,"step":1,"provider":"mock","mode":"normal","policyKey":"[\"normal\",2,[\"SERVER\"],25,50,0]","retry":1,"maxRetries":2,"delayMs":30,"failure":{"message":"busy","code":"SERVER"}}}`)
			b.started(1, 1, "r", 1)
			b.complete(1, 1)
		}, []oracle.ID{oracle.BackoffHonoured}},
		{"a Retry-After within the cap that was jittered", func(b *logBuilder) {
			*b = *begin()
			b.add(`{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"busy","code":"SERVER","providerRetryAfterMs":40}}}}}`)
			b.add(`{"type":"llm/retry","data":{"retryId":"r","turn":1,"step":1,"provider":"mock","mode":"normal","policyKey":"[\"normal\",2,[\"SERVER\"],25,50,0.5]","retry":1,"maxRetries":2,"delayMs":36,"failure":{"message":"busy","code":"SERVER","providerRetryAfterMs":40}}}`)
			b.started(1, 1, "r", 1)
			b.complete(1, 1)
		}, []oracle.ID{oracle.BackoffHonoured}},

		// non-retryable-stays-terminal
		{"a normal policy retries AUTH, which its codes do not list", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "AUTH", "bad key")
			b.add(`{"type":"llm/retry","data":{"retryId":"r","turn":1,"step":1,"provider":"mock","mode":"normal","policyKey":"[\"normal\",5,[\"EMPTY_RESPONSE\",\"RATE_LIMIT\",\"SERVER\",\"TIMEOUT\",\"TRANSPORT\"],500,10000,0.1]","retry":1,"maxRetries":5,"delayMs":500,"failure":{"message":"bad key","code":"AUTH"}}}`)
			b.started(1, 1, "r", 1)
			b.complete(1, 1)
		}, []oracle.ID{oracle.NonRetryableStaysTerminal}},

		// retry-after-handled-failure
		{"llm/retry after a successful attempt", func(b *logBuilder) {
			*b = *begin()
			b.success(1, 1)
			b.retry(1, 1, "r", 1, "2", "25", "SERVER", "busy")
			b.started(1, 1, "r", 1)
			b.stepEnd(1, 1)
			b.turnEnd(1, completed)
		}, []oracle.ID{oracle.RetryAfterHandledFailure}},
		{"a retry after a success whose stream had no finish", func(b *logBuilder) {
			*b = *begin()
			c := b.text(1, 1, "done")
			b.message(1, 1, false, []int64{c})
			b.retry(1, 1, "r", 1, "2", "25", "SERVER", "busy")
			b.started(1, 1, "r", 1)
			b.stepEnd(1, 1)
			b.turnEnd(1, completed)
		}, []oracle.ID{oracle.RetryAfterHandledFailure}},
		{"a second attempt after a successful one", func(b *logBuilder) {
			*b = *begin()
			b.text(1, 1, "first")
			b.finish(1, 1, "stop")
			b.complete(1, 1)
		}, []oracle.ID{oracle.RetryAfterHandledFailure}},
		{"llm/retry records another failure than the attempt's", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "SERVER", "busy")
			b.retry(1, 1, "r", 1, "2", "25", "RATE_LIMIT", "slow down")
			b.started(1, 1, "r", 1)
			b.complete(1, 1)
		}, []oracle.ID{oracle.RetryAfterHandledFailure}},
		{"two llm/retry events answer one failure", func(b *logBuilder) {
			*b = *begin()
			b.failRetried(1, 1, "r", 1, "5")
			b.retry(1, 1, "r", 2, "5", "50", "SERVER", "busy")
			b.started(1, 1, "r", 2)
			b.complete(1, 1)
		}, []oracle.ID{oracle.RetryAfterHandledFailure}},
		{"an in-step compaction after a successful attempt", func(b *logBuilder) {
			*b = *begin()
			b.success(1, 1)
			b.add(`{"type":"compaction/start","data":{"compactionId":"c","turn":1}}`)
			b.add(`{"type":"compaction/end","data":{"compactionId":"c","turn":1,"error":"nothing to compact"}}`)
			b.stepEnd(1, 1)
			b.turnEnd(1, completed)
		}, []oracle.ID{oracle.RetryAfterHandledFailure}},

		// cancelled-turn-never-retries
		{"an attempt after the interrupted message of a cancel", func(b *logBuilder) {
			*b = *begin()
			c := b.text(1, 1, "partial")
			b.message(1, 1, true, []int64{c})
			b.success(1, 1)
			b.stepEnd(1, 1)
			b.turnEnd(1, abortedBy)
		}, []oracle.ID{oracle.CancelledTurnNeverRetries}},
		{"an interrupted turn that ends completed", func(b *logBuilder) {
			*b = *begin()
			c := b.text(1, 1, "partial")
			b.message(1, 1, true, []int64{c})
			b.stepEnd(1, 1)
			b.turnEnd(1, completed)
		}, []oracle.ID{oracle.CancelledTurnNeverRetries}},
		{"a retry after an aborted finish", func(b *logBuilder) {
			*b = *begin()
			b.abortedFinish(1, 1)
			b.add(`{"type":"llm/retry","data":{"retryId":"r","turn":1,"step":1,"provider":"mock","mode":"always","policyKey":"k","retry":1,"delayMs":1,"failure":{"message":"aborted","code":"ABORTED"}}}`)
			b.started(1, 1, "r", 1)
			b.complete(1, 1)
		}, []oracle.ID{oracle.CancelledTurnNeverRetries}},

		{"llm/retry before the attempt's finish: read in order, the attempt has not failed yet", func(b *logBuilder) {
			*b = *begin()
			b.text(1, 1, "partial")
			b.retry(1, 1, "r", 1, "2", "25", "SERVER", "busy")
			b.fail(1, 1, "SERVER", "busy")
			b.started(1, 1, "r", 1)
			b.complete(1, 1)
		}, []oracle.ID{oracle.RetryAfterHandledFailure}},

		// failed-attempt-not-in-history
		{"the success message cites a chunk of the failed attempt", func(b *logBuilder) {
			*b = *begin()
			failed := b.text(1, 1, "doomed partial")
			b.fail(1, 1, "TRANSPORT", "reset")
			b.retry(1, 1, "r", 1, "2", "25", "TRANSPORT", "reset")
			b.started(1, 1, "r", 1)
			c := b.text(1, 1, "recovered")
			f := b.finish(1, 1, "stop")
			b.message(1, 1, false, []int64{failed, c, f})
			b.stepEnd(1, 1)
			b.turnEnd(1, completed)
		}, []oracle.ID{oracle.FailedAttemptNotInHistory}},
		{"a message cites a chunk of an earlier turn (each turn is judged alone: a log is read once, turn by turn)", func(b *logBuilder) {
			*b = *begin()
			old := b.text(1, 1, "from turn 1")
			f := b.finish(1, 1, "stop")
			b.message(1, 1, false, []int64{old, f})
			b.stepEnd(1, 1)
			b.turnEnd(1, completed)
			b.turnStart(2)
			b.stepStart(2, 1)
			c := b.text(2, 1, "ok")
			f = b.finish(2, 1, "stop")
			b.message(2, 1, false, []int64{old, c, f})
			b.stepEnd(2, 1)
			b.turnEnd(2, completed)
		}, []oracle.ID{oracle.FailedAttemptNotInHistory}},
		{"a tool call of the failed attempt runs (fact 3)", func(b *logBuilder) {
			*b = *begin()
			b.toolCallChunk(1, 1, "call-failed")
			b.fail(1, 1, "TRANSPORT", "reset")
			b.retry(1, 1, "r", 1, "2", "25", "TRANSPORT", "reset")
			b.started(1, 1, "r", 1)
			b.success(1, 1)
			b.toolCall(1, 1, "call-failed")
			b.add(`{"type":"tool/result","data":{"turn":1,"step":1,"message":{"content":[],"source":{"kind":"tool","callId":"call-failed"},"role":"user","id":"tr"}},"surfaceOp":"append"}`)
			b.stepEnd(1, 1)
			b.turnEnd(1, completed)
		}, []oracle.ID{oracle.FailedAttemptNotInHistory}},
		{"a success message that does not cite all of its attempt", func(b *logBuilder) {
			*b = *begin()
			c := b.text(1, 1, "ok")
			b.finish(1, 1, "stop")
			b.message(1, 1, false, []int64{c})
			b.stepEnd(1, 1)
			b.turnEnd(1, completed)
		}, []oracle.ID{oracle.FailedAttemptNotInHistory}},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			b := newLog()
			tt.build(b)
			got := ids(oracle.Check(b.events(t), oracle.Options{}))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("invariants that fired (-want +got):\n%s\nlog:\n%s", diff, joinLines(b.lines))
			}
		})
	}
}

// TestValidLogsPass: the logs DSH's invariant tests accept (fact 22) pass.
func TestValidLogsPass(t *testing.T) {
	tests := []struct {
		why   string
		build func(b *logBuilder)
	}{
		{"retry 2 with delayMs 0", func(b *logBuilder) {
			*b = *begin()
			for n := 1; n <= 2; n++ {
				b.fail(1, 1, "SERVER", "busy")
				b.retry(1, 1, "r", n, "2", "0", "SERVER", "busy")
				b.started(1, 1, "r", n)
			}
			b.complete(1, 1)
		}},
		{"a new step resets the count to 1 with a new id", func(b *logBuilder) {
			*b = *begin()
			b.failRetried(1, 1, "r", 1, "1")
			c := b.toolCallChunk(1, 1, "call")
			f := b.finish(1, 1, "tool-calls")
			b.message(1, 1, false, []int64{c, f}, "call")
			b.toolCall(1, 1, "call")
			b.add(`{"type":"tool/result","data":{"turn":1,"step":1,"message":{"content":[],"source":{"kind":"tool","callId":"call"},"role":"user","id":"tr"}},"surfaceOp":"append"}`)
			b.stepEnd(1, 1)
			b.stepStart(1, 2)
			b.failRetried(1, 2, "s", 1, "1")
			b.complete(1, 2)
		}},
		{"always mode without maxRetries, retried past any count", func(b *logBuilder) {
			*b = *begin()
			for n := 1; n <= 4; n++ {
				b.fail(1, 1, "AUTH", "bad key")
				b.retry(1, 1, "r", n, "", "4", "AUTH", "bad key")
				b.started(1, 1, "r", n)
			}
			b.complete(1, 1)
		}},
		{"a cancel during the backoff wait", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "SERVER", "busy")
			b.retry(1, 1, "r", 1, "2", "25", "SERVER", "busy")
			b.stepEnd(1, 1)
			b.turnEnd(1, abortedBy)
		}},
		{"a crash during compaction, repaired, then resumed", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "CONTEXT_WINDOW_EXCEEDED", "too long")
			b.add(`{"type":"compaction/start","data":{"compactionId":"c","turn":1}}`)
			b.stepEnd(1, 1)
			b.turnEnd(1, `{"kind":"interrupted"}`)
			b.add(`{"type":"session/end-seed","data":{}}`)
			b.turnStart(2)
			b.stepStart(2, 1)
			b.complete(2, 1)
		}},
		{"a manual compaction outside turns, and pressure compaction before a step", func(b *logBuilder) {
			b.add(`{"type":"compaction/start","data":{"compactionId":"m","sourceCommandId":"cmd","turn":null}}`)
			b.add(`{"type":"compaction/end","data":{"compactionId":"m","sourceCommandId":"cmd","turn":null,"error":"nothing to compact"}}`)
			b.turnStart(1)
			b.add(`{"type":"compaction/start","data":{"compactionId":"p","turn":1}}`)
			b.add(`{"type":"compaction/end","data":{"compactionId":"p","turn":1,"error":"summary is not smaller than the shadowed content"}}`)
			b.stepStart(1, 1)
			b.header("mock")
			b.complete(1, 1)
		}},
		{"an overflow recovered by pruning only, inside the step", func(b *logBuilder) {
			*b = *begin()
			c := b.toolCallChunk(1, 1, "call")
			f := b.finish(1, 1, "tool-calls")
			b.message(1, 1, false, []int64{c, f}, "call")
			call := b.toolCall(1, 1, "call")
			result := b.add(`{"type":"tool/result","data":{"turn":1,"step":1,"message":{"content":[],"source":{"kind":"tool","callId":"call"},"role":"user","id":"big"}},"sourceEventSeqs":[%d],"surfaceOp":"append"}`, call)
			b.stepEnd(1, 1)
			b.stepStart(1, 2)
			b.fail(1, 2, "CONTEXT_WINDOW_EXCEEDED", "too long")
			b.add(`{"type":"compaction/prune","data":{"shadowedRange":{"start":%d,"end":%d},"shadowedSeqs":[%d],"shadowedTokenCount":9000}}`, result, result, result)
			b.add(`{"type":"tool/result","data":{"turn":1,"step":1,"message":{"content":[],"source":{"kind":"tool","callId":"call"},"role":"user","id":"pruned"}},"sourceEventSeqs":[%d],"surfaceOp":{"op":"replace","start":%d,"end":%d}}`, result, result, result)
			b.complete(1, 2)
		}},
		{"a stream that ends without a finish counts as stop", func(b *logBuilder) {
			*b = *begin()
			c := b.text(1, 1, "no finish chunk")
			b.message(1, 1, false, []int64{c})
			b.stepEnd(1, 1)
			b.turnEnd(1, completed)
		}},
		{"an aborted finish that no cancel follows ends with an error", func(b *logBuilder) {
			*b = *begin()
			b.abortedFinish(1, 1)
			b.stepEnd(1, 1)
			b.turnEnd(1, `{"kind":"error","error":{"message":"aborted","code":"ABORTED"}}`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			b := newLog()
			tt.build(b)
			if vs := oracle.Check(b.events(t), oracle.Options{Strict: true}); len(vs) > 0 {
				t.Errorf("violations on a valid log: %v\nlog:\n%s", vs, joinLines(b.lines))
			}
		})
	}
}

// TestWitnesses: a violation names the events that show it.
func TestWitnesses(t *testing.T) {
	b := begin()
	var third int64
	for n := 1; n <= 3; n++ {
		b.fail(1, 1, "SERVER", "busy")
		third = b.retry(1, 1, "r", n, "2", "25", "SERVER", "busy")
		b.started(1, 1, "r", n)
	}
	b.complete(1, 1)
	want := []oracle.Violation{{Invariant: oracle.RetryBudget, Turn: 1, Step: 1, Seqs: []int64{third}, Message: "retry 3 exceeds maxRetries 2"}}
	if diff := cmp.Diff(want, oracle.Check(b.events(t), oracle.Options{})); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// TestStrictReplayChunks: chunks outside any turn are a model-replay script
// by default and a violation under Strict.
func TestStrictReplayChunks(t *testing.T) {
	b := newLog()
	b.text(1, 1, "scripted")
	b.finish(1, 1, "stop")
	events := b.events(t)
	if vs := oracle.Check(events, oracle.Options{}); len(vs) != 0 {
		t.Errorf("a replay script gives %v", vs)
	}
	if got := ids(oracle.Check(events, oracle.Options{Strict: true})); !slices.Equal(got, []oracle.ID{oracle.LogWellFormed}) {
		t.Errorf("under Strict the script gives %v, want log-well-formed", got)
	}
}

// ids is the sorted set of invariant ids that fired.
func ids(vs []oracle.Violation) []oracle.ID {
	var out []oracle.ID
	for _, v := range vs {
		if !slices.Contains(out, v.Invariant) {
			out = append(out, v.Invariant)
		}
	}
	slices.Sort(out)
	return out
}

// joinLines numbers a log's lines by seq, for failure messages.
func joinLines(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "  %02d %s\n", i, l)
	}
	return b.String()
}
