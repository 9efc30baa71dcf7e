package campaign_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestWorkedExample runs the worked example of docs/own-listener.md as a
// new user does: go test in its own module (examples/own-listener, which
// requires turnsim through a replace directive). With the bug put back
// — the wait on context.Background() instead of the turn signal — it
// fails within 200 seeds with one shrunk failure and its corpus entry; as
// committed, it passes. The listener and its test are under 60 lines.
func TestWorkedExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example module with go")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, f := range []string{"retryserver.go", "retryserver_test.go"} {
		b, err := os.ReadFile(filepath.Join(root, "examples", "own-listener", f))
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(b), "\n")
	}
	if lines >= 60 {
		t.Errorf("the listener and its test are %d lines, want under 60", lines)
	}
	fixed := copyExample(t, root)
	buggy := copyExample(t, root)
	source := filepath.Join(buggy, "retryserver.go")
	b, _ := os.ReadFile(source)
	bug := strings.Replace(string(b), "env.Clock.Sleep(ev.Signal,", "env.Clock.Sleep(context.Background(),", 1)
	bug = strings.Replace(bug, "import (\n", "import (\n\t\"context\"\n", 1)
	if bug == string(b) {
		t.Fatal("the example no longer waits with env.Clock.Sleep(ev.Signal, …): update the bug put back here and in docs/own-listener.md")
	}
	os.WriteFile(source, []byte(bug), 0o644)

	out, err := goTest(buggy)
	if err == nil {
		t.Fatalf("the buggy listener passed:\n%s", out)
	}
	if n := strings.Count(out, "cancel-takes-effect-at-once turn"); n != 2 { // the seed's, and the shrunk plan's
		t.Errorf("want one failure (its violation and its shrunk plan's), got %d violation lines:\n%s", n, out)
	}
	seed := regexp.MustCompile(`seed (0x[0-9a-f]+): cancel-takes-effect-at-once`).FindStringSubmatch(out)
	if seed == nil || !regexp.MustCompile(`reproduce: go test \. -run '\^TestRetryServer\$' -sim\.seed=`+seed[1]).MatchString(out) {
		t.Errorf("no reproduction line for the failing seed:\n%s", out)
	}
	if entries, _ := filepath.Glob(filepath.Join(buggy, "testdata", "turnsim", "*.json")); len(entries) != 1 {
		t.Errorf("corpus entries in the example's testdata/turnsim: %v, want one", entries)
	}
	if out, err := goTest(fixed); err != nil {
		t.Errorf("the example as committed fails: %v\n%s", err, out)
	}
	// A user's module links what its test and its main need: no browser
	// driver and no web socket (those are for the real DSH's commands,
	// which cmd/simrun builds in). go.mod says so (the go test above ran
	// with -mod=readonly, so it holds every module the build needs), and
	// so does what go builds.
	mod, _ := os.ReadFile(filepath.Join(fixed, "go.mod"))
	cmd := exec.Command("go", "list", "-deps", "-test", "./...")
	cmd.Dir = fixed
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	deps, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps -test: %v\n%s", err, deps)
	}
	for _, heavy := range []string{"github.com/chromedp/", "github.com/coder/websocket"} {
		if strings.Contains(string(mod), heavy) || strings.Contains(string(deps), heavy) {
			t.Errorf("the example module needs %s (its go.mod, or go list -deps -test ./...)", heavy)
		}
	}
}

// copyExample copies the example module into a temporary folder, its
// replace directive pointing at this checkout.
func copyExample(t *testing.T, root string) string {
	dir := t.TempDir()
	src := filepath.Join(root, "examples", "own-listener")
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir // a corpus left by a run by hand
			}
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if rel == "go.mod" {
			b = []byte(strings.Replace(string(b), "=> ../..", "=> "+root, 1))
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// goTest runs go test in dir, under the race detector when this test
// runs under it: the packages of turnsim it builds are then the ones this
// test's own build left in the cache (a build without -race compiled
// them all again: 27 s of a cold make test).
func goTest(dir string) (string, error) {
	args := []string{"test", "-count=1"}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = dir
	// Without the SIM_* a CI job may set for its own campaign: this test
	// is about the example's defaults.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SIM_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GOWORK=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
