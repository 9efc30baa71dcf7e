package session_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop/session"
)

// TestV0ToV1Edge: each normalization of the edge
// (docs/dsh.md#log-versions), and only those.
func TestV0ToV1Edge(t *testing.T) {
	const header = `{"type":"session","version":0,"id":"sess","createdAt":0}` + "\n"
	const start = `{"type":"turn/start","data":{"turn":1}}` + "\n"
	const step = `{"type":"step/start","data":{"turn":1,"step":1}}` + "\n"
	tests := []struct {
		name     string
		before   string // lines before the one under test
		line     string
		wantType string
		wantData string
		legacy   bool
	}{
		{"turn/start trigger is dropped", "", `{"type":"turn/start","data":{"turn":1,"trigger":{"kind":"message"}}}`,
			"turn/start", `{"turn":1}`, true},
		{"messagePrefix leaves the header, other fields stay in place", start,
			`{"type":"request/header","data":{"header":{"config":{"provider":"p","model":"m"},"system":"s","messagePrefix":["x"],"tools":"t"},"reason":"initial"}}`,
			"request/header", `{"header":{"config":{"provider":"p","model":"m"},"system":"s","tools":"t"},"reason":"initial"}`, true},
		{"disposed becomes aborted/disposed", start, `{"type":"turn/end","data":{"turn":1,"reason":{"kind":"disposed"}}}`,
			"turn/end", `{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"disposed"}}}`, true},
		{"a bare aborted becomes aborted/legacy", start, `{"type":"turn/end","data":{"turn":1,"reason":{"kind":"aborted"}}}`,
			"turn/end", `{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"legacy"}}}`, true},
		{"old error shape with message and code", start, `{"type":"turn/end","data":{"turn":1,"reason":{"kind":"error","step":1,"message":"upstream 503","code":"SERVER"}}}`,
			"turn/end", `{"turn":1,"reason":{"kind":"error","error":{"message":"upstream 503","code":"SERVER"}}}`, true},
		{"old error shape without code defaults to UNKNOWN", start, `{"type":"turn/end","data":{"turn":1,"reason":{"kind":"error","step":1,"message":"boom"}}}`,
			"turn/end", `{"turn":1,"reason":{"kind":"error","error":{"message":"boom","code":"UNKNOWN"}}}`, true},
		{"old error shape with a failure", start, `{"type":"turn/end","data":{"turn":1,"reason":{"kind":"error","step":2,"failure":{"message":"bad key","code":"AUTH","status":401}}}}`,
			"turn/end", `{"turn":1,"reason":{"kind":"error","error":{"message":"bad key","code":"AUTH","status":401}}}`, true},
		{"a current aborted reason is untouched", start, `{"type":"turn/end","data":{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"user"}}}}`,
			"turn/end", `{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"user"}}}`, false},
		{"steering/message becomes a user/message with a legacy id", start + step, `{"type":"steering/message","data":{"content":[{"type":"text","text":"go"}],"source":{"kind":"user"}},"surfaceOp":"append"}`,
			"user/message", `{"content":[{"type":"text","text":"go"}],"source":{"kind":"user"},"role":"user","id":"legacy-message:sess:2"}`, true},
		{"a user/message with its id is untouched", "", `{"type":"user/message","data":{"content":[],"source":{"kind":"user"},"role":"user","id":"u"},"surfaceOp":"append"}`,
			"user/message", `{"content":[],"source":{"kind":"user"},"role":"user","id":"u"}`, false},
		{"assistant content+provenance is wrapped into message, with a legacy id as rc.8's persistence gives it", start + step,
			`{"type":"assistant/message","data":{"turn":1,"step":1,"content":[{"type":"text","text":"hi"}],"provenance":{"provider":"p","model":"m"},"usage":{"inputTokens":1}},"surfaceOp":"append"}`,
			"assistant/message", `{"turn":1,"step":1,"message":{"id":"legacy-message:sess:2","role":"assistant","content":[{"type":"text","text":"hi"}],"source":{"kind":"model","provider":"p","model":"m"}},"usage":{"inputTokens":1}}`, true},
		{"a tool result's callId+content+isError is wrapped into a tool message, as rc.8's persistence does", start + step,
			`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c1","content":[{"type":"text","text":"ok"}],"isError":false},"sourceEventSeqs":[1],"surfaceOp":"append"}`,
			"tool/result", `{"turn":1,"step":1,"message":{"id":"legacy-message:sess:2","role":"user","content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"ok"}],"isError":false}],"source":{"kind":"tool","callId":"c1"}}}`, true},
		{"a replacing tool result takes the id of the message it replaces", start + step,
			`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c1","content":[],"isError":false},"sourceEventSeqs":[1],"surfaceOp":{"op":"replace","start":1,"end":1}}`,
			"tool/result", `{"turn":1,"step":1,"message":{"id":"legacy-message:sess:1","role":"user","content":[{"type":"tool-result","toolCallId":"c1","content":[],"isError":false}],"source":{"kind":"tool","callId":"c1"}}}`, true},
		{"a current tool result is untouched", start + step,
			`{"type":"tool/result","data":{"turn":1,"step":1,"message":{"id":"t","role":"user","content":[],"source":{"kind":"tool","callId":"c1"}}},"surfaceOp":"append"}`,
			"tool/result", `{"turn":1,"step":1,"message":{"id":"t","role":"user","content":[],"source":{"kind":"tool","callId":"c1"}}}`, false},
		{"compact/* becomes compaction/*", start, `{"type":"compact/start","data":{"compactionId":"c","turn":1}}`,
			"compaction/start", `{"compactionId":"c","turn":1}`, true},
		{"an llm/retry without id takes its chain's first seq", start + step,
			`{"type":"llm/retry","data":{"turn":1,"step":1,"provider":"p","mode":"normal","policyKey":"k","retry":1,"maxRetries":2,"delayMs":5,"failure":{"message":"m","code":"SERVER"}}}`,
			"llm/retry", `{"retryId":"legacy-retry:sess:2","turn":1,"step":1,"provider":"p","mode":"normal","policyKey":"k","retry":1,"maxRetries":2,"delayMs":5,"failure":{"message":"m","code":"SERVER"}}`, true},
		{"the chain's later retries share that id", start + step +
			`{"type":"llm/retry","data":{"turn":1,"step":1,"provider":"p","mode":"normal","policyKey":"k","retry":1,"maxRetries":2,"delayMs":5,"failure":{"message":"m","code":"SERVER"}}}` + "\n" +
			`{"type":"llm/retry-started","data":{"turn":1,"step":1,"retry":1}}` + "\n",
			`{"type":"llm/retry","data":{"turn":1,"step":1,"provider":"p","mode":"normal","policyKey":"k","retry":2,"maxRetries":2,"delayMs":5,"failure":{"message":"m","code":"SERVER"}}}`,
			"llm/retry", `{"retryId":"legacy-retry:sess:2","turn":1,"step":1,"provider":"p","mode":"normal","policyKey":"k","retry":2,"maxRetries":2,"delayMs":5,"failure":{"message":"m","code":"SERVER"}}`, true},
		{"an opaque event is untouched", "", `{"type":"session/title","data":{"title":"  spaced  ","x":[1, 2]}}`,
			"session/title", `{"title":"  spaced  ","x":[1, 2]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, events := read(t, header+tt.before+tt.line+"\n", session.ReadOptions{})
			e := events[len(events)-1]
			data, err := e.RawData()
			if err != nil {
				t.Fatal(err)
			}
			if e.Type() != tt.wantType || string(data) != tt.wantData || e.Legacy != tt.legacy {
				t.Errorf("got %s %s legacy=%v\nwant %s %s legacy=%v", e.Type(), data, e.Legacy, tt.wantType, tt.wantData, tt.legacy)
			}
		})
	}
}

// TestHeaderWithoutVersion: DSH's acp-snapshot fixtures omit the version;
// such a header reads as v0 and crosses the edge.
func TestHeaderWithoutVersion(t *testing.T) {
	h, events := read(t, `{"type":"session","id":"s","createdAt":0,"cwd":"/w"}
{"type":"turn/start","data":{"turn":1,"trigger":{"kind":"message"}}}
`, session.ReadOptions{})
	data, _ := events[0].RawData()
	if h.Version != session.Version0 || string(data) != `{"turn":1}` {
		t.Errorf("version %d, turn/start %s; want v0 and the trigger dropped", h.Version, data)
	}
}

// TestV1IsNotMigrated: the edge applies to v0 logs only; a v1 log's
// retired shapes are refused or kept, never rewritten.
func TestV1IsNotMigrated(t *testing.T) {
	log := `{"type":"session","version":1,"id":"s","createdAt":0,"delegationDepth":0}
{"type":"steering/message","data":{"content":[]}}
`
	_, events := read(t, log, session.ReadOptions{})
	if _, ok := events[0].Data.(*session.Opaque); !ok || events[0].Type() != "steering/message" {
		t.Errorf("a v1 steering/message reads as %T %s, want an opaque record", events[0].Data, events[0].Type())
	}
}

func TestCrashRepair(t *testing.T) {
	log := `{"type":"session","version":1,"id":"s","createdAt":0,"delegationDepth":0}
{"type":"turn/start","seq":0,"time":10,"data":{"turn":1}}
{"type":"step/start","seq":1,"time":11,"data":{"turn":1,"step":1}}
{"type":"assistant/message","seq":2,"time":12,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"tool-call","id":"c1","name":"bash","arguments":"{}"},{"type":"tool-call","id":"c2","name":"read","arguments":"{}"}],"source":{"kind":"model","provider":"p","model":"m"},"id":"a"}},"surfaceOp":"append"}
{"type":"tool/call","seq":3,"time":13,"data":{"turn":1,"step":1,"callId":"c1","name":"bash","arguments":"{}"}}
`
	_, plain := read(t, log, session.ReadOptions{})
	if len(plain) != 4 {
		t.Fatalf("without Repair the log has %d events, want 4", len(plain))
	}
	h, repaired := read(t, log, session.ReadOptions{Repair: true})
	got := string(write(t, h, repaired[4:]))
	got = got[strings.Index(got, "\n")+1:]
	want := `{"type":"tool/result","seq":4,"time":13,"data":{"turn":1,"step":1,"message":{"content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"Error: the session ended while this tool call ran; its outcome is unknown."}],"isError":true}],"source":{"kind":"tool","callId":"c1"},"role":"user","id":"interrupted-tool-result-c1-4"},"error":{"name":"ToolOutcomeUnknownError","code":"TOOL_OUTCOME_UNKNOWN"}},"sourceEventSeqs":[3],"surfaceOp":"append"}
{"type":"tool/result","seq":5,"time":13,"data":{"turn":1,"step":1,"message":{"content":[{"type":"tool-result","toolCallId":"c2","content":[{"type":"text","text":"Error: the session ended before this tool call started."}],"isError":true}],"source":{"kind":"tool","callId":"c2"},"role":"user","id":"interrupted-tool-result-c2-5"},"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"}},"surfaceOp":"append"}
{"type":"step/end","seq":6,"time":13,"data":{"turn":1,"step":1}}
{"type":"turn/end","seq":7,"time":13,"data":{"turn":1,"reason":{"kind":"interrupted"}}}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("repair closers (-want +got):\n%s", diff)
	}
	// A log whose turns all ended needs no repair.
	_, closed := read(t, sampleV0, session.ReadOptions{Repair: true})
	_, asIs := read(t, sampleV0, session.ReadOptions{})
	if len(closed) != len(asIs) {
		t.Errorf("repair added %d events to a log with no open turn", len(closed)-len(asIs))
	}
}
