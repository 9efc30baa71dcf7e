package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/internal/sharedlogs"
	"github.com/turnsim/turnsim/internal/strictjson"
)

// readResult is what reading a log gives: its header, its events and its
// error's text.
type readResult struct {
	Header Header
	Events []Event
	Err    string
}

// readSplit reads log as the reader does: envelopes from the members the
// strict check split each line into, plain header values without
// encoding/json, and All appending each line's events at once.
func readSplit(log string, opts ReadOptions) readResult {
	h, events, err := ReadAll(strings.NewReader(log), opts)
	return result(h, events, err)
}

// readScanned reads log as the reader did before: each envelope from a
// walk of its own (scanObject), every header value by encoding/json, and
// event after event through Next.
func readScanned(log string, opts ReadOptions) readResult {
	splitMembers, plainHeaders = false, false
	defer func() { splitMembers, plainHeaders = true, true }()
	rd, err := NewReader(strings.NewReader(log), opts)
	if err != nil {
		return result(Header{}, nil, err)
	}
	defer rd.Close()
	var events []Event
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return result(rd.Header(), events, nil)
		}
		if err != nil {
			return result(rd.Header(), events, err)
		}
		events = append(events, e)
	}
}

func result(h Header, events []Event, err error) readResult {
	r := readResult{Header: h, Events: events}
	if err != nil {
		r.Err = err.Error()
	}
	if len(r.Events) == 0 {
		r.Events = nil
	}
	return r
}

// sameRead reports how the two reads of log differ, "" when not at all.
func sameRead(log string, opts ReadOptions) string {
	return cmp.Diff(readScanned(log, opts), readSplit(log, opts), cmp.AllowUnexported(Event{}))
}

// TestSplitReadIsScannedRead: every shared DSH log reads to the same
// header and events, field for field, either way, with crash repair and
// without.
func TestSplitReadIsScannedRead(t *testing.T) {
	dir, files := sharedlogs.Files(t)
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, repair := range []bool{false, true} {
			if diff := sameRead(string(data), ReadOptions{Name: rel, Repair: repair}); diff != "" {
				t.Errorf("%s (repair %v) (-scanned +split):\n%s", rel, repair, diff)
			}
		}
	}
}

