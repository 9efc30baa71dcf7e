package simrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShardsMergeToTheUnshardedRun: three shards' --json, merged in any
// order, are byte for byte the unsharded run's output.
func TestShardsMergeToTheUnshardedRun(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	args := []string{"run", "--seeds", "150", "--mutant", "retry-auth", "--corpus", corpus, "--json"}
	status, whole, _ := simrun(args...)
	if status != exitViolation {
		t.Fatalf("the unsharded run: status %d", status)
	}
	var files []string
	for _, s := range []string{"2/3", "0/3", "1/3"} {
		_, out, _ := simrun(append(args, "--shard", s)...)
		path := filepath.Join(dir, strings.ReplaceAll(s, "/", "-of-")+".json")
		os.WriteFile(path, []byte(out), 0o644)
		files = append(files, path)
	}
	status, merged, errOut := simrun(append([]string{"merge"}, files...)...)
	if status != exitViolation || merged != whole {
		t.Errorf("merge: status %d\n--- merged\n%s--- unsharded\n%s%s", status, merged, whole, errOut)
	}
	if status, _, errOut := simrun("merge", files[0], files[1]); status != exitUsage || !strings.Contains(errOut, "shard 1/3 is missing") {
		t.Errorf("a missing shard: status %d, %q", status, errOut)
	}
	if status, _, errOut := simrun("merge", files[0], files[0], files[1], files[2]); status != exitUsage || !strings.Contains(errOut, "appears twice") {
		t.Errorf("a repeated shard: status %d, %q", status, errOut)
	}
}

// TestShardedStatsMerge: shards run with --stats merge to the unsharded
// run's coverage, byte for byte; a mix of shards with and without it is
// refused.
func TestShardedStatsMerge(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "--seeds", "120", "--corpus", filepath.Join(dir, "none"), "--json", "--stats"}
	status, whole, _ := simrun(args...)
	if status != exitClean || !strings.Contains(whole, `{"stats":`) {
		t.Fatalf("the unsharded run: status %d\n%s", status, whole)
	}
	var files []string
	for _, s := range []string{"0/2", "1/2"} {
		_, out, _ := simrun(append(args, "--shard", s)...)
		path := filepath.Join(dir, strings.ReplaceAll(s, "/", "-of-")+".json")
		os.WriteFile(path, []byte(out), 0o644)
		files = append(files, path)
	}
	status, merged, errOut := simrun(append([]string{"merge"}, files...)...)
	if status != exitClean || merged != whole {
		t.Errorf("merge: status %d\n--- merged\n%s--- unsharded\n%s%s", status, merged, whole, errOut)
	}
	_, plain, _ := simrun("run", "--seeds", "120", "--corpus", filepath.Join(dir, "none"), "--json", "--shard", "1/2")
	os.WriteFile(files[1], []byte(plain), 0o644)
	if status, _, errOut := simrun(append([]string{"merge"}, files...)...); status != exitUsage || !strings.Contains(errOut, "1 of 2 shards were run with --stats") {
		t.Errorf("a mix: status %d, %q", status, errOut)
	}
}

