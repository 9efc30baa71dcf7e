package dshview

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
)

// TestAFaithfulAnswerAgrees: an answer that derives what turnsim's view
// derives agrees in every view, and the comparison looked at something.
func TestAFaithfulAnswerAgrees(t *testing.T) {
	for _, name := range []string{"conformance/server-exhausts.json", "conformance/cancel-in-backoff.json", "conformance/always-auth.json",
		"conformance/overflow-compaction.json", "conformance/three-turns.json"} {
		events := scenarioLog(t, name)
		q := Views(events)
		c := Compare(events, q, faithful(events, q), view.HiddenByRetry)
		if len(c.Differences) > 0 {
			t.Errorf("%s: %d differences, the first: %s", name, len(c.Differences), c.Differences[0].Line())
		}
		if c.Compared < len(q.Views) || c.Nodes == 0 {
			t.Errorf("%s: compared %d snapshots of %d views, %d nodes", name, c.Compared, len(q.Views), c.Nodes)
		}
	}
}

// TestEveryDifferenceIsFound: each way DSH's answer could part from
// turnsim's view is a difference, said where it is (the comparison must be
// able to fail).
func TestEveryDifferenceIsFound(t *testing.T) {
	events := scenarioLog(t, "conformance/cancel-in-backoff.json")
	exhausted := scenarioLog(t, "conformance/server-exhausts.json")
	auth := scenarioLog(t, "conformance/auth.json")
	editData := func(n *Node, f func(map[string]any)) {
		var d map[string]any
		json.Unmarshal(n.Data, &d)
		f(d)
		n.Data, _ = json.Marshal(d)
	}
	tests := []struct {
		name   string
		events []session.Event
		mutate func(a *Answer)
		where  string
	}{
		{"a retry never shown cancelled", events, func(a *Answer) {
			editData(&a.Views[0].Steps[0].Nodes[0], func(d map[string]any) {
				for _, at := range d["attempts"].([]any) {
					at.(map[string]any)["retryState"] = "scheduled"
				}
			})
		}, "the whole log"},
		{"a retry row drawn with another label", events, func(a *Answer) { a.Views[0].Rows[0].Status = "Retried model request (1/2) · 1s" }, "the whole log (rows)"},
		{"a retry node missing from a tail window", events, func(a *Answer) { a.Views[1].Steps[0].Nodes = nil }, "the tail window"},
		{"a node DSH adds", auth, func(a *Answer) {
			a.Views[0].Steps[0].Nodes = append(a.Views[0].Steps[0].Nodes, a.Views[0].Steps[0].Nodes[0])
		}, "the whole log"},
		{"a turn-error node at another step", auth, func(a *Answer) {
			editData(&a.Views[0].Steps[0].Nodes[0], func(d map[string]any) { d["step"] = 7.0 })
		}, "the whole log"},
		{"a turn-error node without its code", auth, func(a *Answer) {
			editData(&a.Views[0].Steps[0].Nodes[0], func(d map[string]any) { delete(d, "code") })
		}, "the whole log"},
		{"a turn-error shown that rc.8 hides", exhausted, func(a *Answer) {
			snap := &a.Views[0].Steps[0]
			data, _ := json.Marshal(map[string]any{"seq": 15, "time": 0, "turn": 1, "step": 1, "message": "upstream 503", "code": "SERVER"})
			snap.Nodes = append(snap.Nodes, Node{Kind: KindTurnError, Key: "t", ID: "1", AnchorSeq: 15, Visibility: "visible", Data: data})
		}, "the whole log"},
		{"the live page differs", events, func(a *Answer) { a.Live[len(a.Live)-1].Nodes = nil }, "the live view"},
		{"DSH's view code threw in a view", events, func(a *Answer) { a.Views[1] = ViewAnswer{Error: "DSH's view code threw: boom"} }, "the tail window"},
		{"DSH's view code threw while the log was appended", events, func(a *Answer) { a.Live, a.LiveError = nil, "DSH's view code threw: boom" }, "the live view"},
		{"a node of another shape", auth, func(a *Answer) { a.Views[0].Steps[0].Nodes[0].Data = json.RawMessage(`{"seq":"x"}`) }, "the whole log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := Views(tt.events)
			a := faithful(tt.events, q)
			tt.mutate(a)
			c := Compare(tt.events, q, a, view.HiddenByRetry)
			if len(c.Differences) == 0 {
				t.Fatal("no difference")
			}
			if !strings.HasPrefix(c.Differences[0].Where, tt.where) {
				t.Errorf("first difference in %q, want in %q: %s", c.Differences[0].Where, tt.where, c.Differences[0].Line())
			}
			vs, _ := c.Verdict()
			if len(vs) == 0 || vs[0].Invariant != oracle.DiffersFromDSHView {
				t.Errorf("verdict %v, want differs-from-dsh-view first", vs)
			}
		})
	}
}

