package simrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/turnsim/turnsim/mutants"
)

// TestExploreCorrectLoop: one fault over the default policies is clean,
// ends with the exact last line, and prints the same for any -j (the wall
// times aside).
func TestExploreCorrectLoop(t *testing.T) {
	status, out, errOut := simrun("explore", "--max-faults", "1", "-j", "1")
	if status != exitClean {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if last := lines[len(lines)-1]; !regexp.MustCompile(`^\d+ plans, \d+ distinct logs, \d+ states, 0 violating plans, \d+\.\d s$`).MatchString(last) {
		t.Errorf("last line %q", last)
	}
	for _, p := range []string{"dsh-default ", "always ", "none ", "dsh-default-no-overflow-retries "} {
		if !strings.Contains(out, "\n"+p) {
			t.Errorf("no line for policy %q:\n%s", p, out)
		}
	}
	// --policy default is the first default policy: DSH's default
	// RetryPolicyConfig with compaction-basic beside it.
	_, pinned, _ := simrun("explore", "--max-faults", "1", "--policy", "default")
	counts := regexp.MustCompile(`(?m)^(dsh-default|default) +(\d+ plans .*), \d+\.\d s$`)
	if a, b := counts.FindStringSubmatch(out), counts.FindStringSubmatch(pinned); a == nil || b == nil || a[2] != b[2] {
		t.Errorf("--policy default counts %q, the default run's dsh-default %q", b, a)
	}
	_, again, _ := simrun("explore", "--max-faults", "1", "-j", "3")
	times := regexp.MustCompile(`\d+\.\d s`)
	if diff := cmp.Diff(times.ReplaceAllString(out, "T"), times.ReplaceAllString(again, "T")); diff != "" {
		t.Errorf("-j 1 and -j 3 differ (-j1 +j3):\n%s", diff)
	}
}

// TestExploreMutant: a mutant's violating plan is printed with the
// invariant, written as a scenario that replays to it against the mutant,
// and the exit status is 1.
func TestExploreMutant(t *testing.T) {
	dir := t.TempDir()
	status, out, errOut := simrun("explore", "--max-faults", "1", "--mutant", "retry-auth", "--policy", "default", "--out", dir, "--json")
	if status != exitViolation {
		t.Fatalf("status %d, want 1\n%s%s", status, out, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var report struct {
		Policy    string
		Violating int
		Failures  []struct {
			Invariant, Scenario, Reproduce string
			Plan                           []string
		}
	}
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &report) != nil {
		t.Fatalf("want a policy object and a summary:\n%s", out)
	}
	if report.Policy != "default" || report.Violating == 0 || len(report.Failures) != 1 {
		t.Fatalf("report %+v", report)
	}
	f := report.Failures[0]
	if f.Invariant != "non-retryable-stays-terminal" || len(f.Plan) != 1 || !strings.Contains(f.Plan[0], "AUTH") {
		t.Errorf("failure %+v", f)
	}
	if want := "simrun scenario --mutant retry-auth " + f.Scenario; f.Reproduce != want {
		t.Errorf("reproduce %q, want %q", f.Reproduce, want)
	}
	if status, out, _ := simrun("scenario", "--mutant", "retry-auth", "--quiet", f.Scenario); status != exitViolation || !strings.Contains(out, "non-retryable-stays-terminal") {
		t.Errorf("the written scenario replays with status %d:\n%s", status, out)
	}
	if status, _, _ := simrun("scenario", "--quiet", f.Scenario); status != exitClean {
		t.Errorf("the scenario fails on the correct loop too: status %d", status)
	}
}

// TestExploreZooAndErrors: --mutant all finds a mutant that needs one
// fault even at K = 1 and reports the others not found (exit 1); bad
// input exits 2 naming what is wrong. With --out, each mutant found
// leaves its scenario and the line that replays it (it once wrote
// nothing).
func TestExploreZooAndErrors(t *testing.T) {
	outDir := t.TempDir()
	status, out, _ := simrun("explore", "--max-faults", "1", "--mutant", "all", "--policy", "default", "--out", outDir)
	if status != exitViolation {
		t.Errorf("status %d, want 1 (some mutants need two faults)\n%s", status, out)
	}
	if !regexp.MustCompile(`(?m)^retry-auth +non-retryable-stays-terminal +yes +default +\d+ +1 `).MatchString(out) ||
		!regexp.MustCompile(`(?m)^wait-ignores-cancel +cancelled-turn-never-retries +no `).MatchString(out) {
		t.Errorf("rows:\n%s", out)
	}
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^\d+/%d mutants found$`, len(mutants.Zoo))).MatchString(out) {
		t.Errorf("no last line:\n%s", out)
	}
	reproduce := regexp.MustCompile(`(?m)^retry-auth: simrun scenario --mutant retry-auth (\S+)$`).FindStringSubmatch(out)
	if reproduce == nil {
		t.Fatalf("no reproduce line for retry-auth:\n%s", out)
	}
	if status, replayed, _ := simrun("scenario", "--mutant", "retry-auth", reproduce[1]); status != exitViolation || !strings.Contains(replayed, "non-retryable-stays-terminal") {
		t.Errorf("the written scenario does not trip the mutant: status %d\n%s", status, replayed)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"mode": "sometimes"}`), 0o644)
	for _, args := range [][]string{
		{"explore", "--policy", bad},
		{"explore", "--mutant", "nope"},
		{"explore", "--max-faults", "-1"},
		{"explore", "extra"},
	} {
		if status, _, errOut := simrun(args...); status != exitUsage || !strings.HasPrefix(errOut, "simrun explore") && !strings.Contains(errOut, "usage") {
			t.Errorf("%v: status %d, %q", args, status, errOut)
		}
	}
}

// TestExploreCountsPlansNotWritten: a violating plan --out could not
// write is counted in the summary; an --out that is a file is refused
// before anything runs (it ran the whole exploration, then reported every
// scenario unwritten and exited 0).
func TestExploreCountsPlansNotWritten(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plans")
	os.WriteFile(file, []byte("x"), 0o644)
	if status, _, errOut := simrun("explore", "--max-faults", "1", "--out", file); status != exitUsage || !strings.Contains(errOut, "--out "+file+": not a folder") {
		t.Errorf("--out a file: status %d, %q", status, errOut)
	}
	under := filepath.Join(file, "under") // a folder that cannot be made, said before anything runs
	if status, _, errOut := simrun("explore", "--max-faults", "1", "--out", under); status != exitUsage || !strings.Contains(errOut, file+" is not a folder, so it cannot be made") {
		t.Errorf("--out under a file: status %d, %q", status, errOut)
	}
	// A folder whose making fails only when it is made: /proc/self takes
	// no new entry, whoever asks.
	under = "/proc/self/turnsim-plans"
	if err := os.Mkdir(under, 0o755); err == nil {
		os.Remove(under)
		t.Skip("/proc/self took a folder: no folder here fails to be made")
	}
	status, out, _ := simrun("explore", "--max-faults", "1", "--mutant", "retry-auth", "--policy", "default", "--out", under)
	if status != exitViolation || !strings.Contains(out, "the scenario could not be written: ") || !strings.Contains(lastLine(out), "(1 violating plans' scenarios not written)") {
		t.Errorf("status %d\n%s", status, out)
	}
	status, out, _ = simrun("explore", "--max-faults", "1", "--mutant", "all", "--policy", "default", "--out", under, "--json")
	if !strings.Contains(lastLine(out), `"notWritten":`) || strings.Contains(lastLine(out), `"notWritten":0`) {
		t.Errorf("the zoo's summary does not count them: status %d, %s", status, lastLine(out))
	}
}
