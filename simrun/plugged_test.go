package simrun

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/sim"
)

// withPluggedListener runs a test as a simrun main that registered the
// silent listener of the zoo (a user's listener, to simrun).
func withPluggedListener(t *testing.T) sim.Listener {
	m, ok := mutants.Find("listener-wait-ignores-cancel")
	if !ok {
		t.Fatal("no mutant listener-wait-ignores-cancel")
	}
	l := m.Options.Listeners[0]
	plugged = []sim.Listener{l}
	t.Cleanup(func() { plugged = nil })
	return l
}

// TestPluggedListenerRunsLikeGoTest: 'simrun run' in a main with a
// listener registered prints, for the seed go test would report, the
// shrunk plan simtest.Check prints (both are the campaign's), and its
// corpus entry replays with 'simrun replay' there — and nowhere the
// listener is not registered, which says so by name.
func TestPluggedListenerRunsLikeGoTest(t *testing.T) {
	l := withPluggedListener(t)
	c := campaign.Config{Sim: sim.Options{Listeners: []sim.Listener{l}}}
	var first *campaign.Result
	for seed := uint64(1); seed <= 200 && first == nil; seed++ {
		if r := c.One(seed); len(r.Violations) > 0 {
			first = r
		}
	}
	if first == nil {
		t.Fatal("the listener's bug was not found in 200 seeds")
	}
	dir := t.TempDir()
	status, out, errOut := simrun("run", "--seed", first.Seed, "--corpus", dir)
	if status != exitViolation {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	m := regexp.MustCompile(`(?s)  shrunk plan \(\d+ lines, \d+ shrink runs\):\n(.*?)\n  the shrunk plan gives`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no shrunk plan in:\n%s", out)
	}
	var printed []string
	for _, line := range strings.Split(m[1], "\n") {
		printed = append(printed, strings.TrimPrefix(line, "    "))
	}
	// The plan's listener order comes first, as the campaign's result has it.
	want := append([]string{"listeners: " + strings.Join(first.Listeners, ", ")}, first.Plan...)
	if diff := cmp.Diff(want, printed); diff != "" {
		t.Errorf("simrun run's shrunk plan differs from the campaign's (-go test +simrun):\n%s", diff)
	}
	if !strings.Contains(out, "simrun replay --seed "+first.Seed+" --listeners server-retry (with server-retry registered: a main calling simrun.Main)") {
		t.Errorf("the reproduction lines do not say the listener must be registered:\n%s", out)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(entries) != 1 {
		t.Fatalf("%d corpus entries: %v", len(entries), entries)
	}
	if status, replayed, _ := simrun("replay", entries[0]); status != exitViolation || !strings.Contains(replayed, "cancel-takes-effect-at-once") {
		t.Errorf("replay in the main that registered the listener: status %d\n%s", status, replayed)
	}
	// The shrunk plan as a scenario file, replayed by 'simrun scenario'.
	scenario := filepath.Join(dir, "case.json")
	if status, out, errOut := simrun("shrink", entries[0], "--out", scenario); status != exitClean {
		t.Fatalf("shrink --out: status %d\n%s%s", status, out, errOut)
	}
	if status, out, _ := simrun("scenario", scenario); status != exitViolation || !strings.Contains(out, "cancel-takes-effect-at-once") {
		t.Errorf("scenario in the main that registered the listener: status %d\n%s", status, out)
	}
	plugged = nil
	// The seed's line, in a simrun without the listener: refused, where
	// it once replayed another draw and passed.
	if status, _, errOut := simrun("replay", "--seed", first.Seed, "--listeners", "server-retry"); status != exitUsage ||
		!strings.Contains(errOut, `--listeners: "server-retry" is not registered in this simrun`) {
		t.Errorf("replay --seed --listeners without the listener: status %d, %q", status, errOut)
	}
	unknown := regexp.MustCompile(`scenario\.listenerOrder\[\d\]: unknown listener "server-retry" \(built in: .*; plugged in: none\)`)
	if status, _, errOut := simrun("replay", entries[0]); status != exitUsage || !unknown.MatchString(errOut) {
		t.Errorf("replay without the listener: status %d, %q", status, errOut)
	}
}
