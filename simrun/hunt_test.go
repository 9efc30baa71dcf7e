package simrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/campaign"
)

// TestHuntFindsAndRecords: hunting one mutant prints its row, writes an
// entry that replays against the mutant to the same invariant, and ends
// with the exact last line; exit 0.
func TestHuntFindsAndRecords(t *testing.T) {
	dir := t.TempDir()
	status, out, errOut := simrun("hunt", "--mutant", "retry-auth", "--corpus", dir)
	if status != exitClean {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if last := lines[len(lines)-1]; last != "1/1 mutants found" {
		t.Errorf("last line %q, want %q", last, "1/1 mutants found")
	}
	if !strings.Contains(out, "retry-auth  ") || !strings.Contains(out, "non-retryable-stays-terminal") {
		t.Errorf("no row for retry-auth:\n%s", out)
	}
	entries := campaign.LoadCorpus(dir)
	if len(entries) != 1 || entries[0].Err != nil || entries[0].Entry.Mutant != "retry-auth" {
		t.Fatalf("corpus after hunting: %v", entries)
	}
	status, out, _ = simrun("replay", entries[0].Path)
	if status != exitViolation || !strings.Contains(out, "violation: non-retryable-stays-terminal") {
		t.Errorf("the entry replays with status %d:\n%s", status, out)
	}
}

// TestHuntNotFound: a mutant the seeds do not reach is reported "no", and
// the exit status is 1. --json prints a row object and a summary.
func TestHuntNotFound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	status, out, errOut := simrun("hunt", "--mutant", "budget-off-by-one", "--max-seeds", "3", "--corpus", dir, "--json")
	if status != exitViolation {
		t.Fatalf("status %d, want 1\n%s%s", status, out, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var row struct {
		Mutant string
		Found  bool
		Seeds  int
	}
	var summary struct{ Found, Mutants int }
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &row) != nil || json.Unmarshal([]byte(lines[1]), &summary) != nil {
		t.Fatalf("want a row and a summary object:\n%s", out)
	}
	if row.Mutant != "budget-off-by-one" || row.Found || row.Seeds != 3 || summary.Found != 0 || summary.Mutants != 1 {
		t.Errorf("row %+v, summary %+v", row, summary)
	}
	if status, _, errOut := simrun("hunt", "--mutant", "nope"); status != exitUsage || !strings.Contains(errOut, "unknown mutant") {
		t.Errorf("an unknown mutant: status %d, %q", status, errOut)
	}
}

// TestHuntRefusesWhatItWouldMisread: seeds past 2^64−1 (it wrapped to
// seed 0 and on), and a corpus that is a file (it hunted every mutant,
// then could write none of their entries).
func TestHuntRefusesWhatItWouldMisread(t *testing.T) {
	file := filepath.Join(t.TempDir(), "corpus")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"hunt", "--mutant", "retry-auth", "--start", "0xffffffffffffffff"}, "run past the last seed"},
		{[]string{"hunt", "--mutant", "retry-auth", "--corpus", file}, "--corpus " + file + ": not a folder"},
		{[]string{"hunt", "--mutant", "retry-auth", "--corpus", filepath.Join(file, "sub")}, "--corpus " + filepath.Join(file, "sub") + ": " + file + " is not a folder, so it cannot be made"},
	} {
		if status, _, errOut := simrun(tt.args...); status != exitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: status %d, %q", tt.args, status, errOut)
		}
	}
}
