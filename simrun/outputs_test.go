package simrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/turnsim/turnsim/campaign"
)

// TestOutputsThatCannotBeMeant: an output that is a device, a named pipe,
// or a link to one, two outputs that are one file, and an output that is
// the command's input are refused before any work, with exit 2, and the
// path is left as it was (the atomic rename once replaced a device node
// with an HTML page, and --trace and --html on one path let one overwrite
// the other).
func TestOutputsThatCannotBeMeant(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	fifo := at("fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// A device of our own with /dev/full's numbers; never a system one.
	device := at("full")
	haveDevice := syscall.Mknod(device, syscall.S_IFCHR|0o666, 1<<8|7) == nil
	toFifo := at("to-fifo")
	os.Symlink(fifo, toFifo)
	// An open pipe, as the shell gives stdout to 'simrun … | jq'.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	stdout := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	entry := at("entry.json")
	os.WriteFile(at("page.html"), []byte("old"), 0o644)
	os.WriteFile(at("policy.json"), []byte(`{"maxRetries":3}`), 0o644)
	os.Link(at("page.html"), at("same-page.html"))
	// A corpus entry to replay, written by a run against a mutant.
	if status, out, _ := simrun("run", "--seeds", "50", "--mutant", "retry-auth", "--corpus", at("corpus")); status != exitViolation {
		t.Fatalf("making an entry: status %d\n%s", status, out)
	}
	loaded := campaign.LoadCorpus(at("corpus"))
	if len(loaded) == 0 {
		t.Fatal("no entry written")
	}
	data, _ := os.ReadFile(loaded[0].Path)
	os.WriteFile(entry, data, 0o644)

	for _, tt := range []struct {
		why  string
		args []string
		skip bool
		want string
	}{
		{"--html on a device", []string{"replay", "--seed", "1", "--html", device}, !haveDevice, "--html: write " + device + ": exists and is not a regular file (a device): not replaced"},
		{"budget's page on a device, refused before the run", []string{"budget", "--policy", "default", "--runs", "10", "--html", device}, !haveDevice, "not a regular file (a device)"},
		{"--trace on a named pipe", []string{"replay", "--seed", "1", "--trace", fifo}, false, "--trace: write " + fifo + ": exists and is not a regular file (a named pipe)"},
		{"--html on a link to a named pipe", []string{"replay", "--seed", "1", "--html", toFifo}, false, "not a regular file (a named pipe)"},
		{"--html on /proc/self/fd/N of a pipe, as /proc/self/fd/1 is under a pipe", []string{"replay", "--seed", "1", "--html", stdout}, false, "names an open file descriptor"},
		{"shrink --out on a pipe", []string{"shrink", "--seed", "1", "--mutant", "retry-auth", "--out", fifo}, false, "--out: write " + fifo},
		{"--trace and --html on one path", []string{"replay", "--seed", "1", "--trace", at("x.jsonl"), "--html", at("x.jsonl")}, false, "--html " + at("x.jsonl") + ": the same file as --trace " + at("x.jsonl")},
		{"two names of one file", []string{"replay", "--seed", "1", "--trace", at("page.html"), "--html", at("same-page.html")}, false, "the same file as --trace"},
		{"the output is the entry replayed", []string{"replay", entry, "--trace", entry}, false, "--trace " + entry + ": the same file as the input " + entry},
		{"shrink's scenario over its entry", []string{"shrink", entry, "--out", entry}, false, "the same file as the input"},
		{"a scenario's log over the scenario", []string{"scenario", at("page.html"), "--trace", at("page.html")}, false, "--trace " + at("page.html") + ": the same file as the input"},
		{"a scenario's log on a pipe", []string{"scenario", at("page.html"), "--trace", fifo}, false, "not a regular file (a named pipe)"},
		{"replay's log over its --policy file", []string{"replay", "--seed", "1", "--policy", at("policy.json"), "--trace", at("policy.json")}, false, "--trace " + at("policy.json") + ": the same file as the input " + at("policy.json")},
		{"shrink's scenario over its --policy file", []string{"shrink", "--seed", "1", "--policy", at("policy.json"), "--out", at("policy.json")}, false, "the same file as the input"},
		{"budget's page over its policy file", []string{"budget", "--policy", at("page.html"), "--html", at("page.html")}, false, "the same file as the input"},
	} {
		t.Run(tt.why, func(t *testing.T) {
			if tt.skip {
				t.Skip("mknod needs root")
			}
			before := nodes(dir)
			status, out, errOut := simrun(tt.args...)
			if status != exitUsage || !strings.Contains(errOut, tt.want) {
				t.Errorf("status %d, want %d with %q\n%s%s", status, exitUsage, tt.want, out, errOut)
			}
			if after := nodes(dir); after != before {
				t.Errorf("the folder changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// nodes lists a folder's names with their kinds and sizes.
func nodes(dir string) string {
	entries, _ := os.ReadDir(dir)
	var b strings.Builder
	for _, e := range entries {
		info, _ := os.Lstat(filepath.Join(dir, e.Name()))
		b.WriteString(e.Name() + ":" + info.Mode().String() + ":" + strings.Repeat("#", int(min(info.Size(), 8))) + " ")
	}
	return b.String()
}

// TestScenarioLogsNeverReplaceTheirScenarios: logs written into a folder
// are named after their scenarios, and one that would land on a scenario
// file of the run is refused for that scenario (it replaced the input).
func TestScenarioLogsNeverReplaceTheirScenarios(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "scenarios", "spec63-exhausted-server.json"))
	if err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "spec63-exhausted-server.jsonl") // named as its log would be
	os.WriteFile(input, data, 0o644)
	status, out, _ := simrun("scenario", "--quiet", "--trace", dir, input)
	if status != exitUsage || !strings.Contains(out, "the same file as the input") {
		t.Errorf("status %d\n%s", status, out)
	}
	if b, _ := os.ReadFile(input); string(b) != string(data) {
		t.Errorf("the scenario was replaced")
	}
}
