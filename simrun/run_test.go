package simrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/sim"
)

// withoutRates drops the summary's measured rates, which vary run to run.
func withoutRates(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	last := lines[len(lines)-1]
	if i := strings.Index(last, " runs/s"); i > 0 {
		last = last[:strings.LastIndex(last[:i], ",")]
	}
	lines[len(lines)-1] = last
	return strings.Join(lines, "\n")
}

// TestRunJobsAgree: one worker and two print the same violations and
// summary for the same seeds.
func TestRunJobsAgree(t *testing.T) {
	var outs []string
	for _, j := range []string{"1", "2"} {
		corpus := t.TempDir()
		status, out, errOut := simrun("run", "--seeds", "300", "--mutant", "retry-auth", "--corpus", corpus, "-j", j)
		if status != exitViolation {
			t.Fatalf("-j %s: status %d\n%s%s", j, status, out, errOut)
		}
		outs = append(outs, strings.ReplaceAll(withoutRates(out), corpus, "CORPUS"))
	}
	if diff := cmp.Diff(outs[0], outs[1]); diff != "" {
		t.Errorf("-j 1 and -j 2 differ (-j1 +j2):\n%s", diff)
	}
	if !strings.HasPrefix(lastLine(outs[0]), "300 runs, ") {
		t.Errorf("last line %q", lastLine(outs[0]))
	}
}

func TestRunCleanLoop(t *testing.T) {
	status, out, _ := simrun("run", "--seeds", "200", "--corpus", t.TempDir())
	if status != exitClean || !strings.HasPrefix(lastLine(out), "200 runs, 0 violations, ") {
		t.Errorf("status %d, last line %q", status, lastLine(out))
	}
}

// TestRunCorpusErrors: an entry that does not parse is named, and the run
// exits 2 when nothing else failed.
func TestRunCorpusErrors(t *testing.T) {
	corpus := t.TempDir()
	os.WriteFile(filepath.Join(corpus, "broken.json"), []byte("{not json"), 0o644)
	status, out, _ := simrun("run", "--seeds", "10", "--corpus", corpus)
	if status != exitUsage || !strings.Contains(out, filepath.Join(corpus, "broken.json")+": error: not a corpus entry") {
		t.Errorf("status %d:\n%s", status, out)
	}
}

// TestReplayIsDeterministic: replaying a seed twice prints the same bytes
// and writes the same log.
func TestReplayIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	_, out1, _ := simrun("replay", "--seed", "0x2a", "--trace", a, "--check-determinism")
	_, out2, _ := simrun("replay", "--seed", "0x2a", "--trace", b)
	if !strings.HasPrefix(out1, "seed        0x2a\n") || !strings.Contains(out1, "timeline:") {
		t.Errorf("replay output:\n%s", out1)
	}
	if out1 != out2 {
		t.Errorf("two replays printed different output:\n%s", cmp.Diff(out1, out2))
	}
	la, _ := os.ReadFile(a)
	lb, _ := os.ReadFile(b)
	if len(la) == 0 || string(la) != string(lb) {
		t.Errorf("two replays wrote different logs")
	}
}

// TestShrinkWritesAScenario: a shrunk mutant failure becomes a scenario
// file that 'simrun scenario --mutant' replays to the same violation.
func TestShrinkWritesAScenario(t *testing.T) {
	m, _ := mutants.Find("retry-auth")
	seed := uint64(1)
	for ; seed < 2000 && len(faults.RunSeed(seed, faults.Overrides{}, m.Options, false).Violations) == 0; seed++ {
	}
	out := filepath.Join(t.TempDir(), "shrunk.json")
	status, text, errOut := simrun("shrink", "--seed", fmt.Sprint(seed), "--mutant", "retry-auth", "--out", out)
	if status != exitClean || !strings.Contains(text, "non-retryable-stays-terminal: ") {
		t.Fatalf("status %d\n%s%s", status, text, errOut)
	}
	if _, err := sim.LoadScenario(out); err != nil {
		t.Fatal(err)
	}
	status, text, _ = simrun("scenario", "--quiet", "--mutant", "retry-auth", out)
	if status != exitViolation || !strings.Contains(text, "non-retryable-stays-terminal") {
		t.Errorf("the shrunk scenario replays with status %d:\n%s", status, text)
	}
	if status, _, _ := simrun("scenario", "--quiet", out); status != exitClean {
		t.Errorf("the same scenario against the correct loop: status %d, want 0", status)
	}
}

// TestRunStats: --stats prints the three coverage blocks before the
// summary, which stays the last line; with --json, a stats object.
func TestRunStats(t *testing.T) {
	dir := t.TempDir()
	status, out, errOut := simrun("run", "--seeds", "30", "--stats", "--corpus", dir)
	if status != exitClean {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	for _, block := range []string{"fault kinds (runs that enabled them):", "choice points (world actions landed after):", "invariant preconditions"} {
		if !strings.Contains(out, block) {
			t.Errorf("no %q block:\n%s", block, out)
		}
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if !strings.HasPrefix(lines[len(lines)-1], "30 runs, 0 violations") {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
	_, out, _ = simrun("run", "--seeds", "30", "--stats", "--json", "--corpus", dir)
	if !strings.Contains(out, `{"stats":{"runs":30,`) {
		t.Errorf("no stats object in --json output:\n%s", out)
	}
}

// TestReplayMarksSilentRequests: the request loop-no-recheck sends on a
// cancelled turn writes nothing to the log; the replay's timeline marks
// it, after the cancel, so the violation that cites it can be read.
func TestReplayMarksSilentRequests(t *testing.T) {
	matches, _ := filepath.Glob("../corpus/loop-no-recheck-*.json")
	if len(matches) != 1 {
		t.Fatalf("want one loop-no-recheck corpus entry, found %v", matches)
	}
	status, out, errOut := simrun("replay", matches[0])
	if status != exitViolation {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	cancel := strings.Index(out, "» cancel")
	request := strings.Index(out, "» model request, attempt 2: nothing of it reached the log")
	if cancel < 0 || request < cancel {
		t.Errorf("want the silent request marked after the cancel:\n%s", out)
	}
}

// TestReplayWritesAPage: --html writes the run's page, with the entry's
// violation and its witness events highlighted.
func TestReplayWritesAPage(t *testing.T) {
	matches, _ := filepath.Glob("../corpus/wait-ignores-cancel-*.json")
	out := filepath.Join(t.TempDir(), "page", "run.html")
	if status, text, errOut := simrun("replay", matches[0], "--html", out); status != exitViolation {
		t.Fatalf("status %d\n%s%s", status, text, errOut)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(raw)
	if !strings.Contains(page, "<b>cancelled-turn-never-retries</b>") || !strings.Contains(page, `class="witness"`) {
		t.Errorf("the page lacks the violation or its witnesses")
	}
}
