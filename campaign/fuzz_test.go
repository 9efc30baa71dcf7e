package campaign

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/turnsim/turnsim/internal/strictjson"
)

// FuzzParseEntry: a corpus entry (they come from CI artifacts) never
// panics the reader, and a refusal reads as a sentence.
func FuzzParseEntry(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "corpus", "*.json"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"format":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, s, err := parseEntry(data)
		if err != nil {
			if why := strictjson.Unreadable(err.Error()); why != "" {
				t.Fatalf("the message shows %s: %q", why, err.Error())
			}
			return
		}
		if e == nil || s == nil {
			t.Fatal("an entry accepted without its scenario")
		}
		if _, err := e.ParseOverrides(); err != nil {
			if why := strictjson.Unreadable(err.Error()); why != "" {
				t.Fatalf("the overrides' message shows %s: %q", why, err.Error())
			}
		}
	})
}