// splitEdges are logs whose lines and headers read in ways easy to get
// wrong: each must read the same, events or error, either way.
var splitEdges = []struct{ why, log string }{
	{"invalid UTF-8 in a string of the data", v1Header + "{\"type\":\"tool/call\",\"seq\":0,\"time\":5,\"data\":{\"turn\":1,\"step\":1,\"callId\":\"c\",\"name\":\"n\xff\",\"arguments\":\"\"}}\n"},
	{"invalid UTF-8 in an escaped string of the data", v1Header + "{\"type\":\"tool/call\",\"seq\":0,\"time\":5,\"data\":{\"turn\":1,\"step\":1,\"callId\":\"c\\\\n\xc3\",\"name\":\"n\",\"arguments\":\"\"}}\n"},
	{"invalid UTF-8 in a raw value", v1Header + "{\"type\":\"user/message\",\"seq\":0,\"time\":5,\"data\":{\"content\":[\"\xe2\x82\"],\"source\":{\"kind\":\"user\"},\"role\":\"user\",\"id\":\"i\"}}\n"},
	{"invalid UTF-8 in a key of the data", v1Header + "{\"type\":\"turn/start\",\"seq\":0,\"time\":5,\"data\":{\"turn\":1,\"\xff\":2}}\n"},
	{"invalid UTF-8 in the envelope", v1Header + "{\"type\":\"x\xff\",\"seq\":0,\"time\":5,\"data\":{}}\n"},
	{"valid UTF-8 of every width", v1Header + `{"type":"tool/call","seq":0,"time":5,"data":{"turn":1,"step":1,"callId":"é漢😀","name":"\\né","arguments":""}}` + "\n"},
	{"a v1 log of plain lines", v1Header + `{"type":"turn/start","seq":0,"time":5,"data":{"turn":1},"surfaceOp":"append"}` + "\n"},
	{"an escaped key in the envelope is its decoded key", v1Header + `{"typ\u0065":"turn/start","seq":0,"time":5,"data":{"turn":1}}` + "\n"},
	{"a key in other case is unknown to the envelope", v1Header + `{"Type":"turn/start","seq":0,"time":5,"data":{"turn":1}}` + "\n"},
	{"a duplicate key is the strict check's to refuse", v1Header + `{"type":"turn/start","type":"turn/end","seq":0,"time":5,"data":{"turn":1}}` + "\n"},
	{"a line that is not an object", v1Header + `[1,2]` + "\n"},
	{"a string for a line", v1Header + `"turn/start"` + "\n"},
	{"an empty object: no type", v1Header + `{}` + "\n"},
	{"space around the members", v1Header + ` { "type" : "turn/start" , "seq" : 0 , "time" : 5 , "data" : { "turn" : 1 } } ` + "\n"},
	{"a surfaceOp in other case", v1Header + `{"type":"turn/start","seq":0,"time":5,"data":{"turn":1},"surfaceOp":"Append"}` + "\n"},
	{"a surfaceOp escaped", v1Header + `{"type":"turn/start","seq":0,"time":5,"data":{"turn":1},"surfaceOp":"\u0061ppend"}` + "\n"},
	{"a replacing surfaceOp", v1Header + `{"type":"turn/start","seq":0,"time":5,"data":{"turn":1},"surfaceOp":{"op":"replace","start":0,"end":0}}` + "\n"},
	{"a null surfaceOp", v1Header + `{"type":"turn/start","seq":0,"time":5,"data":{"turn":1},"surfaceOp":null}` + "\n"},
	{"a packed row", v1Header + `{"type":"text-chunks","seq0":0,"time0":5,"data":{"turn":1,"step":1,"index":0,"dt":[1,2],"texts":["a","b","c"]}}` + "\n"},
	{"a packed row with an envelope key of an event", v1Header + `{"type":"text-chunks","seq0":0,"time0":5,"seq":0,"data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"]}}` + "\n"},
	{"a header without version (v0) and an edited v0 event", `{"type":"session","id":"s","createdAt":0}` + "\n" + `{"type":"user/message","data":{"content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}},"surfaceOp":"append"}` + "\n"},
	{"a v0 event with space in the values the edge re-encodes", v0Header + `{"type":"user/message","data":{ "content" : [ { "type" : "text" , "text" : "a b" } ] , "source" : { "kind" : "user" } },"surfaceOp":"append"}` + "\n"},
	{"a v0 turn/start whose trigger goes", v0Header + `{"type":"turn/start","data":{"turn":1,"trigger":{"kind":"message"}}}` + "\n"},
	{"a header whose type is in other case", `{"TYPE":"session","version":1,"id":"s","createdAt":0}` + "\n"},
	{"a header whose type repeats in other case, the last winning in encoding/json", `{"type":"session","Type":"x","version":1,"id":"s","createdAt":0}` + "\n"},
	{"a header whose type is escaped", `{"type":"sess\u0069on","version":1,"id":"s","createdAt":0}` + "\n"},
	{"a header whose key is escaped", `{"typ\u0065":"session","version":1,"id":"s","createdAt":0}` + "\n"},
	{"a header of a number for its type", `{"type":7,"version":1,"id":"s","createdAt":0}` + "\n"},
	{"a header of null for its type", `{"type":null,"version":1,"id":"s","createdAt":0}` + "\n"},
	{"a header that is not JSON", `{"type":"session",` + "\n"},
	{"a header that is an array", `["session"]` + "\n"},
	{"a header whose id is escaped", `{"type":"session","version":1,"id":"a\nb","createdAt":0}` + "\n"},
	{"a header of version -0", `{"type":"session","version":-0,"id":"s","createdAt":0}` + "\n"},
	{"a header of version 2", `{"type":"session","version":2,"id":"s","createdAt":0}` + "\n"},
	{"a header of version 1.0", `{"type":"session","version":1.0,"id":"s","createdAt":0}` + "\n"},
	{"a header of a leading zero", `{"type":"session","version":1,"id":"s","createdAt":007}` + "\n"},
	{"a header of the largest createdAt", `{"type":"session","version":1,"id":"s","createdAt":9223372036854775807}` + "\n"},
	{"a header of an overflowing createdAt", `{"type":"session","version":1,"id":"s","createdAt":9223372036854775808}` + "\n"},
	{"a header of 18 digits", `{"type":"session","version":1,"id":"s","createdAt":999999999999999999}` + "\n"},
	{"a header of a negative createdAt", `{"type":"session","version":1,"id":"s","createdAt":-5}` + "\n"},
	{"a header of a string createdAt", `{"type":"session","version":1,"id":"s","createdAt":"0"}` + "\n"},
	{"a header of optional fields", `{"type":"session","version":1,"id":"s","createdAt":0,"cwd":"/w","parentSession":"p","seedLength":3,"origin":"o","delegationDepth":2}` + "\n"},
	{"a header of null optional fields", `{"type":"session","version":1,"id":"s","createdAt":0,"cwd":null,"seedLength":null,"delegationDepth":null}` + "\n"},
	{"a header of an escaped cwd", `{"type":"session","version":1,"id":"s","createdAt":0,"cwd":"C:\\w"}` + "\n"},
	{"a header of a fraction for delegationDepth", `{"type":"session","version":1,"id":"s","createdAt":0,"delegationDepth":1.5}` + "\n"},
	{"a stream-json log", `{"type":"session_event","sessionId":"s","event":{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}}` + "\n"},
	{"a stream-json log whose sessionId is in other case", `{"type":"session_event","SessionId":"s","event":{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}}` + "\n"},
	{"a stream-json log whose sessionId is escaped", `{"type":"session_event","sessionId":"\u0073","event":{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}}` + "\n"},
}