// TestFindingsAreClassified: what DSH's nodes break is a recorded finding
// only where its reason is the recorded one; anything else is new.
func TestFindingsAreClassified(t *testing.T) {
	tests := []struct {
		name     string
		scenario string
		mutate   func(a *Answer)
		want     []string // classes, "" for a new finding
	}{
		{"an exhausted turn with retries: rc.8 hides its error", "conformance/server-exhausts.json", nil, []string{TurnErrorHiddenByRetry}},
		{"an AUTH turn without retries shows its error: nothing", "conformance/auth.json", nil, nil},
		{"an AUTH chain in always mode shows the provider's text in its row", "conformance/always-auth.json", nil, []string{AuthTextInRetryRow}},
		{"a turn without retries that loses its error is new", "conformance/auth.json", func(a *Answer) {
			for i := range a.Views {
				for k := range a.Views[i].Steps {
					a.Views[i].Steps[k].Nodes = nil
				}
				a.Views[i].Rows = nil
			}
		}, []string{""}},
		{"a turn-error node that shows the provider's AUTH text is new", "conformance/auth.json", func(a *Answer) {
			for i := range a.Views {
				for k := range a.Views[i].Steps {
					for n := range a.Views[i].Steps[k].Nodes {
						node := &a.Views[i].Steps[k].Nodes[n]
						var d map[string]any
						json.Unmarshal(node.Data, &d)
						d["message"] = "invalid api key"
						node.Data, _ = json.Marshal(d)
					}
				}
			}
		}, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := scenarioLog(t, tt.scenario)
			q := Views(events)
			a := faithful(events, q)
			if tt.mutate != nil {
				tt.mutate(a)
			}
			c := Compare(events, q, a, view.HiddenByRetry)
			var got []string
			for _, f := range c.Findings {
				if !slices.Contains(got, f.Class) {
					got = append(got, f.Class)
				}
			}
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("finding classes %q, want %q (findings: %v)", got, want, c.Findings)
			}
			vs, recorded := c.Verdict()
			for _, f := range recorded {
				if f.Class == "" {
					t.Errorf("a new finding among the recorded ones: %v", f)
				}
			}
			if slices.Contains(tt.want, "") && !slices.ContainsFunc(vs, func(v oracle.Violation) bool { return v.Invariant != oracle.DiffersFromDSHView }) {
				t.Errorf("a new finding is not a violation: %v", vs)
			}
		})
	}
}

// TestALiveThrowIsRecognisedByItsSignature: the assembler's throw at a new
// attempt after a failed attempt that streamed text, with no llm/retry
// between, is the recorded finding; the same words anywhere else, or other
// words, are new.
func TestALiveThrowIsRecognisedByItsSignature(t *testing.T) {
	withdrawn := scenarioLog(t, "dshview/assistant-withdrawn-live.json")
	retried := scenarioLog(t, "conformance/transport-mid-stream.json")
	firstChunkAfterFailure := func(events []session.Event) int64 {
		failed := false
		for _, e := range events {
			if c, ok := e.Data.(*session.AssistantChunk); ok {
				if c.Chunk.Failed() {
					failed = true
				} else if failed {
					return e.Seq
				}
			}
		}
		t.Fatal("no chunk after a failure")
		return 0
	}
	const words = `conversation Definition "assistant-step" withdrew materialized target "chat"; return the same key with hidden visibility instead`
	tests := []struct {
		name   string
		events []session.Event
		throw  Throw
		class  string
	}{
		{"compaction's retry after streamed text", withdrawn, Throw{firstChunkAfterFailure(withdrawn), "assistant/chunk", words}, AssistantWithdrawnLive},
		{"the same words after an llm/retry are new", retried, Throw{firstChunkAfterFailure(retried), "assistant/chunk", words}, ""},
		{"other words at the same event are new", withdrawn, Throw{firstChunkAfterFailure(withdrawn), "assistant/chunk", "boom"}, ""},
		{"the words at another event are new", withdrawn, Throw{1, "turn/start", words}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if f := liveThrow(tt.events, tt.throw); f.Class != tt.class || f.Invariant != oracle.DiffersFromDSHView {
				t.Errorf("class %q invariant %s, want %q", f.Class, f.Invariant, tt.class)
			}
		})
	}
}

// TestAStaleLiveLookIsNotCompared: after a flush that threw, the page
// shows what it showed before: that look is not held to the log (the
// throw is the finding), and is counted apart.
func TestAStaleLiveLookIsNotCompared(t *testing.T) {
	events := scenarioLog(t, "conformance/cancel-in-backoff.json")
	q := Views(events)
	a := faithful(events, q)
	a.Live[0].Nodes, a.Live[0].Stale = nil, true
	c := Compare(events, q, a, view.HiddenByRetry)
	if len(c.Differences) != 0 || c.Stale != 1 {
		t.Errorf("differences %v, stale %d; want none and 1", c.Differences, c.Stale)
	}
}
