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

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
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
// and writes the same log, and --check-determinism says it checked.
func TestReplayIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	_, out1, _ := simrun("replay", "--seed", "0x2a", "--trace", a, "--check-determinism")
	_, out2, _ := simrun("replay", "--seed", "0x2a", "--trace", b, "--check-determinism")
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
	if want := fmt.Sprintf("determinism: a second run wrote the same log, %d bytes\n", len(la)); !strings.Contains(out1, want) {
		t.Errorf("replay --check-determinism does not say %q:\n%s", want, out1)
	}
}

// TestShrinkWritesAScenario: a shrunk mutant failure becomes a scenario
// file that 'simrun scenario --mutant' replays to the same violation.
func TestShrinkWritesAScenario(t *testing.T) {
	m, _ := mutants.Find("retry-auth")
	seed := uint64(1)
	for ; seed < 2000 && len(judge.RunSeed(seed, faults.Overrides{}, m.Options, false).Violations) == 0; seed++ {
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

// TestRunRefusesSeedsItWouldMisread: flags that contradict each other, and
// seeds in a form the help does not promise or past the last seed, are
// bad usage (each was once run silently: one flag won, 017 was octal 15,
// and --start near 2^64 wrapped to seeds 0x0…).
func TestRunRefusesSeedsItWouldMisread(t *testing.T) {
	for _, tt := range []struct {
		why  string
		args []string
		want string
	}{
		{"--seed runs one seed, --seeds many", []string{"--seed", "5", "--seeds", "10"}, "--seed runs one seed"},
		{"--seed beside --start", []string{"--seed", "5", "--start", "9"}, "--seed runs one seed"},
		{"--seeds and --duration both bound the run", []string{"--seeds", "10", "--duration", "1s"}, "--seeds and --duration both say how many seeds run"},
		{"a range past 2^64−1", []string{"--start", "18446744073709551610", "--seeds", "200"}, "run past the last seed"},
		{"Go's octal", []string{"--seed", "0o17"}, `seed "0o17" is not an unsigned integer (decimal or 0x…)`},
		{"Go's digit separators", []string{"--start", "1_000"}, `seed "1_000" is not an unsigned integer`},
		{"a shard of a run too small to give it a seed", []string{"--seeds", "1", "--shard", "1/2"}, "shard 1/2 of 1 seeds runs none of them"},
	} {
		t.Run(tt.why, func(t *testing.T) {
			status, out, errOut := simrun(append([]string{"run", "--corpus", t.TempDir()}, tt.args...)...)
			if status != exitUsage || !strings.Contains(errOut, tt.want) {
				t.Errorf("status %d, want %d with %q\n%s%s", status, exitUsage, tt.want, out, errOut)
			}
		})
	}
}

// TestRunSeedIsDecimal: --seed 017 is seed 17 (0x11), as the help's
// "decimal or 0x…" says, not octal 15.
func TestRunSeedIsDecimal(t *testing.T) {
	_, out, _ := simrun("replay", "--seed", "017")
	if !strings.HasPrefix(out, "seed        0x11") {
		t.Errorf("replay --seed 017 replays:\n%s", firstLines(out, 1))
	}
}

// TestRunDurationRunsASeedAtLeast: a duration over before the first seed
// still runs it (it reported "0 runs, 0 violations" and exited 0).
func TestRunDurationRunsASeedAtLeast(t *testing.T) {
	status, out, errOut := simrun("run", "--duration", "1ns", "--corpus", t.TempDir())
	if status != exitClean || strings.HasPrefix(lastLine(out), "0 runs") {
		t.Errorf("status %d, last line %q\n%s", status, lastLine(out), errOut)
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// TestRunOneSeedInAShardsJob: --seed in a job whose environment names a
// shard that does not hold it is refused (it ran 0 seeds and passed).
func TestRunOneSeedInAShardsJob(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	t.Setenv("JOB_COMPLETION_COUNT", "2")
	status, _, errOut := simrun("run", "--seed", "0x44", "--mutant", "budget-off-by-one", "--corpus", t.TempDir())
	if status != exitUsage || !strings.Contains(errOut, "shard 1/2 of 1 seeds runs none of them") {
		t.Errorf("status %d, %q", status, errOut)
	}
}

// TestAFlagOfOneValueIsGivenOnce: a flag that takes a value, given twice,
// is refused (the last once won without a word: 'run --policy a --policy
// b' ran b alone); a repeatable one repeats, and a boolean may.
func TestAFlagOfOneValueIsGivenOnce(t *testing.T) {
	corpus := t.TempDir()
	for _, tt := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"run", "--seeds", "5", "--policy", "a.json", "--policy", "b.json", "--corpus", corpus}, false},
		{[]string{"run", "--seeds", "5", "--mutant", "retry-auth", "--mutant", "budget-off-by-one", "--corpus", corpus}, false},
		{[]string{"run", "--seeds", "5", "--corpus", corpus, "--corpus", corpus}, false},
		{[]string{"replay", "--seed", "3", "--seed", "4"}, false},
		{[]string{"budget", "--policy", "default", "--runs", "20", "--fail", "SERVER=0.1", "--fail", "AUTH=0.1"}, true},
		{[]string{"check", "--json", "--json", filepath.Join("..", "examples", "logs")}, true},
	} {
		status, _, errOut := simrun(tt.args...)
		switch {
		case tt.ok && status != exitClean:
			t.Errorf("%v: status %d, want 0\n%s", tt.args, status, errOut)
		case !tt.ok && (status != exitUsage || !strings.Contains(errOut, "given twice: give it once")):
			t.Errorf("%v: status %d, want 2 and the flag named\n%s", tt.args, status, errOut)
		}
	}
}

// TestReplayOfAScenarioSaysSo: a scenario given to replay, where a corpus
// entry goes, is named as what it is likely to be (it read "corpus format
// 0, but this build reads format 1").
// Each -j is bounded: a worker is a goroutine (with --sut dsh a Node
// process), and -j 2000000000 once started two billion of them before the
// first seed, deaf to Ctrl-C.
func TestJobsAreBounded(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--seeds", "5", "-j", "2000000000"},
		{"run", "--seeds", "5", "-j", "0"},
		{"budget", "--policy", "default", "-j", "0"},
		{"explore", "--max-faults", "1", "-j", "1025"},
		{"conformance", "--dsh", t.TempDir(), "--seeds", "1", "-j", "1025"},
	} {
		status, _, errOut := simrun(args...)
		j := args[len(args)-1]
		if status != exitUsage || !strings.Contains(errOut, "-j "+j+": from 1 to 1024") {
			t.Errorf("%v: status %d, want 2 and -j %s named with its bounds\n%s", args, status, j, errOut)
		}
	}
}

