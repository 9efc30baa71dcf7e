package sim

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnsim/turnsim/internal/strictjson"
)

// FuzzParseScenario: the scenario reader never panics on any input, and a
// scenario it accepts writes JSON that it reads back to the same scenario
// (the same JSON again): a plan written by shrink, explore or the corpus
// replays as it ran.
func FuzzParseScenario(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "scenarios", "*.json"))
	conformance, _ := filepath.Glob(filepath.Join("..", "scenarios", "conformance", "*.json"))
	for _, p := range append(paths, conformance...) {
		if raw, err := os.ReadFile(p); err == nil {
			f.Add(raw)
		}
	}
	f.Add([]byte(`{"name":"x","requests":[{"fail":{"code":"SERVER","message":"m"},"listenerThrows":true}]}`))
	f.Add([]byte(`{"name":"x","requests":[{"text":"t","listenerThrows":true}]}`))
	// No listeners at all was written back as null (found by fuzzing).
	f.Add([]byte(`{"name":"0","retryPolicy":{"mode":"always","backoff":{"initialDelayMs":1,"maxDelayMs":1,"jitterRatio":0}},"listenerOrder":[]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := ParseScenario(raw)
		if err != nil {
			if why := strictjson.Unreadable(err.Error()); why != "" {
				t.Fatalf("the message shows %s: %q", why, err.Error())
			}
			return
		}
		written, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("an accepted scenario does not write: %v", err)
		}
		again, err := ParseScenario(written)
		if err != nil {
			t.Fatalf("the written scenario does not read back: %v\n%s", err, written)
		}
		rewritten, _ := json.Marshal(again)
		if !bytes.Equal(written, rewritten) {
			t.Fatalf("the round trip changed the scenario:\n%s\n%s", written, rewritten)
		}
	})
}
