package budget

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/turnsim/turnsim/internal/strictjson"
)

// readableError fails when a message shows what a person should not
// read: raw input bytes or Go's type names.
func readableError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if why := strictjson.Unreadable(err.Error()); why != "" {
		t.Fatalf("the message shows %s: %q", why, err.Error())
	}
}

func seeds(f *testing.F, pattern string, extra ...string) {
	paths, _ := filepath.Glob(pattern)
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// FuzzParsePolicy: a policy file never panics the reader, and a refusal
// reads as a sentence about the file.
func FuzzParsePolicy(f *testing.F) {
	seeds(f, filepath.Join("..", "examples", "budget", "*.json"),
		`{"mode":"normal","maxRetries":2}`, `{"retryPolicy":{"mode":"always"},"compaction":{"maxOverflowRetries":1}}`, `{"mode":"normal","mode":"always"}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParsePolicy(data)
		readableError(t, err)
	})
}

// FuzzParseEnvironment: the same for an environment file.
func FuzzParseEnvironment(f *testing.F) {
	seeds(f, filepath.Join("..", "examples", "budget", "*.json"),
		`{"latencyMs":{"uniform":[1,5]},"failures":[{"code":"SERVER","status":503,"p":0.1}]}`,
		`{"bursts":{"pGoodToBad":0.1,"pBadToGood":0.5,"failures":[{"code":"SERVER","p":1}]}}`,
		`{"workload":{"toolSteps":3,"resultChars":4000,"contextWindow":2500}}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseEnvironment(data)
		readableError(t, err)
	})
}