const (
	v0Header = `{"type":"session","version":0,"id":"s","createdAt":0}` + "\n"
	v1Header = `{"type":"session","version":1,"id":"s","createdAt":0}` + "\n"
)

// TestSplitReadEdges runs the edges, with crash repair and without.
func TestSplitReadEdges(t *testing.T) {
	for _, c := range splitEdges {
		for _, repair := range []bool{false, true} {
			if diff := sameRead(c.log, ReadOptions{Name: "edge", Repair: repair}); diff != "" {
				t.Errorf("%s (repair %v) (-scanned +split):\n%s", c.why, repair, diff)
			}
		}
	}
}

// FuzzSplitRead holds the reader to the way it read before: one arbitrary
// line after a header of either version, or as the header itself, reads
// to the same header, events and error either way.
func FuzzSplitRead(f *testing.F) {
	for _, line := range sharedLines(1500, func(string) bool { return true }) {
		f.Add(line, uint8(0))
		f.Add(line, uint8(1))
	}
	for _, c := range splitEdges {
		f.Add(strings.TrimSuffix(c.log, "\n"), uint8(2))
	}
	for _, c := range checkedEdges {
		f.Add(`{"type":"`+c.typ+`","seq":0,"time":0,"data":`+c.data+`}`, uint8(1))
	}
	f.Fuzz(func(t *testing.T, line string, mode uint8) {
		log := `{"type":"session","version":` + string('0'+rune(mode%2)) + `,"id":"s","createdAt":0}` + "\n" + line + "\n"
		if mode&2 != 0 {
			log = line + "\n"
		}
		opts := ReadOptions{Name: "fuzz", Repair: mode&4 != 0}
		if diff := sameRead(log, opts); diff != "" {
			t.Fatalf("%q (-scanned +split):\n%s", log, diff)
		}
	})
}

