package session_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/internal/sharedlogs"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop/session"
)

func read(t *testing.T, log string, opts session.ReadOptions) (session.Header, []session.Event) {
	t.Helper()
	h, events, err := session.ReadAll(strings.NewReader(log), opts)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return h, events
}

func write(t *testing.T, h session.Header, events []session.Event) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := session.WriteLog(&b, h, events); err != nil {
		t.Fatalf("write: %v", err)
	}
	return b.Bytes()
}

// summary is a comparable digest of events: type, seq, time and data bytes.
type summary struct {
	Type      string
	Seq, Time int64
	Data      string
	Surface   string
	Sources   []int64
}

func summarize(t *testing.T, events []session.Event) []summary {
	t.Helper()
	out := make([]summary, len(events))
	for i := range events {
		e := &events[i]
		data, err := e.RawData()
		if err != nil {
			t.Fatal(err)
		}
		s := summary{Type: e.Type(), Seq: e.Seq, Time: e.Time, Data: string(data), Sources: e.SourceEventSeqs}
		if e.SurfaceOp != nil {
			op, _ := e.SurfaceOp.MarshalJSON()
			s.Surface = string(op)
		}
		out[i] = s
	}
	return out
}

// TestSharedLogsRead reads every real DSH log, and rewrites each as v1: the
// v1 log reads back to the same events and writes again byte for byte.
func TestSharedLogsRead(t *testing.T) {
	dir, files := sharedlogs.Files(t)
	for _, rel := range files {
		t.Run(rel, func(t *testing.T) {
			h, events, err := session.ReadFile(filepath.Join(dir, rel), session.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			v1 := write(t, h, events)
			h2, again := read(t, string(v1), session.ReadOptions{})
			if h2.Version != session.Version1 {
				t.Errorf("rewritten header version = %d, want 1", h2.Version)
			}
			if diff := cmp.Diff(summarize(t, events), summarize(t, again)); diff != "" {
				t.Errorf("events changed through a v1 rewrite (-read +reread):\n%s", diff)
			}
			if v1again := write(t, h2, again); !bytes.Equal(v1, v1again) {
				t.Errorf("a v1 log turnsim wrote is not byte-identical when written again:\n%s", cmp.Diff(string(v1), string(v1again)))
			}
		})
	}
}

// TestOpaqueEventsKeepTheirBytes: every event type turnsim does not interpret
// keeps its data byte for byte through read and write.
func TestOpaqueEventsKeepTheirBytes(t *testing.T) {
	path := sharedlogs.Path(t, "examples/acp-agent/tests/snapshots/subagent-multi/session.jsonl")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []string // data of the opaque lines, as written by DSH
	for _, line := range strings.Split(string(raw), "\n")[1:] {
		for _, typ := range []string{"session/title", "subagent/descriptor", "approval/policy", "tool/code-dispatch"} {
			if strings.HasPrefix(line, `{"type":"`+typ+`","data":`) {
				want = append(want, strings.TrimSuffix(strings.TrimPrefix(line, `{"type":"`+typ+`","data":`), "}"))
			}
		}
	}
	if len(want) == 0 {
		t.Skip("the log has no opaque events of the expected types")
	}
	h, events := read(t, string(raw), session.ReadOptions{})
	_, again := read(t, string(write(t, h, events)), session.ReadOptions{})
	var got []string
	for i := range again {
		if o, ok := again[i].Data.(*session.Opaque); ok {
			switch o.Type {
			case "session/title", "subagent/descriptor", "approval/policy", "tool/code-dispatch":
				got = append(got, string(o.Data))
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("opaque data changed (-DSH +turnsim):\n%s", diff)
	}
}

// TestLayoutsAgree: the fixture layout (implied seq, time 0), the explicit
// layout, DSH's stream-json output and a zstd file of concatenated frames
// all read to the same events.
func TestLayoutsAgree(t *testing.T) {
	h, implied := read(t, sampleV0, session.ReadOptions{})
	explicit := write(t, h, implied)

	var streamJSON strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(explicit)), "\n")[1:] {
		streamJSON.WriteString(`{"type":"session_event","sessionId":"s-1","event":` + line + "}\n")
	}
	streamJSON.WriteString(`{"type":"result","sessionId":"s-1","output":"Recovered."}` + "\n")

	var compressed bytes.Buffer
	lines := strings.SplitAfterN(string(explicit), "\n", 2)
	for _, frame := range lines { // header in its own frame, as DSH writes it
		enc, err := zstd.NewWriter(&compressed)
		if err != nil {
			t.Fatal(err)
		}
		enc.Write([]byte(frame))
		enc.Close()
	}

	want := summarize(t, implied)
	for name, input := range map[string]string{
		"explicit":    string(explicit),
		"stream-json": streamJSON.String(),
		"zstd frames": compressed.String(),
	} {
		_, got := read(t, input, session.ReadOptions{})
		if diff := cmp.Diff(want, summarize(t, got)); diff != "" {
			t.Errorf("%s layout reads differently (-implied +%s):\n%s", name, name, diff)
		}
	}
}

func TestStreamJSONHeader(t *testing.T) {
	path := sharedlogs.Path(t, sharedlogs.ProviderRetry)
	h, events, err := session.ReadFile(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h.ID != "{{sessionId}}" || h.Version != session.Version0 {
		t.Errorf("header = %+v, want the wrapper's sessionId at v0", h)
	}
	if len(events) != 19 {
		t.Errorf("%d events, want 19 (the result line is not an event)", len(events))
	}
	if r, ok := events[9].Data.(*session.LLMRetry); !ok || r.Retry != 1 || r.Failure.Code != "RATE_LIMIT" {
		t.Errorf("seq 9 = %#v, want llm/retry 1 RATE_LIMIT", events[9].Data)
	}
}

// TestPackedRowsExpand: a packed row becomes N chunk events, seqs from seq0
// and times from time0 plus the running sum of dt.
func TestPackedRowsExpand(t *testing.T) {
	log := `{"type":"session","version":1,"id":"p","createdAt":0,"delegationDepth":0}
{"type":"turn/start","seq":0,"time":100,"data":{"turn":1}}
{"type":"step/start","seq":1,"time":100,"data":{"turn":1,"step":1}}
{"type":"text-chunks","seq0":2,"time0":110,"data":{"turn":1,"step":1,"index":0,"dt":[5,0],"texts":["a","b","c"]}}
{"type":"tool-call-chunks","seq0":5,"time0":120,"data":{"turn":1,"step":1,"index":1,"id":"c1","name":"bash","dt":[1],"args":["{","}"]}}
{"type":"step/end","seq":7,"time":130,"data":{"turn":1,"step":1}}
`
	_, events := read(t, log, session.ReadOptions{})
	type chunk struct {
		Seq, Time int64
		Type      string
		Text      string
		Args      string
	}
	var got []chunk
	for _, e := range events {
		if c, ok := e.Data.(*session.AssistantChunk); ok {
			got = append(got, chunk{e.Seq, e.Time, c.Chunk.Type, c.Chunk.Text, c.Chunk.ArgumentsDelta})
		}
	}
	want := []chunk{
		{2, 110, "text-delta", "a", ""}, {3, 115, "text-delta", "b", ""}, {4, 115, "text-delta", "c", ""},
		{5, 120, "tool-call-delta", "", "{"}, {6, 121, "tool-call-delta", "", "}"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("expanded chunks (-want +got):\n%s", diff)
	}
	if events[7].Seq != 7 {
		t.Errorf("the event after the rows has seq %d, want 7", events[7].Seq)
	}
	if line := string(write(t, session.Header{ID: "p"}, events[5:6])); !strings.Contains(line, `"chunk":{"type":"tool-call-delta","index":1,"id":"c1","name":"bash","argumentsDelta":"{"}`) {
		t.Errorf("an expanded tool-call delta writes as %s", line)
	}
}

func TestTornTailIsIgnored(t *testing.T) {
	log := sampleV0[:len(sampleV0)-1] // the last line loses its newline
	rd, err := session.NewReader(strings.NewReader(log), session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	events, err := rd.All()
	if err != nil {
		t.Fatal(err)
	}
	_, full := read(t, sampleV0, session.ReadOptions{})
	if len(events) != len(full)-1 {
		t.Errorf("%d events, want %d: the torn last line is dropped", len(events), len(full)-1)
	}
	if rd.TornTailLine() != strings.Count(sampleV0, "\n") {
		t.Errorf("TornTailLine = %d, want %d", rd.TornTailLine(), strings.Count(sampleV0, "\n"))
	}
}

// TestBadInput: each malformed input is an *InputError naming the file, the
// line and what was wrong, never a panic.
func TestBadInput(t *testing.T) {
	const v0 = `{"type":"session","version":0,"id":"s","createdAt":0,"delegationDepth":0}` + "\n"
	const v1 = `{"type":"session","version":1,"id":"s","createdAt":0,"delegationDepth":0}` + "\n"
	const start = `{"type":"turn/start","data":{"turn":1}}` + "\n"
	tests := []struct {
		name string
		log  string
		line int
		want string // a part of the message
	}{
		{"bad JSON line", v1 + start + `{"type":"step/start","data":{"turn":1,"step":1}` + "\n" + start, 3, "invalid JSON"},
		{"missing type", v1 + start + `{"data":{"turn":1}}` + "\n", 3, "missing type"},
		{"missing data", v1 + `{"type":"turn/start"}` + "\n", 2, "missing data"},
		{"unknown envelope key", v1 + `{"type":"turn/start","data":{"turn":1},"extra":1}` + "\n", 2, `unknown field "extra"`},
		{"seq gap", v1 + `{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}` + "\n" + `{"type":"step/start","seq":2,"time":0,"data":{"turn":1,"step":1}}` + "\n", 3, "seq gap: seq 2, expected 1"},
		{"seq repeats", v1 + `{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}` + "\n" + `{"type":"step/start","seq":0,"time":0,"data":{"turn":1,"step":1}}` + "\n", 3, "goes back or repeats"},
		{"explicit then implied", v1 + `{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}` + "\n" + `{"type":"step/start","data":{"turn":1,"step":1}}` + "\n", 3, "missing seq"},
		{"missing time", v1 + `{"type":"turn/start","seq":0,"data":{"turn":1}}` + "\n", 2, "missing time"},
		{"wrong field type", v1 + `{"type":"turn/start","data":{"turn":"one"}}` + "\n", 2, "data.turn: expected an integer"},
		{"turn/end without turn or reason", v1 + start + `{"type":"turn/end","data":{"error":"model exploded"}}` + "\n", 3, "turn/end data.turn is missing"},
		{"turn/end without reason", v1 + start + `{"type":"turn/end","data":{"turn":1}}` + "\n", 3, "data.reason.kind is missing"},
		{"error finish without failure", v1 + start + `{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error"}}}}` + "\n", 3, "failure is missing"},
		{"newer header version", `{"type":"session","version":2,"id":"s","createdAt":0}` + "\n", 1, "uses log format v2"},
		{"negative header version", `{"type":"session","version":-1,"id":"s","createdAt":0}` + "\n", 1, "older than the supported v0"},
		{"not a header", start, 1, "not a session header"},
		{"retired header field", `{"type":"session","version":0,"id":"s","createdAt":0,"sandboxMode":"x"}` + "\n", 1, `"sandboxMode" is retired`},
		{"empty log", "", 0, "no header line"},
		{"torn header", `{"type":"session","version":1,"id":"s","createdAt":0}`, 1, "no newline"},
		{"refused request/header-delta", v0 + `{"type":"request/header-delta","data":{}}` + "\n", 2, "request/header-delta"},
		{"refused mode/set", v0 + `{"type":"mode/set","data":{"mode":"plan"}}` + "\n", 2, "mode/set"},
		{"refused fallback header", v0 + start + `{"type":"request/header","data":{"header":{"config":{"provider":"p","model":"m"}},"reason":"fallback"}}` + "\n", 3, `reason "fallback"`},
		{"packed row dt mismatch", v1 + start + `{"type":"text-chunks","data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b","c"]}}` + "\n", 3, "dt has 1 entries for 3 members"},
		{"packed row with seq", v1 + start + `{"type":"text-chunks","seq":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}}` + "\n", 3, "only type, seq0, time0 and data"},
		{"bad surfaceOp", v1 + `{"type":"user/message","data":{"content":[],"source":{"kind":"user"},"role":"user","id":"u"},"surfaceOp":"prepend"}` + "\n", 2, "surfaceOp"},
		{"two values on a line", v1 + `{"type":"turn/start","data":{"turn":1}} {}` + "\n", 2, "invalid JSON at column 41: data after the JSON value"},
		{"a duplicate key (encoding/json would keep the last)", v1 + `{"type":"turn/start","data":{"turn":1,"turn":2}}` + "\n", 2, `invalid JSON at column 39: duplicate key "turn"`},
		{"invalid UTF-8", v1 + "{\"type\":\"user/message\",\"data\":{\"content\":\"\xff\"}}\n", 2, "invalid UTF-8"},
		{"a version that is a string", `{"type":"session","version":"1","id":"s","createdAt":0}` + "\n", 1, `header version "1" is not an integer`},
		{"a negative time", v1 + `{"type":"turn/start","seq":0,"time":-5,"data":{"turn":1}}` + "\n", 2, "time -5 is negative"},
		{"a packed row whose times go negative", v1 + `{"type":"text-chunks","seq0":0,"time0":3,"data":{"turn":1,"step":1,"index":0,"dt":[-1,-5],"texts":["a","b","c"]}}` + "\n", 2, "member 2's time -3 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := session.ReadAll(strings.NewReader(tt.log), session.ReadOptions{Name: "bad.jsonl"})
			var ie *session.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want an *InputError", err)
			}
			if ie.File != "bad.jsonl" || ie.Line != tt.line || !strings.Contains(ie.Msg, tt.want) {
				t.Errorf("err = %q (line %d), want line %d and %q", err, ie.Line, tt.line, tt.want)
			}
		})
	}
}

// TestHeaderMessagesNameNoGoType: a header field of the wrong kind is
// refused with the field, the kind it takes and the value as written;
// encoding/json's own words once reached the user ("json: cannot
// unmarshal number -1e+308 into Go value of type int64").
func TestHeaderMessagesNameNoGoType(t *testing.T) {
	for _, row := range []struct {
		why, fields string // the header's fields after type
		want        string
	}{
		{"a createdAt past int64", `"version":1,"id":"s","createdAt":-1e308`, "header createdAt must be an integer, got -1e308"},
		{"a fractional createdAt", `"version":1,"id":"s","createdAt":1.5`, "header createdAt must be an integer, got 1.5"},
		{"an id that is a number", `"version":1,"id":5,"createdAt":0`, "header id must be a string, got 5"},
		{"a cwd that is an object", `"version":1,"id":"s","createdAt":0,"cwd":{"a":1}`, `header cwd must be a string, got {"a":1}`},
		{"a seedLength that is a string", `"version":1,"id":"s","createdAt":0,"seedLength":"3"`, `header seedLength must be an integer, got "3"`},
		{"a delegationDepth past int", `"version":1,"id":"s","createdAt":0,"delegationDepth":1e30`, "header delegationDepth must be an integer, got 1e30"},
		{"an origin that is a list", `"version":1,"id":"s","createdAt":0,"origin":[1]`, "header origin must be a string, got [1]"},
		{"a version that does not fit int64", `"version":99999999999999999999,"id":"s","createdAt":0`, "header version 99999999999999999999 is not an integer"},
	} {
		log := `{"type":"session",` + row.fields + "}\n"
		_, _, err := session.ReadAll(strings.NewReader(log), session.ReadOptions{Name: "h.jsonl"})
		var ie *session.InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: err = %v, want an *InputError", row.why, err)
			continue
		}
		if ie.Line != 1 || ie.Msg != row.want {
			t.Errorf("%s: line %d %q, want line 1 %q", row.why, ie.Line, ie.Msg, row.want)
		}
		if why := strictjson.Unreadable(ie.Msg); why != "" {
			t.Errorf("%s: the message shows %s: %q", row.why, why, ie.Msg)
		}
	}
	typeLog := `{"type":1,"version":1,"id":"s","createdAt":0}` + "\n"
	if _, _, err := session.ReadAll(strings.NewReader(typeLog), session.ReadOptions{}); err == nil || strictjson.Unreadable(err.Error()) != "" {
		t.Errorf("a type that is a number: %v", err)
	}
}

// TestLineBoundAtItsLargest: the largest --max-line-bytes reads every
// line; the newline it allowed for once wrapped the bound negative, and
// every line was over it.
func TestLineBoundAtItsLargest(t *testing.T) {
	saved := limits.Current
	defer func() { limits.Current = saved }()
	limits.Current.LineBytes = math.MaxInt64
	if _, _, err := session.ReadAll(strings.NewReader(sampleV0), session.ReadOptions{}); err != nil {
		t.Errorf("the largest bound: %v", err)
	}
}

func TestOpenZstdFile(t *testing.T) {
	var compressed bytes.Buffer
	enc, _ := zstd.NewWriter(&compressed)
	enc.Write([]byte(sampleV0))
	enc.Close()
	path := filepath.Join(t.TempDir(), "session.jsonl.zstd")
	if err := os.WriteFile(path, compressed.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, got, err := session.ReadFile(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, want := read(t, sampleV0, session.ReadOptions{})
	if diff := cmp.Diff(summarize(t, want), summarize(t, got)); diff != "" {
		t.Errorf("zstd file (-plain +zstd):\n%s", diff)
	}
	if _, _, err := session.ReadFile(filepath.Join(t.TempDir(), "missing.jsonl"), session.ReadOptions{}); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("a missing file gives %v, want an error naming it", err)
	}
}

// sampleV0 is a v0 log in DSH's fixture layout: an EMPTY_RESPONSE retried
// once, then a success.
const sampleV0 = `{"type":"session","version":0,"id":"s-1","createdAt":0,"delegationDepth":0}
{"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":[{"content":[{"type":"text","text":"hi"}],"source":{"kind":"user"},"role":"user","id":"u1"}]}}
{"type":"turn/start","data":{"turn":1}}
{"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"removedCount":1,"inserted":[]}}
{"type":"step/start","data":{"turn":1,"step":1}}
{"type":"user/message","data":{"content":[{"type":"text","text":"hi"}],"source":{"kind":"user"},"role":"user","id":"u1"},"surfaceOp":"append"}
{"type":"session/title","data":{"title":"hi","messageSeqs":[4],"source":{"kind":"fallback"}}}
{"type":"request/header","data":{"header":{"config":{"provider":"mock","model":"mock-model"},"system":"<system>"},"reason":"initial"}}
{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"model returned a completed response with no content","code":"EMPTY_RESPONSE"}}}}}
{"type":"llm/retry","data":{"retryId":"r1","turn":1,"step":1,"provider":"mock","mode":"normal","policyKey":"[\"normal\",2,[\"EMPTY_RESPONSE\"],1,1,0]","retry":1,"maxRetries":2,"delayMs":1,"failure":{"message":"model returned a completed response with no content","code":"EMPTY_RESPONSE"}}}
{"type":"llm/retry-started","data":{"retryId":"r1","turn":1,"step":1,"retry":1}}
{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}}
{"type":"text-chunks","data":{"turn":1,"step":1,"index":0,"dt":[3,4],"texts":["Re","cov","ered."]}}
{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Recovered."}}}}
{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}
{"type":"assistant/message","data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"Recovered."}],"source":{"kind":"model","provider":"mock","model":"mock-model"},"id":"a1"}},"sourceEventSeqs":[11,12,13,14,15,16],"surfaceOp":"append"}
{"type":"step/end","data":{"turn":1,"step":1}}
{"type":"turn/end","data":{"turn":1,"reason":{"kind":"completed"}}}
`

// TestZstdWindowIsBounded: a frame whose window is larger than a line may
// be (--max-line-bytes) is refused with the bound and its flag, before
// the decoder holds it (a 40 KB file with a 401 MiB window once took
// 1.09 GB); within the bound it reads.
func TestZstdWindowIsBounded(t *testing.T) {
	saved := limits.Current
	defer func() { limits.Current = saved }()
	var compressed bytes.Buffer
	enc, _ := zstd.NewWriter(&compressed, zstd.WithWindowSize(8<<20))
	enc.Write([]byte(sampleV0))
	enc.Write(bytes.Repeat([]byte("\n"), 3<<20)) // frames past one block carry their window
	enc.Close()
	limits.Current.LineBytes = 1 << 20 // the window, 8 MiB, is over it
	_, _, err := session.ReadAll(bytes.NewReader(compressed.Bytes()), session.ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "a frame's window (the memory its decoding holds) is over the limit of 1 MiB (raise it with --max-line-bytes)") {
		t.Errorf("an 8 MiB window under a 1 MiB bound: %v", err)
	}
	limits.Current.LineBytes = 8 << 20
	if _, _, err := session.ReadAll(bytes.NewReader(compressed.Bytes()), session.ReadOptions{}); err != nil {
		t.Errorf("within the bound: %v", err)
	}
}

// TestReadAfterClose: a reader closed gives its read buffer back for the
// next one, and reading on is an error, not a read of another log's
// bytes.
func TestReadAfterClose(t *testing.T) {
	log := `{"type":"session","version":1,"id":"s","createdAt":0}` + "\n" +
		`{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}` + "\n"
	r, err := session.NewReader(strings.NewReader(log), session.ReadOptions{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	other, err := session.NewReader(strings.NewReader(strings.ReplaceAll(log, `"turn":1`, `"turn":2`)), session.ReadOptions{Name: "b"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if e, err := r.Next(); err == nil || !strings.Contains(err.Error(), "read after Close") {
		t.Errorf("Next after Close: %v, %v; want an error saying so", e, err)
	}
	if e, err := other.Next(); err != nil || e.Data.(*session.TurnStart).Turn != 2 {
		t.Errorf("the other reader read %v, %v; want turn 2", e, err)
	}
}

// TestHeaderOutlivesItsReader: a header's raw fields (agentPreset, fields
// turnsim does not know) are its own, not views of the read buffer the
// next reader takes over.
func TestHeaderOutlivesItsReader(t *testing.T) {
	first := `{"type":"session","version":1,"id":"a","createdAt":0,"agentPreset":"minimal","title":"kept"}` + "\n"
	h, _, err := session.ReadAll(strings.NewReader(first), session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := session.WriteLog(&want, h, nil); err != nil {
		t.Fatal(err)
	}
	other := `{"type":"session","version":1,"id":"ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ","createdAt":0}` + "\n"
	if _, _, err := session.ReadAll(strings.NewReader(other), session.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := session.WriteLog(&got, h, nil); err != nil || got.String() != want.String() {
		t.Errorf("the first header after a second read: %v\n%s\nwant\n%s", err, got.String(), want.String())
	}
}
