package session

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/internal/sharedlogs"
	"github.com/turnsim/turnsim/internal/strictjson"
)

// typedData splits an event line into its type and data, for seeds.
func typedData(line string) (string, string, bool) {
	var e struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal([]byte(line), &e) != nil || newPayload(e.Type) == nil || e.Data == nil {
		return "", "", false
	}
	return e.Type, string(e.Data), true
}

// FuzzFastPayload holds decodeFast to encoding/json: on any data the
// line's strict check passes, what decodeFast reads is what
// json.Unmarshal reads, field for field (nil and empty slices apart), and
// json.Unmarshal reads it without error.
func FuzzFastPayload(f *testing.F) {
	for _, line := range sharedLines(3000, func(string) bool { return true }) {
		if typ, data, ok := typedData(line); ok {
			f.Add(uint8(indexOf(typ)), data)
		}
	}
	for _, c := range fastPayloadEdges {
		f.Add(uint8(indexOf(c.typ)), c.data)
	}
	f.Fuzz(func(t *testing.T, which uint8, data string) {
		typ := typedEventTypes[int(which)%len(typedEventTypes)]
		if strictjson.Check([]byte(data)) != nil {
			return // decodeFast reads only what the line's check passed
		}
		fast := newPayload(typ)
		if !decodeFast(fast, []byte(data), nil) {
			return
		}
		slow := newPayload(typ)
		if err := json.Unmarshal([]byte(data), slow); err != nil {
			t.Fatalf("%s %s: decodeFast read it, encoding/json refuses it: %v", typ, data, err)
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("%s %s: decodeFast differs from encoding/json (-json +fast):\n%s", typ, data, diff)
		}
	})
}

func indexOf(typ string) int {
	for i, t := range typedEventTypes {
		if t == typ {
			return i
		}
	}
	return 0
}

// fastPayloadEdges are data encoding/json reads in ways easy to get wrong:
// each must be read the same, or left to it.
var fastPayloadEdges = []struct{ typ, data string }{
	{TypeTurnStart, `{"Turn":1}`},                             // a key in other case matches
	{TypeTurnStart, `{"turn":1,"TURN":2}`},                    // and the last one wins
	{TypeTurnStart, `{"tu\u0072n":3}`},                        // an escaped key matches
	{TypeTurnStart, `{"turn":null}`},                          // null leaves an int as it is
	{TypeTurnStart, `{"turn":1.0}`},                           // a fraction is refused
	{TypeTurnStart, `{"turn":1e2}`},                           // so is an exponent
	{TypeTurnStart, `{"turn":99999999999999999999}`},          // and an overflow
	{TypeTurnStart, `{"turn":-0}`},                            // minus zero is 0
	{TypeTurnStart, `{"turn":"1"}`},                           // a string is refused
	{TypeTurnStart, `{"turn":1,"other":{"x":[1,{"y":"}"}]}}`}, // an unknown key is skipped
	{TypeTurnStart, `{"ſurn":1}`},                             // a key not ASCII may fold
	{TypeTurnStart, ` { "turn" : 7 } `},                       // space anywhere
	{TypeTurnStart, `[]`},                                     // not an object
	{TypeSessionEndSeed, `{"a":1}`},
	{TypeToolCall, `{"turn":1,"step":1,"callId":"c","name":"read","arguments":"{\"path\":\"a\\\\b\"}\n\t\/"}`},
	{TypeToolCall, `{"turn":1,"step":1,"callId":"c\u00e9","name":"read","arguments":"\ud83d\ude00 \ud800"}`},
	{TypeAssistantChunk, `{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"m","code":"SERVER","status":503,"providerRetryAfterMs":1.5e3}}}}`},
	{TypeAssistantChunk, `{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"name":null,"reason":null,"usage":null}}`},
	{TypeInboxSpliced, `{"target":"next-step","start":0,"inserted":[]}`},
	{TypeInboxSpliced, `{"target":"next-step","start":0,"inserted":null}`},
	{TypeInboxSpliced, `{"target":"next-turn","start":0,"removedCount":1,"inserted":[{"content":[{"type":"text","text":"hi"}],"source":{"kind":"user"},"role":"user","id":"u1"}],"outcome":"canceled"}`},
	{TypeTurnEnd, `{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"hook","reason":"stop"}}}`},
	{TypeTurnEnd, `{"turn":1,"reason":{"kind":"error","error":{"message":"m","code":"AUTH","status":null}}}`},
	{TypeLLMRetry, `{"retryId":"r","turn":1,"step":1,"provider":"p","mode":"normal","policyKey":"k","retry":1,"maxRetries":5,"delayMs":481.6522593526289,"failure":{"message":"m","code":"SERVER"}}`},
	{TypeToolResult, `{"turn":1,"step":1,"message":null,"error":{"name":"read","code":"E"},"callId":"c"}`},
	{TypeRequestHeader, `{"header":{"config":{"provider":"p","model":"m"},"system":"s","tools":[]},"reason":"initial"}`},
	{TypeRequestContext, `{"provider":"p","model":"m","contextWindow":null}`},
	{TypeCompactionStart, `{"compactionId":"c","turn":null}`},
	{TypeAssistantMessage, `{"turn":1,"step":1,"message":{"role":"assistant","content":[],"source":{"kind":"model","provider":"p","model":"m","replayState":{"a":1}},"id":"a1"},"usage":{"input":1},"interrupted":true}`},
}

