package campaign

import (
	"testing"

	"github.com/turnsim/turnsim/sim"
)

// TestSkipReason: an entry is replayed by a run of its own mutant, system
// and view code, and otherwise skipped with the reason a log can print.
func TestSkipReason(t *testing.T) {
	tests := []struct {
		name   string
		entry  Entry
		mutant string
		want   string
	}{
		{"a regression under the correct loop replays", Entry{}, "", ""},
		{"a mutant's entry under its mutant replays", Entry{Mutant: "m"}, "m", ""},
		{"a regression under a mutant is skipped: the mutant would fail it", Entry{}, "m",
			"regressions of the correct loop, not replayed against mutant m"},
		{"a mutant's entry under the correct loop waits for its mutant", Entry{Mutant: "m"}, "",
			"entries of mutants, each replayed against its mutant (--mutant NAME)"},
		{"another mutant's entry", Entry{Mutant: "n"}, "m", "entries of other mutants"},
		{"an entry of DSH's loop under the model", Entry{System: "dsh"}, "", "entries made with --sut dsh"},
		{"an entry made beside DSH's view code", Entry{View: "dsh"}, "", "entries made with --dsh-view"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SkipReason(&tt.entry, tt.mutant, sim.Options{}); got != tt.want {
				t.Errorf("SkipReason = %q, want %q", got, tt.want)
			}
		})
	}
	// Entries of the run's own mutant made with other flags are the ones a
	// run with those flags would replay; another mutant's are not.
	for _, tt := range []struct {
		entry Entry
		want  bool
	}{{Entry{System: "dsh"}, true}, {Entry{View: "dsh"}, true}, {Entry{Mutant: "m"}, false}} {
		if got := (Skip{Reason: SkipReason(&tt.entry, "", sim.Options{})}).OtherFlags(); got != tt.want {
			t.Errorf("%+v: OtherFlags %v, want %v", tt.entry, got, tt.want)
		}
	}
	var s Skips
	for _, r := range []string{"a", "b", "a"} {
		s.Add(r)
	}
	if got, want := s.Note(), "; skipped 2: a; skipped 1: b"; got != want {
		t.Errorf("Note = %q, want %q", got, want)
	}
}
