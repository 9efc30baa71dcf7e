package oracle_test

import (
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
)

func exampleLog(t *testing.T, name string) []session.Event {
	_, file, _, _ := runtime.Caller(0)
	return readFile(t, filepath.Join(filepath.Dir(file), "..", "examples", "logs", name))
}

// Wrong views, each a bug a Web developer could write; the rendering
// invariant must catch every one.
var wrongViews = []struct {
	name string
	log  string
	view func([]session.Event) view.Nodes
}{
	{"the retired rule: a turn that retried hides its error (DSH's second design note retires it)", "exhausted-server.jsonl",
		func(events []session.Event) view.Nodes {
			n := view.Derive(events)
			retried := map[int]bool{}
			for _, r := range n.ModelRetries {
				retried[r.Turn] = true
			}
			n.TurnErrors = slices.DeleteFunc(n.TurnErrors, func(e view.TurnError) bool { return retried[e.Turn] })
			return n
		}},
	{"the raw provider text of an AUTH failure is shown", "auth-error.jsonl",
		func(events []session.Event) view.Nodes {
			n := view.Derive(events)
			for i := range n.TurnErrors {
				n.TurnErrors[i].Message = "invalid key sk-abc123 for this account"
			}
			return n
		}},
	{"a turn-error node needs its turn/start inside the window", "exhausted-server.jsonl",
		func(events []session.Event) view.Nodes {
			n := view.Derive(events)
			started := map[int]bool{}
			for i := range events {
				if s, ok := events[i].Data.(*session.TurnStart); ok {
					started[s.Turn] = true
				}
			}
			n.TurnErrors = slices.DeleteFunc(n.TurnErrors, func(e view.TurnError) bool { return !started[e.Turn] })
			return n
		}},
	{"the retry row beside the error is dropped", "exhausted-server.jsonl",
		func(events []session.Event) view.Nodes {
			n := view.Derive(events)
			n.ModelRetries = nil
			return n
		}},
	{"each failed turn of a v0 log is merged into one node", "v0-new-turn-retry.jsonl",
		func(events []session.Event) view.Nodes {
			n := view.Derive(events)
			if len(n.TurnErrors) > 1 {
				n.TurnErrors = n.TurnErrors[len(n.TurnErrors)-1:]
			}
			return n
		}},
}

func TestRenderingCatchesWrongViews(t *testing.T) {
	for _, wv := range wrongViews {
		t.Run(wv.name, func(t *testing.T) {
			events := exampleLog(t, wv.log)
			if vs := oracle.Check(events, oracle.Options{}); len(vs) > 0 {
				t.Fatalf("the correct view already fails: %v", vs)
			}
			got := ids(oracle.Check(events, oracle.Options{Derive: wv.view}))
			if !slices.Equal(got, []oracle.ID{oracle.ExhaustedTurnRendersError}) {
				t.Errorf("invariants that fired: %v, want only %s", got, oracle.ExhaustedTurnRendersError)
			}
		})
	}
}

// TestTailWindowsAreChecked: the windows the check derives include one that
// starts after the turn's turn/start; a view that drops the node there is
// caught even though the full log renders fine.
func TestTailWindowsAreChecked(t *testing.T) {
	events := exampleLog(t, "exhausted-server.jsonl")
	var windows []int64
	spy := func(w []session.Event) view.Nodes {
		windows = append(windows, w[0].Seq)
		return view.Derive(w)
	}
	oracle.Check(events, oracle.Options{Derive: spy})
	// The turn starts at seq 1 and ends at seq 15; its chunks are seqs 7,
	// 10 and 13.
	want := []int64{0, 1, 2, 3, 4, 5, 6, 8, 9, 11, 12, 14, 15}
	if !slices.Equal(windows, want) {
		t.Errorf("windows derived from seqs %v, want %v", windows, want)
	}
}
