package campaign

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/oracle"
)

// TestFailure: two entries fail the same way when they fail under the
// same code, the same invariant, and a message that differs only in its
// numbers.
func TestFailure(t *testing.T) {
	base := Entry{Mutant: "steer-lost-on-retry", Invariant: oracle.NoLostInput,
		Message: "the user message at seq 20 entered turn 1's history, but attempt 2 of step 2 was sent without it"}
	tests := []struct {
		why  string
		edit func(e *Entry)
		same bool
	}{
		{"other numbers: another path to one failure", func(e *Entry) {
			e.Message = "the user message at seq 14 entered turn 2's history, but attempt 2 of step 1 was sent without it"
		}, true},
		{"another plan and seed", func(e *Entry) { e.Plan, e.Seed = []string{"request 1: fail SERVER 500"}, "0x7" }, true},
		{"other words", func(e *Entry) { e.Message = "the user message at seq 20 was never sent" }, false},
		{"a code in place of another", func(e *Entry) {
			e.Message = "the user message at seq 20 entered turn 1's history, but attempt 2 of step 2 was sent without it, AUTH"
		}, false},
		{"another invariant", func(e *Entry) { e.Invariant = oracle.CancelledTurnNeverRetries }, false},
		{"another mutant", func(e *Entry) { e.Mutant = "loop-retry-window" }, false},
		{"the correct loop", func(e *Entry) { e.Mutant = "" }, false},
		{"DSH's loop", func(e *Entry) { e.System = "dsh" }, false},
		{"DSH's view code", func(e *Entry) { e.View = "dsh" }, false},
		{"a listener of one's own", func(e *Entry) { e.Listeners = []string{"waits"} }, false},
		{"a pinned policy", func(e *Entry) { e.Overrides.Policy = json.RawMessage(`{"mode":"always"}`) }, false},
		{"fault kinds", func(e *Entry) { e.Overrides.Faults = []string{"outage"} }, false},
	}
	for _, tt := range tests {
		e := base
		tt.edit(&e)
		if got := e.Failure() == base.Failure(); got != tt.same {
			t.Errorf("%s: the same failure %v, want %v", tt.why, got, tt.same)
		}
	}
	// Policies spelled two ways are one.
	a, b := base, base
	a.Overrides.Policy, b.Overrides.Policy = json.RawMessage(`{"mode":"always"}`), json.RawMessage(`{ "mode": "always" }`)
	if a.Failure() != b.Failure() {
		t.Error("one pinned policy, spaced two ways, gives two failures")
	}
}

// TestCorpusErrorsAreNamed: a broken or unknown-format entry comes back
// with its error, by name.
func TestCorpusErrorsAreNamed(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/a-broken.json", []byte("{"), 0o644)
	os.WriteFile(dir+"/b-future.json", []byte(`{"format":99,"scenario":{}}`), 0o644)
	_, s := faults.Draw(1, faults.Overrides{})
	e, err := NewEntry("test", 1, faults.Overrides{}, "", "retry-budget", "a message", s)
	if err != nil {
		t.Fatal(err)
	}
	path, _, _, err := e.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := LoadCorpus(dir)
	if len(got) != 3 || got[0].Err == nil || got[1].Err == nil || got[2].Err != nil || got[2].Path != path {
		t.Fatalf("LoadCorpus: %v", fmt.Sprint(got))
	}
	if want := "corpus format 99, but this build reads format 1"; got[1].Err.Error() != want {
		t.Errorf("the future entry's error is %q, want %q", got[1].Err, want)
	}
}
