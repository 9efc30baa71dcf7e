package oracle_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
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
		st := oracle.NewStream(oracle.Options{})
		for i := range events {
			st.Add(&events[i])
		}
		got := st.Finish()
		want := oracle.Check(events, oracle.Options{Derive: view.Derive})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("the stream differs from the whole log's view (-want +got):\n%s", diff)
		}
	})
}