// TestSharedLogsReadWithoutEncodingJSON: every packed row and every typed
// event of DSH's own logs but the compaction records (rare; encoding/json
// reads them) is read by decodePackedFast or decodeFast, so that the fast
// path is the path real logs take.
func TestSharedLogsReadWithoutEncodingJSON(t *testing.T) {
	lines := sharedLines(1<<30, func(string) bool { return true })
	if len(lines) == 0 {
		t.Skip("no shared logs")
	}
	read, left := 0, map[string]int{}
	for _, line := range lines {
		var row struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal([]byte(line), &row) == nil && isPackedRow(row.Type) {
			var d packedData
			if !decodePackedFast(row.Data, &d) {
				t.Errorf("%s row left to encoding/json: %.200s", row.Type, row.Data)
			}
			read++
			continue
		}
		typ, data, ok := typedData(line)
		if !ok || typ == TypeCompactionSummary || typ == TypeCompactionPrune {
			continue
		}
		if decodeFast(newPayload(typ), []byte(data), nil) {
			read++
			continue
		}
		if left[typ] == 0 {
			t.Errorf("%s left to encoding/json: %.200s", typ, data)
		}
		left[typ]++
	}
	if read == 0 {
		t.Fatal("no typed event read")
	}
	t.Logf("%d typed events and packed rows read without encoding/json", read)
}

// TestFastPayloadEdges runs the edges once without the fuzzer, naming the
// ones left to encoding/json.
func TestFastPayloadEdges(t *testing.T) {
	for _, c := range fastPayloadEdges {
		fast := newPayload(c.typ)
		ok := decodeFast(fast, []byte(c.data), nil)
		if !ok {
			continue
		}
		slow := newPayload(c.typ)
		if err := json.Unmarshal([]byte(c.data), slow); err != nil {
			t.Errorf("%s %s: read fast, refused by encoding/json: %v", c.typ, c.data, err)
			continue
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Errorf("%s %s (-json +fast):\n%s", c.typ, c.data, diff)
		}
	}
	// Each edge that only encoding/json reads right is left to it.
	for _, data := range []string{`{"Turn":1}`, `{"tu\u0072n":3}`, `{"turn":null}`, `{"turn":1.0}`, `{"ſurn":1}`, `{"turn":"1"}`} {
		if decodeFast(new(TurnStart), []byte(data), nil) {
			t.Errorf("turn/start %s read fast; it is encoding/json's", data)
		}
	}
	if !strings.Contains(fastPayloadEdges[14].data, `\\\\`) {
		t.Fatal("the escapes edge lost its escapes")
	}
}

