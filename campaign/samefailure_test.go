package campaign_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/mutants"
)

// sameFailureRun runs steer-lost-on-retry's first 2,000 seeds with a
// corpus, and returns the failing results and the corpus's files.
func sameFailureRun(t *testing.T, corpus string) ([]*campaign.Result, []string) {
	t.Helper()
	m, ok := mutants.Find("steer-lost-on-retry")
	if !ok {
		t.Fatal("no mutant steer-lost-on-retry")
	}
	var failed []*campaign.Result
	campaign.Run(context.Background(), campaign.Config{First: 1, Count: 2000, Workers: 2, Sim: m.Options, Mutant: m.Name, Corpus: corpus},
		func(r *campaign.Result) {
			if len(r.Violations) > 0 {
				failed = append(failed, r)
			}
		})
	files, _ := filepath.Glob(filepath.Join(corpus, "*.json"))
	return failed, files
}

// TestOneFailureOneEntry: the seeds of steer-lost-on-retry reach its bug
// through plans shrinking cannot bring together (a steer claimed after a
// tool call, after a retry, a followup that starts its own turn), and
// fail the same way: one entry stands for them, and the other seeds point
// at it. Eight entries were written before.
func TestOneFailureOneEntry(t *testing.T) {
	corpus := t.TempDir()
	failed, files := sameFailureRun(t, corpus)
	plans := map[string]bool{}
	pointed := 0
	for _, r := range failed {
		plans[strings.Join(r.Plan, "\n")] = true
		if r.SameFailure {
			pointed++
			if len(files) > 0 && r.Corpus != files[0] {
				t.Errorf("seed %s points at %s, want the one entry %s", r.Seed, r.Corpus, files[0])
			}
		}
	}
	if len(plans) < 2 || pointed == 0 {
		t.Fatalf("%d shrunk plans, %d seeds pointed at another plan's entry: the test needs several plans of one failure", len(plans), pointed)
	}
	if len(files) != 1 {
		t.Errorf("%d entries for %d plans of one failure, want 1: %q", len(files), len(plans), files)
	}
}

// TestAnEntryThatNoLongerFailsStandsForNothing: a corpus entry of the
// failure that no longer reproduces it does not stand for it: the
// failure gets an entry that does.
func TestAnEntryThatNoLongerFailsStandsForNothing(t *testing.T) {
	corpus := t.TempDir()
	if _, files := sameFailureRun(t, corpus); len(files) != 1 {
		t.Fatalf("%d entries, want 1", len(files))
	}
	files, _ := filepath.Glob(filepath.Join(corpus, "*.json"))
	// The entry's plan made harmless: no failing request, no late input.
	var e map[string]json.RawMessage
	b, _ := os.ReadFile(files[0])
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	var s map[string]json.RawMessage
	json.Unmarshal(e["scenario"], &s)
	var inputs []json.RawMessage
	json.Unmarshal(s["inputs"], &inputs)
	s["requests"], s["inputs"], s["outages"] = json.RawMessage(`[]`), mustJSON(t, inputs[:1]), json.RawMessage(`[]`)
	e["scenario"] = mustJSON(t, s)
	stale := filepath.Join(corpus, "stale.json")
	os.Remove(files[0])
	if err := os.WriteFile(stale, mustJSON(t, e), 0o644); err != nil {
		t.Fatal(err)
	}
	failed, files := sameFailureRun(t, corpus)
	if len(files) != 2 {
		t.Fatalf("%d files, want the stale entry and a new one: %q", len(files), files)
	}
	for _, r := range failed {
		if r.Corpus == stale {
			t.Errorf("seed %s points at the stale entry, which no longer fails", r.Seed)
		}
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShardsKnowTheCorpusFailures: every shard of a campaign, not only
// shard 0, which reports the replay, knows the failures the corpus's
// entries stand for, and writes no second entry of one.
func TestShardsKnowTheCorpusFailures(t *testing.T) {
	corpus := t.TempDir()
	if _, files := sameFailureRun(t, corpus); len(files) != 1 {
		t.Fatalf("%d entries, want 1", len(files))
	}
	m, _ := mutants.Find("steer-lost-on-retry")
	for i := uint64(0); i < 3; i++ {
		c := campaign.Config{First: 1, Count: 2000, Workers: 2, Sim: m.Options, Mutant: m.Name, Corpus: corpus,
			Shard: campaign.Shard{Index: i, Of: 3}}
		sum := campaign.Run(context.Background(), c, func(*campaign.Result) {})
		if reported := sum.Corpus.Replayed > 0; reported != (i == 0) {
			t.Errorf("shard %d/3 reported the replay: %v, want %v", i, reported, i == 0)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(corpus, "*.json")); len(files) != 1 {
		t.Errorf("after three shards, %d entries, want the 1: %q", len(files), files)
	}
}

// TestOneSeedKnowsTheCorpusFailures: a seed reproduced on its own (One,
// as go test's -sim.seed line does) writes no second entry of a failure
// an entry of the corpus stands for.
func TestOneSeedKnowsTheCorpusFailures(t *testing.T) {
	corpus := t.TempDir()
	failed, files := sameFailureRun(t, corpus)
	if len(files) != 1 {
		t.Fatalf("%d entries, want 1", len(files))
	}
	var other *campaign.Result
	for _, r := range failed {
		if r.SameFailure {
			other = r
			break
		}
	}
	if other == nil {
		t.Fatal("no seed of another plan of the failure")
	}
	m, _ := mutants.Find("steer-lost-on-retry")
	c := campaign.Config{Sim: m.Options, Mutant: m.Name, Corpus: corpus, NoReplay: true}
	seed, err := campaign.ParseSeed(other.Seed)
	if err != nil {
		t.Fatal(err)
	}
	r := c.One(seed)
	if !r.SameFailure || r.Corpus != files[0] {
		t.Errorf("seed %s alone: corpus %q (same failure %v), want it pointed at %s", other.Seed, r.Corpus, r.SameFailure, files[0])
	}
	if after, _ := filepath.Glob(filepath.Join(corpus, "*.json")); len(after) != 1 {
		t.Errorf("%d entries after the seed alone, want the 1", len(after))
	}
}