// FuzzMembersAreScanned: the members the strict check splits a line into
// are the keys and values scanObject finds in it, in order.
func FuzzMembersAreScanned(f *testing.F) {
	for _, line := range sharedLines(500, func(string) bool { return true }) {
		f.Add(line)
	}
	for _, c := range splitEdges {
		for _, line := range strings.Split(c.log, "\n") {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		members, object, err := strictjson.CheckMembers([]byte(line), nil)
		if err != nil || !object {
			return
		}
		var scanned []strictjson.Member
		if err := scanObject([]byte(line), func(key, value []byte) error {
			scanned = append(scanned, strictjson.Member{Key: string(key), Value: value})
			return nil
		}); err != nil {
			t.Fatalf("%q: the check passed it, scanObject refuses it: %v", line, err)
		}
		if diff := cmp.Diff(scanned, members); diff != "" {
			t.Fatalf("%q (-scanned +split):\n%s", line, diff)
		}
	})
}

// FuzzAppendCompact holds appendCompact to json.Compact on any JSON the
// strict check passes (the values the v0 edge re-encodes).
func FuzzAppendCompact(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5e3, -0, "x \n\u00e9 \"q\" \\", true, null], "b": {}}`, " [ ] ", `"\\"`, `{"k":"v"}`, "\t{\r\n\"a\"\t:\t1\r\n}\n"} {
		f.Add([]byte(s))
	}
	for _, line := range sharedLines(300, func(string) bool { return true }) {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if strictjson.Check(data) != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Compact(&want, data); err != nil {
			t.Fatalf("%q: the check passed it, json.Compact refuses it: %v", data, err)
		}
		if got := appendCompact(nil, data); string(got) != want.String() {
			t.Fatalf("appendCompact(%q) = %q, json.Compact writes %q", data, got, want.String())
		}
	})
}

// TestPlainHeaderField: what plainHeaderField reads is what encoding/json
// reads, and what it leaves is encoding/json's, each row saying why.
func TestPlainHeaderField(t *testing.T) {
	for _, row := range []struct {
		why, value string
		plain      bool // read without encoding/json
	}{
		{"a plain string", `"s-1"`, true},
		{"an empty string", `""`, true},
		{"a string of other scripts", `"é漢😀"`, true},
		{"an escape", `"a\"b"`, false},
		{"a \\u escape", `"\u0041"`, false},
		{"null, which leaves a value as it was", `null`, false},
		{"an integer", `42`, true},
		{"a negative integer", `-42`, true},
		{"minus zero", `-0`, true},
		{"a leading zero", `07`, false},
		{"18 digits", `999999999999999999`, true},
		{"19 digits, which may not fit", `9223372036854775807`, false},
		{"a fraction", `1.5`, false},
		{"an exponent", `1e3`, false},
		{"a bare minus", `-`, false},
		{"true", `true`, false},
	} {
		for _, dst := range []func() any{
			func() any { return new(string) }, func() any { return new(*string) },
			func() any { return new(int64) }, func() any { return new(*int64) }, func() any { return new(int) },
		} {
			got, want := dst(), dst()
			plain := plainHeaderField([]byte(row.value), got)
			wantErr := json.Unmarshal([]byte(row.value), want)
			if !plain {
				continue
			}
			if wantErr != nil {
				t.Errorf("%s: %s into %T read plain, encoding/json refuses it: %v", row.why, row.value, got, wantErr)
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: %s into %T (-json +plain):\n%s", row.why, row.value, got, diff)
			}
		}
		// Each row is read plain by the kind it is of, or by none.
		_, isString := plainString([]byte(row.value))
		_, isInteger := plainInteger([]byte(row.value))
		if got := isString || isInteger; got != row.plain {
			t.Errorf("%s: %s read plain: %v, want %v", row.why, row.value, got, row.plain)
		}
	}
}

// FuzzPlainHeaderField: on a value of valid JSON, plainHeaderField reads
// what encoding/json reads, into each kind of header field.
func FuzzPlainHeaderField(f *testing.F) {
	for _, s := range []string{`"s"`, `12`, `-0`, `"a\"b"`, `1.5`, `null`, `999999999999999999`, `"é"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		if !json.Valid([]byte(value)) || strictjson.Check([]byte(value)) != nil {
			return // a header line is valid JSON and UTF-8
		}
		for _, dst := range []func() any{
			func() any { return new(string) }, func() any { return new(*string) },
			func() any { return new(int64) }, func() any { return new(*int64) }, func() any { return new(int) },
		} {
			got, want := dst(), dst()
			if !plainHeaderField([]byte(value), got) {
				continue
			}
			if err := json.Unmarshal([]byte(value), want); err != nil {
				t.Fatalf("%s into %T read plain, encoding/json refuses it: %v", value, got, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s into %T (-json +plain):\n%s", value, got, diff)
			}
		}
	})
}

