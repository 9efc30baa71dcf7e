package simrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/internal/fulldisk"
)

// corpusFiles are a corpus folder's files and their bytes.
func corpusFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

// TestRunCorpusTheSameAtAnyJ: the corpus and the output are the same
// bytes at any -j. Many seeds of recover-after-turn shrink to one plan
// that breaks two invariants, each an entry, and each entry holds the
// first of them in seed order (workers that wrote as they finished let
// the last rename win: an entry of budget-off-by-one held seed 0x44, 0x51
// or 0x98 from one run to the next at -j 2; since shrinking reaches a
// canonical form and one failure keeps one entry, most mutants' 300 seeds
// give one entry, too few for this test).
func TestRunCorpusTheSameAtAnyJ(t *testing.T) {
	var wantOut string
	var want map[string]string
	for i, j := range []string{"1", "2", "8", "8", "8", "8"} {
		corpus := filepath.Join(t.TempDir(), "corpus")
		status, out, errOut := simrun("run", "--seeds", "300", "--mutant", "recover-after-turn", "--corpus", corpus, "-j", j)
		if status != exitViolation {
			t.Fatalf("-j %s: status %d\n%s%s", j, status, out, errOut)
		}
		out = strings.ReplaceAll(withoutRates(out), corpus, "CORPUS")
		got := corpusFiles(t, corpus)
		if i == 0 {
			wantOut, want = out, got
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("run %d at -j %s: the corpus differs from -j 1's (-j1 +j%s):\n%s", i, j, j, diff)
		}
		if diff := cmp.Diff(wantOut, out); diff != "" {
			t.Errorf("run %d at -j %s: the output differs from -j 1's (-j1 +j%s):\n%s", i, j, j, diff)
		}
	}
	if len(want) < 2 {
		t.Fatalf("the corpus holds %d entries: the test needs several seeds shrinking to several plans", len(want))
	}
	// Each entry holds the first seed, in seed order, that shrank to it.
	firstSeed := map[string]string{}
	block := regexp.MustCompile(`(?m)^seed (0x[0-9a-f]+): [\s\S]*?^  corpus: CORPUS/(\S+)`)
	for _, m := range block.FindAllStringSubmatch(wantOut, -1) {
		if _, ok := firstSeed[m[2]]; !ok {
			firstSeed[m[2]] = m[1]
		}
	}
	for name, data := range want {
		var e campaign.Entry
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatal(err)
		}
		if e.Seed != firstSeed[name] {
			t.Errorf("%s holds seed %s, want %s: the first seed in seed order that shrank to it", name, e.Seed, firstSeed[name])
		}
	}
}

// TestRunCorpusOnAFullDisk: on a file system that fills up after the
// first entry, the entries that could not be written are said to be not
// written, with the reason, and counted in the summary (they were once
// printed as written, and --json's summary said corpusErrors 0); every
// entry said to be written is on disk.
func TestRunCorpusOnAFullDisk(t *testing.T) {
	dir, ok := fulldisk.Dir(t, 4096) // one page: the first entry fills it
	if !ok {
		return
	}
	corpus := filepath.Join(dir, "corpus")
	status, out, errOut := simrun("run", "-j", "1", "--seeds", "300", "--mutant", "recover-after-turn", "--corpus", corpus)
	if status != exitViolation {
		t.Fatalf("status %d, want %d\n%s%s", status, exitViolation, out, errOut)
	}
	written := regexp.MustCompile(`(?m)^  corpus: (\S+)$`).FindAllStringSubmatch(out, -1)
	there := regexp.MustCompile(`(?m)^  corpus: (\S+) \(already there`).FindAllStringSubmatch(out, -1)
	lost := regexp.MustCompile(`(?m)^  corpus: not written: .*no space left on device$`).FindAllString(out, -1)
	if len(written) != 1 || len(lost) == 0 {
		t.Fatalf("%d entries said written and %d not written, want 1 and some:\n%s", len(written), len(lost), out)
	}
	for _, m := range append(written, there...) {
		if _, err := os.Stat(m[1]); err != nil {
			t.Errorf("said to be in the corpus, but: %v", err)
		}
	}
	if files := corpusFiles(t, corpus); len(files) != 1 {
		t.Errorf("the corpus holds %d files, want the 1 written (no temporary left)", len(files))
	}
	if want := "(" + strconv.Itoa(len(lost)) + " failing seeds' corpus entries not written)"; !strings.HasSuffix(lastLine(out), want) {
		t.Errorf("last line %q, want it to end %q", lastLine(out), want)
	}
	// Replayed first, the corpus's one entry is the same failure again,
	// which only proves the entry is whole. Then --json.
	os.RemoveAll(corpus)
	status, out, _ = simrun("run", "-j", "1", "--seeds", "300", "--mutant", "recover-after-turn", "--corpus", corpus, "--json")
	var summary struct {
		CorpusNotWritten *int `json:"corpusNotWritten"`
	}
	json.Unmarshal([]byte(lastLine(out)), &summary)
	lines := strings.Count(out, `"corpusError":`)
	if status != exitViolation || summary.CorpusNotWritten == nil || *summary.CorpusNotWritten != lines || lines == 0 {
		t.Errorf("status %d; the summary %s says corpusNotWritten %v, and %d lines carry a corpusError", status, lastLine(out), summary.CorpusNotWritten, lines)
	}
}

// TestHuntOnAFullDisk: a hunt whose entry cannot be written fails (it
// printed "could not be written", then "1/1 mutants found", and exited 0).
func TestHuntOnAFullDisk(t *testing.T) {
	dir, ok := fulldisk.Dir(t, 4096)
	if !ok {
		return
	}
	// Fill the file system first.
	if err := os.WriteFile(filepath.Join(dir, "filler"), make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	status, out, errOut := simrun("hunt", "--mutant", "retry-auth", "--corpus", filepath.Join(dir, "corpus"))
	if status != exitUsage || !strings.Contains(out, "retry-auth: the corpus entry could not be written: ") ||
		!strings.Contains(errOut, "1 of 1 entries could not be written") {
		t.Errorf("status %d, want %d, with the entry said not written\n%s%s", status, exitUsage, out, errOut)
	}
}

// TestRunReplacesABrokenEntry: a file under an entry's name that does not
// read as an entry (empty, cut short) is replaced by the entry, and the
// output says so; it was kept, "already there", with a reproduction line
// pointing at a file replay refuses.
func TestRunReplacesABrokenEntry(t *testing.T) {
	corpus := t.TempDir()
	name := filepath.Join(corpus, "budget-off-by-one-retry-budget-277a6b47c00b.json")
	os.WriteFile(name, nil, 0o644)
	_, out, _ := simrun("run", "-j", "1", "--seeds", "300", "--mutant", "budget-off-by-one", "--corpus", corpus)
	if !strings.Contains(out, "  corpus: "+name+" (replacing a file of that name that was no entry: ") {
		t.Errorf("no seed replaced the empty file:\n%s", out)
	}
	if le := campaign.LoadEntry(name); le.Err != nil {
		t.Errorf("the entry does not read back: %v", le.Err)
	}
	if status, replayed, _ := simrun("replay", name); status != exitViolation {
		t.Errorf("replaying it: status %d\n%s", status, replayed)
	}
}
