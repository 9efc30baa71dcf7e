package simrun

import (
	"encoding/json"
	"github.com/google/go-cmp/cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/dshview"
)

// dshViewInstall is an install with DSH's view packages, or a skip.
func dshViewInstall(t *testing.T) string {
	t.Helper()
	dir := dshInstall(t)
	if err := dshview.Check(dir); err != nil {
		t.Skip(err)
	}
	return dir
}

// TestRunWithDSHsView: a campaign with --dsh-view is clean on the model,
// counts DSH's view code's recorded findings apart, prints each class's
// first seed with a reproduction line that keeps --dsh-view, and the
// line replays the finding.
func TestRunWithDSHsView(t *testing.T) {
	dir := dshViewInstall(t)
	status, out, errOut := simrun("run", "--dsh-view", "--dsh-loop", dir, "--seeds", "60", "--corpus", t.TempDir())
	if status != exitClean {
		t.Fatalf("run --dsh-view: status %d\n%s%s", status, out, errOut)
	}
	if !strings.Contains(out, "recorded findings about DSH's view code, apart: ") || !strings.Contains(out, "turn-error-hidden-by-retry in ") {
		t.Fatalf("the summary does not count the findings apart:\n%s", out)
	}
	// Said even where nothing differed: a run with --dsh-view reads
	// differently from one without.
	if !strings.Contains(out, "(DSH's view code: the logs of 60 runs derived and compared, 0 differing)") {
		t.Errorf("the summary does not say the logs were derived:\n%s", out)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  reproduce: simrun replay --seed ") && strings.Contains(l, "--dsh-view") {
			line = strings.TrimPrefix(l, "  reproduce: simrun ")
			break
		}
	}
	if line == "" {
		t.Fatalf("no reproduction line with --dsh-view:\n%s", out)
	}
	// The install is not the default one here: the line names it.
	args := strings.Fields(line)
	status, out, errOut = simrun(args...)
	if status != exitClean || !strings.Contains(out, "recorded finding about DSH's view code: ") {
		t.Errorf("simrun %s: status %d, no finding shown\n%s%s", strings.Join(args, " "), status, out, errOut)
	}
}

// TestCheckWithDSHsView: check --dsh-view derives a log with DSH's view
// code, says how much it compared (--json) and shows the recorded finding
// apart, not as a violation; an install without the view packages is bad
// usage, named.
func TestCheckWithDSHsView(t *testing.T) {
	dir := dshViewInstall(t)
	trace := filepath.Join(t.TempDir(), "exhausted.jsonl")
	if status, out, errOut := simrun("scenario", "--quiet", "--trace", trace, filepath.Join("..", "scenarios", "dshview", "turn-error-hidden-by-retry.json")); status != exitClean {
		t.Fatalf("scenario: %d\n%s%s", status, out, errOut)
	}
	status, out, errOut := simrun("check", "--dsh-view", "--dsh-loop", dir, "--json", trace)
	if status != exitClean {
		t.Fatalf("check --dsh-view: status %d\n%s%s", status, out, errOut)
	}
	var res checkResult
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &res); err != nil {
		t.Fatal(err)
	}
	if res.DSHView == nil || res.DSHView.Compared < 5 || res.DSHView.Nodes == 0 || len(res.ViewFindings) != 1 || res.ViewFindings[0].Class != dshview.TurnErrorHiddenByRetry {
		t.Errorf("check --dsh-view --json: %s", out)
	}
	// The summary object adds the files up.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var summary struct {
		DSHView viewTotals `json:"dshView"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &summary); err != nil {
		t.Fatal(err)
	}
	want := viewTotals{Logs: 1, Compared: res.DSHView.Compared, Nodes: res.DSHView.Nodes, Findings: []classCount{{Class: dshview.TurnErrorHiddenByRetry, Turns: 1}}}
	if diff := cmp.Diff(want, summary.DSHView); diff != "" {
		t.Errorf("check --json's summary (-want +got):\n%s", diff)
	}
	empty := t.TempDir()
	os.MkdirAll(filepath.Join(empty, "node_modules"), 0o755)
	if status, _, errOut := simrun("check", "--dsh-view", "--dsh-loop", empty, trace); status != exitUsage || !strings.Contains(errOut, empty) || !strings.Contains(errOut, "dsh-client-ui-conversation") {
		t.Errorf("check --dsh-view over an install without the view packages: status %d\n%s", status, errOut)
	}
}
