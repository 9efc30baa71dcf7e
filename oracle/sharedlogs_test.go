package oracle_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/turnsim/turnsim/internal/sharedlogs"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
)

func readFile(t testing.TB, path string) []session.Event {
	t.Helper()
	_, events, err := session.ReadFile(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// TestSharedLogs: every real DSH log checks with zero violations and
// derives exactly one turn-error node per error-reason turn/end.
func TestSharedLogs(t *testing.T) {
	dir, files := sharedlogs.Files(t)
	for _, rel := range files {
		t.Run(rel, func(t *testing.T) {
			events := readFile(t, filepath.Join(dir, rel))
			for _, v := range oracle.Check(events, oracle.Options{}) {
				t.Errorf("%s", v)
			}
			errorEnds := 0
			for i := range events {
				if end, ok := events[i].Data.(*session.TurnEnd); ok && end.Reason.Kind == session.EndError {
					errorEnds++
				}
			}
			if n := len(view.Derive(events).TurnErrors); n != errorEnds {
				t.Errorf("%d turn-error nodes for %d error turn ends", n, errorEnds)
			}
		})
	}
}

// TestExampleLogs: the logs the project ships check clean under Strict.
func TestExampleLogs(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	paths, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "examples", "logs", "*.jsonl"))
	if len(paths) < 6 {
		t.Fatalf("found %d example logs, want at least 6", len(paths))
	}
	for _, p := range paths {
		for _, v := range oracle.Check(readFile(t, p), oracle.Options{Strict: true}) {
			t.Errorf("%s: %s", filepath.Base(p), v)
		}
	}
}

// TestCompactionRecovery: DSH's overflow recovery has one compaction
// bracket, inside turn 1 step 2, and no violation.
func TestCompactionRecovery(t *testing.T) {
	events := readFile(t, sharedlogs.Path(t, sharedlogs.CompactionRecovery))
	if vs := oracle.Check(events, oracle.Options{}); len(vs) > 0 {
		t.Errorf("violations: %v", vs)
	}
	type bracket struct{ turn, step int }
	var brackets []bracket
	turn, step := 0, 0
	for i := range events {
		switch p := events[i].Data.(type) {
		case *session.StepStart:
			turn, step = p.Turn, p.Step
		case *session.StepEnd:
			step = 0
		case *session.CompactionStart:
			brackets = append(brackets, bracket{turn, step})
		}
	}
	if len(brackets) != 1 || brackets[0] != (bracket{1, 2}) {
		t.Errorf("compaction brackets at %v, want one in turn 1 step 2", brackets)
	}
}