// TestMergeBadShards: each way a shard's output can be wrong is refused
// with its file and line and exit 2, never merged into a wrong total.
func TestMergeBadShards(t *testing.T) {
	summaryOf := func(runs, violations int, shard, campaign string) string {
		return fmt.Sprintf(`{"runs":%d,"violations":%d,"events":10,"internal":0,"corpusErrors":0,"corpusNotWritten":0,"interrupted":false,"shard":%q,"campaign":%q,"start":"0x1","seeds":10}`,
			runs, violations, shard, campaign)
	}
	summary := func(runs int, shard string) string {
		return summaryOf(runs, 0, shard, "--start 0x1 --seeds 10 (turnsim 0.1.0)")
	}
	failing := func(seed string) string {
		return `{"seed":"` + seed + `","events":5,"violations":[{"invariant":"retry-budget","message":"x"}],"invariant":"retry-budget"}` + "\n"
	}
	withViolations := func(runs, violations int, shard string) string {
		return summaryOf(runs, violations, shard, "--start 0x1 --seeds 10 (turnsim 0.1.0)")
	}
	for _, row := range []struct {
		why    string
		shards []string
		want   string
	}{
		{"a negative count", []string{summary(-100, "0/1")}, ":1: summary: a negative count"},
		{"a duplicate key", []string{`{"runs":5,"runs":7,"violations":0,"events":1,"corpusErrors":0,"interrupted":false}`}, `:1: line 1, column 11: duplicate key "runs"`},
		{"a line after the summary", []string{summary(5, "0/1") + "\n" + summary(5, "0/1")}, ":2: a line after the summary"},
		{"a seed twice", []string{failing("0x5") + failing("0x5") + withViolations(5, 2, "0/2"), summary(5, "1/2")}, ":2: seed 0x5 appears twice"},
		{"a shard past its count", []string{summary(5, "5/3")}, `shard "5/3": not i/n with 0 ≤ i < n`},
		{"shards of two campaigns (they once merged into a believable whole)", []string{summary(5, "0/2"),
			summaryOf(5, 0, "1/2", "--start 0x1 --seeds 10 --mutant retry-auth (turnsim 0.1.0)")},
			`shard 1/2 of another campaign than`},
		{"shards of one campaign line but another start (the message once printed two identical lines)", []string{summary(5, "0/2"),
			strings.Replace(summary(5, "1/2"), `"start":"0x1"`, `"start":"0x2"`, 1)},
			`its start is "0x2", `},
		{"a summary that names no campaign", []string{`{"runs":5,"violations":0,"events":1,"corpusErrors":0,"interrupted":false}`}, "its summary names no campaign"},
		{"runs edited past the campaign's seeds (1,000 of 10 once merged to 1,005)", []string{summary(5, "0/2"), summary(1000, "1/2")},
			"shard 1/2: summary: 1000 runs, but the shard's share of 10 seeds is 5"},
		{"no violation counted beside failing seeds", []string{failing("0x3") + failing("0x5") + summary(5, "0/2"), summary(5, "1/2")},
			"shard 0/2: summary: 0 violations, but its lines show 2"},
		{"a seed of shard 1 inside shard 0", []string{failing("0x2") + withViolations(5, 1, "0/2"), summary(5, "1/2")},
			"shard 0/2: seed 0x2 (line 1) is shard 1/2's, not this one's"},
		{"a seed outside the campaign", []string{failing("0x63") + withViolations(10, 1, "0/1")},
			"seed 0x63 (line 1) is not one of the campaign's (10 from 0x1)"},
		{"corpus lines in a shard that does not replay it", []string{summary(5, "0/2"), `{"corpusEntry":"c/x.json","error":"broken"}` + "\n" + summary(5, "1/2")},
			"shard 1/2: 1 corpus lines, but only shard 0 replays the corpus"},
		{"a shard stopped short by a blocked listener is short of its share, and says why", []string{summary(5, "0/2"),
			failing("0x2") + `{"runs":1,"violations":1,"events":10,"internal":0,"corpusErrors":0,"corpusNotWritten":0,"interrupted":false,"blocked":"mine","shard":"1/2","campaign":"--start 0x1 --seeds 10 (turnsim 0.1.0)","start":"0x1","seeds":10}`},
			"no error"},
		{"a summary key no run prints", []string{strings.Replace(summary(5, "0/1"), `"runs":5`, `"runs":5,"bonus":1`, 1)}, `:1: summary: bonus: unknown field`},
		{"a line over the limit", []string{`{"seed":"0x1","pad":"` + strings.Repeat("x", 400) + `"}` + "\n" + summary(5, "0/1")}, ":1: a line of more than 300 bytes is over the limit of 300 bytes (raise it with --max-line-bytes)"},
	} {
		dir := t.TempDir()
		var files []string
		for i, content := range row.shards {
			f := filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i))
			os.WriteFile(f, []byte(content+"\n"), 0o644)
			files = append(files, f)
		}
		code, out, errOut := simrun(append([]string{"merge", "--max-line-bytes", "300"}, files...)...)
		if row.want == "no error" {
			if code != exitViolation || !strings.Contains(lastLine(out), `"blocked":"mine"`) {
				t.Errorf("%s: exit %d, %q, want 1 and the merged summary to say it was blocked\n%s", row.why, code, errOut, out)
			}
			continue
		}
		if code != exitUsage || !strings.Contains(errOut, row.want) {
			t.Errorf("%s: exit %d, %q, want 2 and %q", row.why, code, errOut, row.want)
		}
	}
}

// TestRunRefusesWhatItIgnored: arguments run once ignored, running its
// default 10,000 seeds instead, are refused.
func TestRunRefusesWhatItIgnored(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-folder")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, row := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "extra"}, `unexpected argument "extra"`},
		{[]string{"run", "--duration", "-1s"}, "--duration -1s: must be positive"},
		{[]string{"run", "--determinism-sample", "2"}, "must be a share in [0,1]"},
		{[]string{"run", "--determinism-sample", "NaN"}, "must be a share in [0,1]"},
		{[]string{"run", "--corpus", file}, "not a folder"},
		{[]string{"shrink", "--seed", "1", "--invariant", "nope"}, "--invariant nope: no such invariant"},
	} {
		code, _, errOut := simrun(row.args...)
		if code != exitUsage || !strings.Contains(errOut, row.want) {
			t.Errorf("%v: exit %d, %q, want 2 and %q", row.args, code, errOut, row.want)
		}
	}
}