// TestMayBeV0Only: every type the edge refuses, renames or edits passes
// the look before its maps, and a type it leaves as it is does not.
func TestMayBeV0Only(t *testing.T) {
	for typ := range refusedV0Types {
		if !mayBeV0Only(typ) {
			t.Errorf("%s is refused by the edge, but mayBeV0Only says no", typ)
		}
	}
	for typ := range v0Edits {
		if !mayBeV0Only(typ) {
			t.Errorf("%s is edited by the edge, but mayBeV0Only says no", typ)
		}
	}
	for _, typ := range []string{"steering/message", "compact/start", "compact/end", "compact/summary"} {
		if !mayBeV0Only(typ) {
			t.Errorf("%s is renamed by the edge, but mayBeV0Only says no", typ)
		}
	}
	for _, typ := range append([]string{"session/title", "hook/result", "compaction/start", rowTextChunks}, typedEventTypes...) {
		_, refused := refusedV0Types[typ]
		_, edited := v0Edits[typ]
		if mayBeV0Only(typ) && !refused && !edited {
			t.Errorf("%s is left as it is by the edge, but mayBeV0Only says it may not be", typ)
		}
	}
}

// legacyAssistantBody is the message the edge made of a v0 assistant
// message's content and provenance with encoding/json, before
// appendSource: what it makes now must be the same bytes.
func legacyAssistantBody(m *migrator, content, provenance json.RawMessage, seq int64) (json.RawMessage, error) {
	src := Source{Kind: "model"}
	if provenance != nil {
		if err := json.Unmarshal(provenance, &src); err != nil {
			return nil, err
		}
		src.Kind = "model"
	}
	return marshal(struct {
		ID      json.RawMessage `json:"id"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Source  Source          `json:"source"`
	}{m.legacyMessageID(seq), "assistant", content, src})
}

// FuzzLegacyAssistantBody holds the edge's rewrite of a v0
// assistant/message to what encoding/json made of it: for any content
// and provenance of a checked line, the same message, or the same
// refusal.
func FuzzLegacyAssistantBody(f *testing.F) {
	f.Add(`[{"type":"text","text":"hi <b> & \u2028"}]`, `{"provider":"p","model":"m"}`)
	f.Add(`[ ]`, `{"kind":"user","plugin":"x","sections":[ 1 , 2 ],"replayState":{ "a" : null }}`)
	f.Add(`"x"`, `null`)
	f.Add(`[]`, `{"Provider":"folded"}`)
	f.Add(`[]`, `{"provider":7}`)
	f.Add(`[]`, `{"callId":"a\"b","form":"é"}`)
	f.Fuzz(func(t *testing.T, content, provenance string) {
		if strictjson.Check([]byte(content)) != nil || strictjson.Check([]byte(provenance)) != nil {
			return // the edge reads only what a line's check passed
		}
		m := newMigrator("s\"id")
		fields := []Field{{"turn", json.RawMessage("1")}, {"content", json.RawMessage(content)}, {"provenance", json.RawMessage(provenance)}}
		got, changed, err := migrateAssistantMessage(m, fields, v0At{seq: 7})
		want, wantErr := legacyAssistantBody(m, json.RawMessage(content), json.RawMessage(provenance), 7)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("content %s, provenance %s: error %v, encoding/json's %v", content, provenance, err, wantErr)
		}
		if err != nil {
			return
		}
		if !changed || len(got) != 2 || got[1].Key != "message" {
			t.Fatalf("content %s, provenance %s: fields %q", content, provenance, got)
		}
		if string(got[1].Value) != string(want) {
			t.Fatalf("content %s, provenance %s:\n got %s\nwant %s", content, provenance, got[1].Value, want)
		}
	})
}

// legacyRequestHeader is migrateRequestHeader as it was, splitting every
// header: the shortcut past headers without the word must not change
// what it makes.
func legacyRequestHeader(f []Field) ([]Field, bool, error) {
	var reason string
	_ = json.Unmarshal(field(f, "reason"), &reason)
	if reason == "fallback" {
		return nil, false, errors.New("fallback")
	}
	header := field(f, "header")
	if header == nil {
		return f, false, nil
	}
	hf, err := objectFields(header)
	if err != nil {
		return nil, false, err
	}
	if field(hf, "messagePrefix") == nil {
		return f, false, nil
	}
	nh, err := encodeObject(without(hf, "messagePrefix"))
	if err != nil {
		return nil, false, err
	}
	return withField(f, "header", nh), true, nil
}

// FuzzRequestHeaderEdit holds the edit of a v0 request/header to what it
// made before, on any data of a checked line.
func FuzzRequestHeaderEdit(f *testing.F) {
	f.Add(`{"header":{"config":{"provider":"p"},"messagePrefix":[1]},"reason":"initial"}`)
	f.Add(`{"header":{"config":{},"message\u0050refix":[]}}`)
	f.Add(`{"header":{"config":{"note":"messagePrefix"}},"reason":"fallback"}`)
	f.Add(`{"header":"messagePrefix"}`)
	f.Add(`{"header":[1],"reason":"r\u0065"}`)
	f.Add(`{"header":{"a":{"messagePrefix":1}}}`)
	f.Fuzz(func(t *testing.T, data string) {
		if strictjson.Check([]byte(data)) != nil {
			return
		}
		fields, err := objectFields([]byte(data))
		if err != nil {
			return
		}
		got, gotChanged, gotErr := migrateRequestHeader(nil, fields, v0At{})
		want, wantChanged, wantErr := legacyRequestHeader(fields)
		if (gotErr != nil) != (wantErr != nil) || gotChanged != wantChanged {
			t.Fatalf("%s: changed %v, error %v; before: %v, %v", data, gotChanged, gotErr, wantChanged, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s (-before +now):\n%s", data, diff)
		}
	})
}

// legacyIntegers is parseIntegers as it was, strconv for each.
func legacyIntegers(value []byte) ([]int64, error) {
	out := []int64{}
	if len(value) < 2 || value[0] != '[' || value[len(value)-1] != ']' {
		return nil, errors.New("expected an array of integers")
	}
	inner := value[1 : len(value)-1]
	for i := 0; ; {
		i = skipSpace(inner, i)
		if i == len(inner) && len(out) == 0 {
			return out, nil
		}
		j := i
		for j < len(inner) && inner[j] != ',' && inner[j] != ' ' && inner[j] != '\t' && inner[j] != '\n' && inner[j] != '\r' {
			j++
		}
		n, err := strconv.ParseInt(string(inner[i:j]), 10, 64)
		if err != nil {
			return nil, errors.New("expected an array of integers")
		}
		out = append(out, n)
		j = skipSpace(inner, j)
		if j == len(inner) {
			return out, nil
		}
		if inner[j] != ',' {
			return nil, errors.New("expected an array of integers")
		}
		i = j + 1
	}
}

// FuzzParseIntegers holds parseIntegers to what it read before, on any
// input at all.
func FuzzParseIntegers(f *testing.F) {
	for _, s := range []string{`[]`, `[1,2,3]`, `[ -0 , 007 ]`, `[+1]`, `[1.5]`, `[99999999999999999999]`, `[-9223372036854775808]`, `[1,,2]`, `[ ]`, `[1 2]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotErr := parseIntegers([]byte(s))
		want, wantErr := legacyIntegers([]byte(s))
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, before %v", s, gotErr, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q (-before +now):\n%s", s, diff)
		}
	})
}