// TestFastReadIsEncodingJSONRead: every shared DSH log reads to the same
// events, field for field, with decodeFast as with encoding/json alone.
func TestFastReadIsEncodingJSONRead(t *testing.T) {
	dir, files := sharedlogs.Files(t)
	read := func(path string) []Event {
		_, events, err := ReadFile(path, ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return events
	}
	total := 0
	for _, rel := range files {
		path := filepath.Join(dir, rel)
		fast := read(path)
		fastPayloads = false
		slow := read(path)
		fastPayloads = true
		if diff := cmp.Diff(slow, fast, cmp.AllowUnexported(Event{})); diff != "" {
			t.Errorf("%s (-encoding/json +fast):\n%s", rel, diff)
		}
		total += len(fast)
	}
	t.Logf("%d logs, %d events read the same", len(files), total)
}

// FuzzFastPacked holds decodePackedFast to encoding/json's decoder with
// unknown fields refused, as expandPacked used it alone.
func FuzzFastPacked(f *testing.F) {
	for _, line := range sharedLines(600, func(l string) bool { return strings.Contains(l, `-chunks","data":`) }) {
		var row struct {
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal([]byte(line), &row) == nil {
			f.Add(string(row.Data))
		}
	}
	for _, s := range []string{
		`{"turn":1,"step":1,"index":0,"dt":[1,2],"texts":["a","b","c"]}`,
		`{"turn":1,"step":1,"index":1,"id":"c","name":"read","dt":[0],"args":["{\"","}"]}`,
		`{"turn":1,"step":1,"index":0,"dt":null,"texts":[],"extra":1}`, // unknown: refused
		`{"Turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}`,          // other case: matched
		`{"turn":1,"step":1,"index":0,"dt":[],"texts":["a",null]}`,     // null member: ""
		`{"turn":1,"step":1,"index":0,"name":null,"dt":[1e0],"texts":["a","b"]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		if strictjson.Check([]byte(data)) != nil {
			return
		}
		var fast packedData
		if !decodePackedFast([]byte(data), &fast) {
			return
		}
		var slow packedData
		dec := json.NewDecoder(strings.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&slow); err != nil {
			t.Fatalf("%s: read fast, refused by encoding/json: %v", data, err)
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("%s (-json +fast):\n%s", data, diff)
		}
	})
}

// TestReaderLetsGoOfLongRows: the slice a line's events pass through
// keeps no room of a long packed row for the rest of the log (it held a
// 200,000-member row's events to the end of a streamed check), and All
// returns no slice sized for far more events than it holds.
func TestReaderLetsGoOfLongRows(t *testing.T) {
	const members = 1000
	var b strings.Builder
	b.WriteString(`{"type":"session","version":1,"id":"s","createdAt":0}` + "\n")
	b.WriteString(`{"type":"text-chunks","data":{"turn":1,"step":1,"index":0,"dt":[0` + strings.Repeat(",0", members-2) + `],"texts":["a"` + strings.Repeat(`,"a"`, members-1) + `]}}` + "\n")
	b.WriteString(`{"type":"step/end","data":{"turn":1,"step":1}}` + "\n")
	r, err := NewReader(strings.NewReader(b.String()), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; i <= members; i++ {
		if _, err := r.Next(); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	if c := cap(r.pending); c > maxPendingKept {
		t.Errorf("after the row, the pending slice keeps room for %d events, want at most %d", c, maxPendingKept)
	}

	// A log of a few long lines: All's size hint is far over.
	long := `{"type":"session","version":1,"id":"s","createdAt":0}` + "\n" +
		`{"type":"user/message","data":{"content":"` + strings.Repeat("x", 1<<20) + `","source":{"kind":"user"},"role":"user","id":"u"}}` + "\n"
	_, events, err := ReadAll(strings.NewReader(long), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cap(events) > 2*len(events)+bytesPerEvent {
		t.Errorf("All returned %d events in room for %d", len(events), cap(events))
	}
}

// TestTypedEventTypesHavePayloads: the list the reader spells types from
// and newPayload agree.
func TestTypedEventTypesHavePayloads(t *testing.T) {
	for _, typ := range typedEventTypes {
		if newPayload(typ) == nil {
			t.Errorf("%s is listed as typed, but newPayload makes no payload for it", typ)
		}
	}
}
