package simrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBudgetComparesPolicies: two policies on the same seeds; the one
// with more retries exhausts no more turns, and both reports print.
func TestBudgetComparesPolicies(t *testing.T) {
	dir := t.TempDir()
	env := filepath.Join(dir, "env.json")
	os.WriteFile(env, []byte(`{"failures":[{"code":"SERVER","status":503,"p":0.5}]}`), 0o644)
	one := filepath.Join(dir, "one.json")
	os.WriteFile(one, []byte(`{"mode":"normal","maxRetries":1,"backoff":{"initialDelayMs":10,"maxDelayMs":100,"jitterRatio":0}}`), 0o644)
	status, out, errOut := simrun("budget", "--policy", one, "--policy", "default", "--env", env, "--runs", "2000", "--json")
	if status != exitClean {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a report per policy:\n%s", out)
	}
	var reports [2]struct {
		Policy     string
		Turns      int
		Exhausted  int
		BoundsMs   []any
		Exhaustion float64
	}
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &reports[i]); err != nil {
			t.Fatal(err)
		}
	}
	if reports[0].Turns != 2000 || reports[1].Turns != 2000 || reports[1].Exhausted > reports[0].Exhausted {
		t.Errorf("reports %+v", reports)
	}
	// p^(n+1) with p = 0.5, n = 1 is 0.25; 2000 turns put it within ±0.03.
	if e := reports[0].Exhaustion; e < 0.22 || e > 0.28 {
		t.Errorf("maxRetries 1 at p 0.5 exhausted %.3f of turns, want about 0.25", e)
	}
	if status, _, errOut := simrun("budget", "--env", env); status != exitUsage || !strings.Contains(errOut, "--policy") {
		t.Errorf("no policy: status %d, %q", status, errOut)
	}
	os.WriteFile(env, []byte(`{"failures":[{"code":"SERVER","p":2}]}`), 0o644)
	if status, _, errOut := simrun("budget", "--policy", "default", "--env", env); status != exitUsage || !strings.Contains(errOut, "failures[0].p: must be in [0,1]") {
		t.Errorf("a bad environment: status %d, %q", status, errOut)
	}
}

// TestBudgetAssert: a bound the report keeps exits 0, one it breaks exits
// 1 naming the figure, a malformed one exits 2.
func TestBudgetAssert(t *testing.T) {
	dir := t.TempDir()
	env := filepath.Join(dir, "env.json")
	os.WriteFile(env, []byte(`{"failures":[{"code":"SERVER","status":503,"p":0.5}]}`), 0o644)
	args := []string{"budget", "--policy", "default", "--env", env, "--runs", "500"}
	// p = 0.5 and 5 retries exhaust 1/64 of turns: about 0.016.
	if status, _, errOut := simrun(append(args, "--assert", "exhaustion<0.05", "--assert", "violations<=0")...); status != exitClean {
		t.Errorf("bounds that hold: status %d\n%s", status, errOut)
	}
	status, _, errOut := simrun(append(args, "--assert", "exhaustion<0.001")...)
	if status != exitViolation || !strings.Contains(errOut, "assert exhaustion<0.001 FAILS for policy default: exhaustion = ") {
		t.Errorf("a bound that fails: status %d\n%s", status, errOut)
	}
	for _, bad := range []string{"exhaustion", "exhaust<1", "exhaustion<lots"} {
		if status, _, _ := simrun(append(args, "--assert", bad)...); status != exitUsage {
			t.Errorf("--assert %q: status %d, want 2", bad, status)
		}
	}
}

// TestBudgetTrace: one turn's log, as a violation's reproduction line
// asks for, reads back clean; --trace over many turns is refused.
func TestBudgetTrace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "turn.jsonl")
	if status, _, errOut := simrun("budget", "--policy", "default", "--seed", "0x2a", "--runs", "1", "--trace", out); status != exitClean {
		t.Fatalf("status %d: %s", status, errOut)
	}
	if status, text, _ := simrun("check", out); status != exitClean || !strings.Contains(text, "1 files, 0 violations, 0 errors") {
		t.Errorf("the trace checks with status %d:\n%s", status, text)
	}
	if status, _, errOut := simrun("budget", "--policy", "default", "--runs", "5", "--trace", out); status != exitUsage || !strings.Contains(errOut, "--runs 1") {
		t.Errorf("--trace over 5 turns: status %d, %q", status, errOut)
	}
}

// TestBudgetStrictInputs: a retryable code nothing can produce is warned
// about on stderr (it once passed silently), and --json writes no
// violations as [] (it once wrote null where the text said 0).
func TestBudgetStrictInputs(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "typo.json")
	os.WriteFile(policy, []byte(`{"mode":"normal","maxRetries":2,"retryableCodes":["SERVR"],"backoff":{"initialDelayMs":10,"maxDelayMs":100,"jitterRatio":0}}`), 0o644)
	status, out, errOut := simrun("budget", "--policy", policy, "--fail", "SERVER/503=0.2", "--runs", "20", "--json")
	if status != exitClean {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	if !strings.Contains(errOut, `retryableCodes lists "SERVR", which no provider sends and no failure of the environment has (its codes: SERVER)`) {
		t.Errorf("no warning about SERVR: %q", errOut)
	}
	if !strings.Contains(out, `"violations":[]`) || strings.Contains(out, "null") {
		t.Errorf("--json: %s", out)
	}
}

// TestBudgetPerTurnFiguresKept: per-turn environments report what they
// did before environments over time existed — the files are simrun
// budget --json of commit 4d18a55, byte for byte, on the same seeds.
func TestBudgetPerTurnFiguresKept(t *testing.T) {
	t.Chdir("..") // the module's root, where the files were made: a report names its policy file as given
	for _, c := range []struct{ env, policy string }{
		{"server-20pct", "default"},
		{"outage-20s", "default"},
		{"overflow-workload", "examples/budget/compaction-bundle.json"},
	} {
		want, err := os.ReadFile(filepath.Join("simrun", "testdata", "budget-per-turn", c.env+".json"))
		if err != nil {
			t.Fatal(err)
		}
		status, got, errOut := simrun("budget", "--policy", c.policy, "--env", "examples/budget/"+c.env+".json", "--runs", "3000", "--seed", "7", "--json")
		if status != exitClean {
			t.Fatalf("%s: status %d: %s", c.env, status, errOut)
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("%s: the report changed (-want +got):\n%s", c.env, diff)
		}
	}
}
