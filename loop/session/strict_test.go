package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/internal/strictjson"
)

// checkedAsData reports whether data passes the strict check as the data
// of a line, a member one level deep, with nesting bound to maxDepth: what
// a checking decoder that reads it vouches for.
func checkedAsData(data string, maxDepth int) bool {
	saved := limits.Current
	defer func() { limits.Current = saved }()
	limits.Current.Depth = maxDepth
	return strictjson.Check([]byte(`{"data":`+data+`}`)) == nil
}

// readChecked runs read with a checking decoder's state, nesting bound
// to maxDepth as --max-depth bounds it (which the strict check reads).
func readChecked(maxDepth int, read func(c *checking) bool) bool {
	saved := limits.Current
	defer func() { limits.Current = saved }()
	limits.Current.Depth = maxDepth
	return read(&checking{strict: new(strictjson.Splitter), maxDepth: maxDepth})
}

// FuzzCheckedFastPayload holds the checking decoder to the strict check
// and encoding/json, as the reader used them before it read a line's data
// as it checked it: what it reads passes the strict check (under any
// bound on nesting; UTF-8 too, which the reader no longer checks first)
// and is what json.Unmarshal reads, field for field.
func FuzzCheckedFastPayload(f *testing.F) {
	for _, line := range sharedLines(3000, func(string) bool { return true }) {
		if typ, data, ok := typedData(line); ok {
			f.Add(uint8(indexOf(typ)), data, uint8(64))
		}
	}
	for _, c := range fastPayloadEdges {
		f.Add(uint8(indexOf(c.typ)), c.data, uint8(64))
	}
	for _, c := range checkedEdges {
		f.Add(uint8(indexOf(c.typ)), c.data, uint8(c.maxDepth))
	}
	f.Fuzz(func(t *testing.T, which uint8, data string, maxDepth uint8) {
		typ := typedEventTypes[int(which)%len(typedEventTypes)]
		depth := int(maxDepth%70) + 1
		fast := newPayload(typ)
		if !readChecked(depth, func(c *checking) bool { return decodeFastChecked(fast, []byte(data), c) }) {
			return
		}
		if !checkedAsData(data, depth) {
			t.Fatalf("%s %s (nesting to %d): read as checked, refused by the strict check", typ, data, depth)
		}
		slow := newPayload(typ)
		if err := json.Unmarshal([]byte(data), slow); err != nil {
			t.Fatalf("%s %s: read as checked, refused by encoding/json: %v", typ, data, err)
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("%s %s (-json +checked):\n%s", typ, data, diff)
		}
	})
}

// FuzzCheckedPacked: the same of a packed row's data, against
// encoding/json with unknown fields refused.
func FuzzCheckedPacked(f *testing.F) {
	for _, line := range sharedLines(600, func(l string) bool { return strings.Contains(l, `-chunks","data":`) }) {
		var row struct {
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal([]byte(line), &row) == nil {
			f.Add(string(row.Data), uint8(64))
		}
	}
	f.Add(`{"turn":1,"step":1,"index":0,"dt":[1,2],"texts":["a","b","c"]}`, uint8(2))
	f.Add(`{"turn":1,"step":1,"index":0,"dt":[01],"texts":["a","b"]}`, uint8(64))
	f.Add(`{"turn":1,"step":1,"turn":1,"index":0,"dt":[1],"texts":["a","b"]}`, uint8(64))
	f.Fuzz(func(t *testing.T, data string, maxDepth uint8) {
		depth := int(maxDepth%70) + 1
		var fast packedData
		if !readChecked(depth, func(c *checking) bool { return decodePackedChecked([]byte(data), &fast, c) }) {
			return
		}
		if !checkedAsData(data, depth) {
			t.Fatalf("%s (nesting to %d): read as checked, refused by the strict check", data, depth)
		}
		var slow packedData
		dec := json.NewDecoder(strings.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&slow); err != nil {
			t.Fatalf("%s: read as checked, refused by encoding/json: %v", data, err)
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("%s (-json +checked):\n%s", data, diff)
		}
	})
}

// checkedEdges are data the strict check refuses in ways the checking
// decoder must see for itself, each with a reason.
var checkedEdges = []struct {
	why, typ, data string
	maxDepth       int
}{
	{"a key twice", TypeTurnStart, `{"turn":1,"turn":2}`, 64},
	{"a key twice in a nested object", TypeUserMessage, `{"content":[],"source":{"kind":"user","kind":"x"},"role":"user","id":"i"}`, 64},
	{"a key twice in an object left raw", TypeUserMessage, `{"content":[{"type":"text","type":"x"}],"source":{"kind":"user"},"role":"user","id":"i"}`, 64},
	{"a key twice in a value skipped", TypeTurnStart, `{"turn":1,"other":{"a":1,"a":2}}`, 64},
	{"a leading zero", TypeTurnStart, `{"turn":01}`, 64},
	{"a leading zero in a list", TypeInboxSpliced, `{"target":"t","start":00,"inserted":[]}`, 64},
	{"a fraction without digits", TypeAssistantChunk, `{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"m","code":"c","providerRetryAfterMs":1.}}}}`, 64},
	{"a number in a raw value", TypeUserMessage, `{"content":[-01],"source":{"kind":"user"},"role":"user","id":"i"}`, 64},
	{"a control character in a key", TypeTurnStart, "{\"turn\":1,\"a\x01\":2}", 64},
	{"a control character in a string", TypeToolCall, "{\"turn\":1,\"step\":1,\"callId\":\"a\tb\",\"name\":\"n\",\"arguments\":\"\"}", 64},
	{"an invalid escape in a raw value", TypeUserMessage, `{"content":["\q"],"source":{"kind":"user"},"role":"user","id":"i"}`, 64},
	{"a bad literal in a value skipped", TypeTurnStart, `{"turn":1,"other":tru}`, 64},
	{"nested past the bound", TypeTurnStart, `{"turn":1}`, 1},
	{"nested to the bound", TypeTurnStart, `{"turn":1}`, 2},
	{"a list nested past the bound", TypeInboxSpliced, `{"target":"t","start":0,"inserted":[{"content":[],"source":{"kind":"user"},"role":"user","id":"i"}]}`, 3},
	{"a raw value nested past the bound", TypeUserMessage, `{"content":[[[1]]],"source":{"kind":"user"},"role":"user","id":"i"}`, 4},
	{"a raw value nested to the bound", TypeUserMessage, `{"content":[[[1]]],"source":{"kind":"user"},"role":"user","id":"i"}`, 5},
}

// TestCheckedEdges: the checking decoder reads each edge exactly when the
// strict check passes it.
func TestCheckedEdges(t *testing.T) {
	for _, c := range checkedEdges {
		read := readChecked(c.maxDepth, func(ch *checking) bool { return decodeFastChecked(newPayload(c.typ), []byte(c.data), ch) })
		if checked := checkedAsData(c.data, c.maxDepth); read != checked {
			t.Errorf("%s: %s read as checked: %v, the strict check passes it: %v", c.why, c.data, read, checked)
		}
	}
}