// TestAnEmptyFaultsNamesNoKind: --faults "" (a script's unset variable)
// once ran every kind without a word; it and an empty name in a list are
// refused, naming the flag.
func TestAnEmptyFaultsNamesNoKind(t *testing.T) {
	for _, list := range []string{"", "server,", ",", "server,,auth"} {
		status, _, errOut := simrun("run", "--seeds", "3", "--faults", list)
		if status != exitUsage || !strings.Contains(errOut, "--faults: ") || !strings.Contains(errOut, "names no kind") {
			t.Errorf("--faults %q: status %d, want 2 and the flag named\n%s", list, status, errOut)
		}
	}
	if status, _, errOut := simrun("run", "--seeds", "3", "--faults", "all"); status != exitClean {
		t.Errorf("--faults all: status %d, want 0\n%s", status, errOut)
	}
}

func TestReplayOfAScenarioSaysSo(t *testing.T) {
	status, _, errOut := simrun("replay", filepath.Join("..", "scenarios", "spec63-exhausted-server.json"))
	if status != exitUsage || !strings.Contains(errOut, "not a corpus entry: it has no format, plan or scenario field (a scenario file? simrun scenario runs one)") {
		t.Errorf("status %d, %q", status, errOut)
	}
}

// TestHelpShowsEveryDefault: the usage of every command lists its flags
// with their defaults, and nothing else (a wrapped flag value once printed
// a Go panic per flag and no default at all).
func TestHelpShowsEveryDefault(t *testing.T) {
	for _, tt := range []struct {
		command, want string
	}{
		{"run", `(default "corpus")`},
		{"replay", `(default "model")`},
		{"shrink", `(default "model")`},
		{"scenario", `(default "model")`},
		{"budget", "-j int"},
		{"explore", "-max-faults int"},
		{"hunt", "-max-seeds int"},
		{"merge", "usage: simrun merge"},
	} {
		_, _, errOut := simrun(tt.command, "-h")
		if strings.Contains(errOut, "panic") || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s -h: the usage has a panic or lacks %q:\n%s", tt.command, tt.want, errOut)
		}
		// A bad flag is one line: the command, the flag, and where the
		// flags are listed, not the usage that pushed it off the screen.
		status, _, errOut := simrun(tt.command, "--no-such-flag")
		want := "simrun " + tt.command + ": flag provided but not defined: -no-such-flag ('simrun " + tt.command + " -h' lists its flags)\n"
		if status != exitUsage || errOut != want {
			t.Errorf("%s --no-such-flag: status %d, stderr %q, want %d and %q", tt.command, status, errOut, exitUsage, want)
		}
	}
}

