package oracle_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnsim/turnsim/loop/session"
)

// FuzzStream: whatever log the reader accepts, the oracle checks without
// panicking, and reading it as a stream finds what checking it whole with
// the whole log's view finds.
func FuzzStream(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "examples", "logs", "*.jsonl"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add(retryHeavyLog(2))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, events, err := session.ReadAll(bytes.NewReader(data), session.ReadOptions{})
		if err != nil {
			return
		}
		streamMatchesWhole(t, events, "the fuzzed log")
	})
}
