package inputfile

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/internal/limits"
)

// TestReadWithinTheBound: a file is read whole up to the bound, refused
// one byte past it, and read at the largest bound a flag takes, where one
// byte past it once wrapped to a negative size and read an empty file.
func TestReadWithinTheBound(t *testing.T) {
	saved := limits.Current
	defer func() { limits.Current = saved }()
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, []byte(`{"name":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, row := range []struct {
		why   string
		bound int64
		want  string // the error's text, "" to read the file
	}{
		{"exactly the bound", 12, ""},
		{"one byte past it", 11, "the file is over the limit of 11 bytes (raise it with --max-file-bytes)"},
		{"the largest bound", math.MaxInt64, ""},
	} {
		limits.Current.FileBytes = row.bound
		data, err := Read(path)
		switch {
		case row.want == "" && (err != nil || string(data) != `{"name":"x"}`):
			t.Errorf("%s: read %q, %v", row.why, data, err)
		case row.want != "" && (err == nil || !strings.Contains(err.Error(), row.want)):
			t.Errorf("%s: error %v, want %q", row.why, err, row.want)
		}
	}
}
