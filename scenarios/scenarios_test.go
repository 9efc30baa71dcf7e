package scenarios

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files (read their diff first)")

// scenarioFiles are the scenarios here and the conformance scenarios
// (ordinary scenarios that 'make conformance' also runs against DSH).
func scenarioFiles(t *testing.T) []string {
	files, err := filepath.Glob("*.json")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob(filepath.Join("conformance", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	if len(files) < 25+12 {
		t.Fatalf("%d scenario files, want at least 25", len(files))
	}
	return files
}

// TestGoldens runs every scenario and compares its v1 log and its view with
// the golden files; each run must also pass the oracle under Strict and
// give the same bytes twice.
func TestGoldens(t *testing.T) {
	for _, file := range scenarioFiles(t) {
		name := strings.ReplaceAll(strings.TrimSuffix(file, ".json"), string(filepath.Separator), "-")
		t.Run(name, func(t *testing.T) {
			s, err := sim.LoadScenario(file)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != name {
				t.Errorf("scenario name %q does not match its file %s", s.Name, file)
			}
			res := sim.Run(s)
			if res.Stopped != "" {
				t.Errorf("the run stopped early: %s", res.Stopped)
			}
			for _, v := range oracle.Check(res.Events, oracle.Options{Strict: true, Facts: &res.Facts}) {
				t.Errorf("violation: %s", v)
			}
			log := logBytes(t, res)
			if again := logBytes(t, sim.Run(s)); !bytes.Equal(log, again) {
				t.Errorf("two runs of the same scenario wrote different logs:\n%s", cmp.Diff(string(log), string(again)))
			}
			golden(t, filepath.Join("testdata", s.Name+".log.jsonl"), log)
			golden(t, filepath.Join("testdata", s.Name+".view.txt"), []byte(describe(res)))
			checkDelays(t, s, res.Events)
		})
	}
}

func logBytes(t *testing.T, res *sim.Result) []byte {
	var b bytes.Buffer
	if err := session.WriteLog(&b, res.Header, res.Events); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run 'go test ./scenarios -update' to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// describe is the view golden: the Web nodes, the requests the model
// received (with the seqs of the messages they carried), the statuses and
// the warnings of a run.
func describe(res *sim.Result) string {
	var b strings.Builder
	nodes := view.Derive(res.Events)
	b.WriteString("nodes:\n")
	for _, n := range nodes.ModelRetries {
		var states []string
		for _, a := range n.Attempts {
			states = append(states, string(a.State))
		}
		fmt.Fprintf(&b, "  model-retry seq %d turn %d step %d: %s [%s]\n", n.Seq, n.Turn, n.Step, n.Label(), strings.Join(states, ", "))
	}
	for _, n := range nodes.TurnErrors {
		fmt.Fprintf(&b, "  turn-error seq %d turn %d step %d: %s\n", n.Seq, n.Turn, n.Step, n.Text())
	}
	b.WriteString("requests:\n")
	for i, r := range res.Requests {
		fmt.Fprintf(&b, "  %d: at %vms turn %d step %d attempt %d to %s, messages %v\n", i+1, r.TimeMs, r.Turn, r.Step, r.Attempt, r.Provider, r.Messages)
	}
	fmt.Fprintf(&b, "summaries: %d\n", res.Summaries)
	var statuses []string
	for _, s := range res.Statuses {
		statuses = append(statuses, string(s))
	}
	fmt.Fprintf(&b, "statuses: %s\n", strings.Join(statuses, ", "))
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// checkDelays checks every llm/retry's delayMs against DSH's formula
// (docs/dsh.md#retry-delay), computed here from that text, not from
// loop/retry: the provider's Retry-After when within the cap, else the
// formula with the scenario's next random sample. It also checks that the
// next attempt waited delayMs of virtual time (log times are whole
// milliseconds).
func checkDelays(t *testing.T, s *sim.Scenario, events []session.Event) {
	sample := 0
	for i := range events {
		r, ok := events[i].Data.(*session.LLMRetry)
		if !ok {
			continue
		}
		p := s.RetryPolicy
		var want float64
		if ra := r.Failure.ProviderRetryAfterMs; ra != nil && *ra <= p.MaxDelayMs {
			want = *ra
		} else {
			random := s.Random[sample%len(s.Random)]
			sample++
			want = specDelay(p, r.Retry, random)
		}
		if r.DelayMs != want {
			t.Errorf("seq %d: delayMs %v, DSH's delay formula gives %v", events[i].Seq, r.DelayMs, want)
		}
		for j := i + 1; j < len(events); j++ {
			if st, ok := events[j].Data.(*session.LLMRetryStarted); ok && st.RetryID == r.RetryID && st.Retry == r.Retry {
				waited := float64(events[j].Time - events[i].Time)
				if math.Abs(waited-r.DelayMs) >= 1 {
					t.Errorf("seq %d: retry %d started %vms after its llm/retry, want %vms", events[j].Seq, r.Retry, waited, r.DelayMs)
				}
			}
		}
	}
}

// specDelay is docs/dsh.md#retry-delay, transcribed: exponent =
// min(n−1, 1024); exponential = min(initial × 2^exponent, max); jitter =
// (1 − ratio) + (2 × ratio × r); delay = min(exponential × jitter, max).
func specDelay(p *loop.RetryPolicy, n int, r float64) float64 {
	exponent := math.Min(float64(n-1), 1024)
	exponential := math.Min(float64(p.InitialDelayMs*math.Pow(2, exponent)), p.MaxDelayMs)
	jitter := float64(1-p.JitterRatio) + float64(float64(2*p.JitterRatio)*r)
	return math.Min(float64(exponential*jitter), p.MaxDelayMs)
}

// TestListenerOrderIndependence: with DSH's default retryable codes (or in
// always mode), llm-retry and compaction log the same events whichever is
// registered first (docs/dsh.md#listener-order). Checked on every scenario
// that has exactly those two listeners.
func TestListenerOrderIndependence(t *testing.T) {
	checked := 0
	for _, file := range scenarioFiles(t) {
		s, err := sim.LoadScenario(file)
		if err != nil {
			t.Fatal(err)
		}
		p := s.RetryPolicy
		pair := len(s.ListenerOrder) == 2 && slices.Contains(s.ListenerOrder, sim.ListenerRetry) && slices.Contains(s.ListenerOrder, sim.ListenerCompaction)
		if !pair || s.Compaction == nil || p == nil ||
			(p.Mode == loop.ModeNormal && slices.Contains(p.RetryableCodes, "CONTEXT_WINDOW_EXCEEDED")) {
			continue
		}
		checked++
		first := logBytes(t, sim.Run(s))
		reversed := *s
		reversed.ListenerOrder = []string{s.ListenerOrder[1], s.ListenerOrder[0]}
		if diff := cmp.Diff(string(first), string(logBytes(t, sim.Run(&reversed)))); diff != "" {
			t.Errorf("%s: the log depends on the listener order (-%v +%v):\n%s", file, s.ListenerOrder, reversed.ListenerOrder, diff)
		}
	}
	if checked < 10 {
		t.Errorf("only %d scenarios checked", checked)
	}
}