// TestUsageNamesEveryFlag: the synopsis at the top of each command's
// usage names every flag its list below gives (the limit flags, common to
// every command, apart): run's once lacked --listeners and --shard.
func TestUsageNamesEveryFlag(t *testing.T) {
	flagLine := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)
	for _, command := range []string{"run", "replay", "shrink", "scenario", "check", "budget", "explore", "hunt", "merge",
		"serve", "conformance", "dsh-web", "webui"} {
		_, _, usage := simrun(command, "-h")
		synopsis, _, _ := strings.Cut(usage, "\n\n")
		if !strings.HasPrefix(synopsis, "usage: simrun "+command) {
			t.Errorf("%s -h does not begin with its synopsis:\n%s", command, usage)
			continue
		}
		for _, m := range flagLine.FindAllStringSubmatch(usage, -1) {
			name := m[1]
			if strings.HasPrefix(name, "max-") || command == "dsh-web" && name == "inner" {
				continue // the limits (internal/limits), on every command; dsh-web's re-run of itself
			}
			if !regexp.MustCompile(`-` + regexp.QuoteMeta(name) + `\b`).MatchString(synopsis) {
				t.Errorf("simrun %s -h lists -%s but its synopsis does not name it:\n%s", command, name, synopsis)
			}
		}
	}
}

// TestSUTIsRefusedWhereItCannotRun: --sut names the system each command
// runs; what DSH's loop cannot run, or an install that is not one, is
// refused before anything runs, naming the flag.
func TestSUTIsRefusedWhereItCannotRun(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-install")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--seeds", "3", "--sut", "dhs"}, `--sut: "dhs" is no system under test (model, dsh or both)`},
		{[]string{"run", "--seeds", "3", "--sut", "dsh", "--mutant", "retry-auth"}, "--mutant retry-auth with --sut dsh"},
		{[]string{"run", "--seeds", "3", "--sut", "both", "--dsh-loop", missing}, "--dsh-loop: " + missing + ": no @deepseek-ai/dsh-agent-loop"},
		{[]string{"scenario", "--sut", "dsh", "--dsh-loop", missing, filepath.Join("..", "scenarios", "spec63-exhausted-server.json")}, "--dsh-loop: "},
		{[]string{"explore", "--max-faults", "1", "--sut", "dsh", "--mutant", "retry-auth"}, "--sut dsh: a mutant of the zoo and a listener of one's own are Go code"},
		{[]string{"explore", "--max-faults", "1", "--sut", "dsh", "--dsh-loop", missing}, "--dsh-loop: "},
		{[]string{"budget", "--policy", "default", "--sut", "dsh", "--dsh-loop", missing}, "--dsh-loop: "},
		{[]string{"replay", filepath.Join("..", "corpus", "budget-off-by-one-retry-budget-277a6b47c00b.json"), "--sut", "dsh"}, "an entry of the model's, given --sut dsh: it replays where it failed"},
	} {
		status, _, errOut := simrun(tt.args...)
		if status != exitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: status %d, want 2 and %q\n%s", tt.args, status, tt.want, errOut)
		}
	}
}

// TestShellWord: a reproduction line's paths stay one word each when
// pasted into a shell.
func TestShellWord(t *testing.T) {
	for _, tt := range []struct{ why, in, want string }{
		{"a plain path as it is", ".cache/dsh-loop", ".cache/dsh-loop"},
		{"a folder with a space, quoted", "/tmp/my copy", "'/tmp/my copy'"},
		{"a quote inside, escaped", "it's", `'it'\''s'`},
		{"a dollar is not expanded", "$HOME/x", "'$HOME/x'"},
		{"nothing is an empty word", "", "''"},
	} {
		if got := shellWord(tt.in); got != tt.want {
			t.Errorf("%s: shellWord(%q) = %s, want %s", tt.why, tt.in, got, tt.want)
		}
	}
}

// TestRunSaysWhichCorpusEntriesItCannotReplay: an entry of this run's
// mutant made with --dsh-view is a regression a run without the flag does
// not replay; the run says so on stderr, rather than read as its replay.
func TestRunSaysWhichCorpusEntriesItCannotReplay(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../corpus/budget-off-by-one-retry-budget-277a6b47c00b.json")
	if err != nil {
		t.Fatal(err)
	}
	var entry map[string]any
	if err := json.Unmarshal(b, &entry); err != nil {
		t.Fatal(err)
	}
	entry["view"] = "dsh"
	b, _ = json.Marshal(entry)
	os.WriteFile(filepath.Join(dir, "made-with-dsh-view.json"), b, 0o644)
	_, _, errOut := simrun("run", "--seeds", "1", "--mutant", "budget-off-by-one", "--corpus", dir)
	if !strings.Contains(errOut, "entries made with --dsh-view skipped") {
		t.Errorf("stderr does not name the entries skipped:\n%s", errOut)
	}
	// Another mutant's entries are not this run's regressions: no word.
	_, _, errOut = simrun("run", "--seeds", "1", "--mutant", "retry-auth", "--corpus", dir)
	if strings.Contains(errOut, "skipped") {
		t.Errorf("another mutant's entry was named:\n%s", errOut)
	}
}
