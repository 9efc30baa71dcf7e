package campaign

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/oracle"
)

func viewFinding(class string, turn int) oracle.Finding {
	return oracle.Finding{Class: class, Violation: oracle.Violation{Invariant: oracle.ExhaustedTurnRendersError, Turn: turn, Message: class + " words"}}
}

// TestViewFindingsAreCountedByClass: a campaign counts DSH's view code's
// recorded findings by class, seeds and turns apart, the first seed's
// words and reproduction line kept; shards merge to the same counts with
// the lowest first seed.
func TestViewFindingsAreCountedByClass(t *testing.T) {
	repro := Repro{SimrunFlags: " --dsh-view"}
	var whole, even, odd Summary
	results := []*Result{
		{Seed: "0x1"},
		{Seed: "0x2", ViewFindings: []oracle.Finding{viewFinding("b-class", 1), viewFinding("b-class", 2)}},
		{Seed: "0x3", ViewFindings: []oracle.Finding{viewFinding("a-class", 1)}},
		{Seed: "0x4", ViewFindings: []oracle.Finding{viewFinding("b-class", 1), viewFinding("a-class", 3)}},
	}
	for i, res := range results {
		whole.addViewFindings(res, repro)
		if i%2 == 0 {
			odd.addViewFindings(res, repro) // seeds 1 and 3
		} else {
			even.addViewFindings(res, repro)
		}
	}
	want := []ViewFindingCount{
		{Class: "a-class", Invariant: oracle.ExhaustedTurnRendersError, Seeds: 2, Turns: 2, First: "0x3", Example: "a-class words", Reproduce: "simrun replay --seed 0x3 --dsh-view"},
		{Class: "b-class", Invariant: oracle.ExhaustedTurnRendersError, Seeds: 2, Turns: 3, First: "0x2", Example: "b-class words", Reproduce: "simrun replay --seed 0x2 --dsh-view"},
	}
	if diff := cmp.Diff(want, whole.ViewFindings); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, mergeViewFindings(mergeViewFindings(nil, even.ViewFindings), odd.ViewFindings)); diff != "" {
		t.Errorf("merged shards (-want +got):\n%s", diff)
	}
	if note := whole.ViewFindingsNote(); !strings.Contains(note, "a-class in 2 seeds (2 turns), b-class in 2 seeds (3 turns)") {
		t.Errorf("note %q", note)
	}
}
