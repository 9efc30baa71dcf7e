// Package sharedlogs finds the real DSH session logs in ../shared/dsh-logs
// for tests. The logs stay there; they are never copied into the project.
//
// Without the folder a test skips, with one clear message, except when the
// environment variable CI is set: then a missing folder fails the test, so a
// CI run can never pass by checking nothing. TURNSIM_SHARED overrides where
// the shared folder is.
package sharedlogs

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Lookup returns the dsh-logs folder and whether it exists, for callers that
// can do without it (fuzz seeds).
func Lookup() (string, bool) {
	shared := os.Getenv("TURNSIM_SHARED")
	if shared == "" {
		root, err := repoRoot()
		if err != nil {
			return "", false
		}
		shared = filepath.Join(root, "..", "shared")
	}
	dir := filepath.Join(shared, "dsh-logs")
	info, err := os.Stat(dir)
	return dir, err == nil && info.IsDir()
}

// Dir returns the dsh-logs folder, or skips (fails under CI) without it.
func Dir(t testing.TB) string {
	t.Helper()
	dir, ok := Lookup()
	if !ok {
		if os.Getenv("CI") != "" {
			t.Fatalf("sharedlogs: %s is missing, and CI is set: the real DSH logs must be checked in CI", dir)
		}
		t.Skipf("sharedlogs: %s is missing; put the shared folder beside the repository (or set TURNSIM_SHARED) to run the real-log tests", dir)
	}
	return dir
}

// Files returns every *.jsonl under the dsh-logs folder, sorted, as paths
// relative to it (so adding a log adds a case).
func Files(t testing.TB) (dir string, files []string) {
	t.Helper()
	dir = Dir(t)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("sharedlogs: %v", err)
	}
	if len(files) == 0 {
		t.Fatalf("sharedlogs: no *.jsonl files under %s", dir)
	}
	sort.Strings(files)
	return dir, files
}

// Path returns the path of one named log, relative to dsh-logs.
func Path(t testing.TB, rel string) string {
	t.Helper()
	return filepath.Join(Dir(t), rel)
}

// Known logs the tests name.
const (
	ErrorFinish        = "examples/acp-agent/tests/snapshots/error-finish/session.jsonl"
	EmptyResponseRetry = "examples/acp-agent/tests/snapshots/empty-response-retry/session.jsonl"
	CompactionRecovery = "examples/headless-agent/tests/snapshots/compaction-recovery/session.jsonl"
	Cancel             = "examples/acp-agent/tests/snapshots/cancel/session.jsonl"
	ProviderRetry      = "examples/headless-agent/tests/snapshots/provider-retry/stream-json.expected.jsonl"
	Steering           = "apps/web/tests/snapshots/steering/session.jsonl"
)

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fs.ErrNotExist
		}
		dir = parent
	}
}
