package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/internal/sharedlogs"
	"github.com/turnsim/turnsim/internal/strictjson"
)

// sharedLines returns up to max event lines of the shared DSH logs, for fuzz
// seeds; none when the shared folder is absent.
func sharedLines(max int, keep func(line string) bool) []string {
	dir, ok := sharedlogs.Lookup()
	if !ok {
		return nil
	}
	var lines []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") || len(lines) >= max {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() && len(lines) < max {
			if keep(sc.Text()) {
				lines = append(lines, sc.Text())
			}
		}
		return nil
	})
	return lines
}

// FuzzReadLine feeds one arbitrary line after a header, in both versions,
// or (version's bit 1 set) as the header itself: the reader returns events
// or an *InputError with a line number and a message free of Go's names
// and raw bytes, never a panic, and what it reads writes back as v1 and
// reads again.
func FuzzReadLine(f *testing.F) {
	for _, line := range sharedLines(1500, func(string) bool { return true }) {
		f.Add(line, uint8(0))
	}
	f.Add(`{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}`, uint8(1))
	f.Add(`{"type":"text-chunks","data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"]}}`, uint8(0))
	f.Add(`{"type":"session_event","sessionId":"s","event":{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}}`, uint8(0))
	f.Add("{\"type\":\"turn/start\",\"seq\":0,\"time\":0,\"data\":{\"turn\":1}}\n{", uint8(1)) // an error on line 3
	// An event type with control characters, echoed raw once.
	f.Add(`{"type":"a\u007f\u009bb","seq":0,"time":0}`, uint8(1))
	// A header field of the wrong kind once showed encoding/json's words.
	f.Add(`{"type":"session","version":1,"id":"s","createdAt":-1e308}`, uint8(2))
	f.Add(`{"type":"session","id":"s","createdAt":0,"cwd":7,"delegationDepth":1.5}`, uint8(2))
	f.Fuzz(func(t *testing.T, line string, version uint8) {
		header := `{"type":"session","version":` + string('0'+rune(version%2)) + `,"id":"s","createdAt":0}` + "\n"
		body := line + "\n"
		// The header is line 1; the fuzzed text begins on line 2 and may
		// hold newlines of its own.
		first, last := 1, 2+strings.Count(line, "\n")
		if version&2 != 0 {
			// A header of nothing but blank lines is "no header line", on
			// line 0.
			header, body, first, last = line+"\n", "", 0, 1+strings.Count(line, "\n")
		}
		h, events, err := ReadAll(strings.NewReader(header+body), ReadOptions{Name: "fuzz"})
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != "fuzz" || ie.Line < first || ie.Line > last {
				t.Fatalf("error %v is not an *InputError naming a line from %d to %d", err, first, last)
			}
			if why := strictjson.Unreadable(ie.Msg); why != "" {
				t.Fatalf("the message shows %s: %q", why, ie.Msg)
			}
			return
		}
		var b bytes.Buffer
		if err := WriteLog(&b, h, events); err != nil {
			t.Fatalf("an event that was read does not write: %v", err)
		}
		if _, again, err := ReadAll(bytes.NewReader(b.Bytes()), ReadOptions{}); err != nil || len(again) != len(events) {
			t.Fatalf("the v1 rewrite does not read back (%v, %d events, want %d):\n%s", err, len(again), len(events), b.String())
		}
	})
}

// FuzzExpandPacked feeds arbitrary row data: a row expands to as many chunk
// events as it has members, with consecutive seqs, or is refused.
func FuzzExpandPacked(f *testing.F) {
	for _, line := range sharedLines(400, func(l string) bool { return strings.Contains(l, `-chunks","data":`) }) {
		var row struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal([]byte(line), &row) == nil {
			f.Add(row.Type, string(row.Data), int64(7), int64(1000))
		}
	}
	f.Add(rowTextChunks, `{"turn":1,"step":1,"index":0,"dt":[1,2],"texts":["a","b","c"]}`, int64(0), int64(0))
	f.Add(rowToolCallChunks, `{"turn":1,"step":1,"index":1,"id":"c","dt":[0],"args":["{","}"]}`, int64(3), int64(5))
	f.Fuzz(func(t *testing.T, typ, data string, seq0, time0 int64) {
		if !isPackedRow(typ) {
			typ = rowReasoningChunks
		}
		events, err := expandPacked(typ, json.RawMessage(data), seq0, time0)
		if err != nil {
			return
		}
		var d packedData
		json.Unmarshal([]byte(data), &d)
		if len(events) != len(d.Texts)+len(d.Args) {
			t.Fatalf("%d events from %d members", len(events), len(d.Texts)+len(d.Args))
		}
		for k, e := range events {
			if e.Seq != seq0+int64(k) {
				t.Fatalf("member %d has seq %d, want %d", k, e.Seq, seq0+int64(k))
			}
			if _, err := e.RawData(); err != nil {
				t.Fatalf("member %d does not marshal: %v", k, err)
			}
		}
	})
}
