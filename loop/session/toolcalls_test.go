package session

import (
	"bytes"
	"slices"
	"testing"
)

// FuzzToolCallIDs: the scanner gives what encoding/json gives, on any
// input; where it declines, ToolCallIDs decodes.
func FuzzToolCallIDs(f *testing.F) {
	for _, s := range []string{
		`[{"type":"text","text":"hi"},{"type":"tool-call","id":"call-1-1","name":"read","arguments":"{\"path\":\"a\"}"}]`,
		`[{"type":"tool-call","id":"a"},{"type":"tool-call","id":"b","type":"text"}]`,
		`[{"TYPE":"tool-call","id":"x"}]`, `[{"type":"tool-call","Id":"x"}]`, `[{"type":"tool-call","id":null}]`,
		`[{"type":"tool-call","id":"\u0041"}]`, `[{"type":"tool-call","id":7}]`, `[null,{"type":"tool-call","id":"z"}]`,
		`[1]`, `{"type":"tool-call"}`, `[{"type":"tool-call","id":"é"}]`, `[{"t\u0079pe":"tool-call","id":"q"}]`,
		` [ { "type" : "tool-call" , "id" : "s" , "x" : [ {"a":"]"} , "\"" ] } ] `, `[{"type":"tool-call","id":"a"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		want := decodeToolCallIDs(content)
		if !bytes.Contains(content, []byte(`"tool-call"`)) {
			want = nil // ToolCallIDs looks only where the bytes say "tool-call"
		}
		if got := ToolCallIDs(content); !slices.Equal(got, want) {
			t.Fatalf("ToolCallIDs(%s) = %q, encoding/json gives %q", content, got, want)
		}
		if ids, ok := scanToolCallIDs(content); ok && !slices.Equal(ids, want) {
			t.Fatalf("scan(%s) = %q, ok, but encoding/json gives %q", content, ids, want)
		}
		// HasToolCallID answers as ToolCallIDs' list does, for each id of
		// it and for ids that are not in it.
		for _, id := range append(slices.Clone(want), "", "call-0-0", "x") {
			if got, wantHas := HasToolCallID(content, id), slices.Contains(want, id); got != wantHas {
				t.Fatalf("HasToolCallID(%s, %q) = %v, ToolCallIDs gives %q", content, id, got, want)
			}
		}
	})
}
