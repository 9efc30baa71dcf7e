package conformance_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

func TestSkeleton(t *testing.T) {
	_, events, err := session.ReadFile(filepath.Join("..", "examples", "logs", "exhausted-server.jsonl"), session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key := `["normal",2,["SERVER"],25,50,0]`
	want := []string{
		`inbox next-turn +"hello"`,
		"turn/start 1",
		"inbox next-turn claim 1",
		"step/start 1.1",
		`user/message "hello"`,
		`finish error SERVER status 503 "upstream 503"`,
		"llm/retry 1 max 2 normal " + key + " delay 25 SERVER",
		"llm/retry-started 1",
		`finish error SERVER status 503 "upstream 503"`,
		"llm/retry 2 max 2 normal " + key + " delay 50 SERVER",
		"llm/retry-started 2",
		`finish error SERVER status 503 "upstream 503"`,
		"step/end 1.1",
		`turn/end error SERVER status 503 "upstream 503"`,
	}
	if diff := cmp.Diff(want, conformance.Skeleton(events, nil)); diff != "" {
		t.Errorf("skeleton (-want +got):\n%s", diff)
	}
}

// TestSkeletonTellsPoliciesApart: the same failures under budgets 1 and 2
// have different skeletons; the fake provider's address does not matter.
func TestSkeletonTellsPoliciesApart(t *testing.T) {
	run := func(maxRetries, port string) []string {
		s, err := sim.ParseScenario([]byte(`{"name":"x","retryPolicy":{"maxRetries":` + maxRetries + `,"retryableCodes":["TRANSPORT"],"backoff":{"initialDelayMs":10,"maxDelayMs":10,"jitterRatio":0}},
			"requests":[{"fail":{"code":"TRANSPORT","message":"DeepSeek API request to http://127.0.0.1:` + port + ` failed"}},
			            {"fail":{"code":"TRANSPORT","message":"DeepSeek API request to http://127.0.0.1:` + port + ` failed"}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		return conformance.Skeleton(sim.Run(s).Events, nil)
	}
	if cmp.Equal(run("1", "1000"), run("2", "1000")) {
		t.Errorf("budgets 1 and 2 give the same skeleton")
	}
	if diff := cmp.Diff(run("1", "1000"), run("1", "2000")); diff != "" {
		t.Errorf("the provider's port changes the skeleton:\n%s", diff)
	}
}

func TestOverlay(t *testing.T) {
	s, err := sim.ParseScenario([]byte(`{"name":"x","streamIdleTimeoutMs":500,"compaction":{"maxOverflowRetries":2},
		"retryPolicy":{"mode":"normal","maxRetries":2,"retryableCodes":["SERVER","RATE_LIMIT"],"backoff":{"initialDelayMs":25,"maxDelayMs":50,"jitterRatio":0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := conformance.Overlay(s, "http://127.0.0.1:4000", "/tmp/stub.mjs")
	if err != nil {
		t.Fatal(err)
	}
	want := `- id: llm-deepseek
  config:
    baseURL: http://127.0.0.1:4000
    thinking: disabled
    streamIdleTimeoutMs: 500
    retryPolicy:
      mode: normal
      maxRetries: 2
      retryableCodes: [SERVER, RATE_LIMIT]
      backoff: {initialDelayMs: 25, maxDelayMs: 50, jitterRatio: 0}
- id: session-title-llm
  disabled: true
- id: session-persistence-jsonl
  config:
    root: !!js dshHomePath('sessions')
    compression: none
- id: hmr
  disabled: true
- insert:
    - id: hmr-stub
      name: "/tmp/stub.mjs"
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("overlay (-want +got):\n%s", diff)
	}
	s, _ = sim.ParseScenario([]byte(`{"name":"x","retryPolicy":null}`))
	if _, err := conformance.Overlay(s, "http://127.0.0.1:1", "/s"); err == nil || !strings.Contains(err.Error(), "cannot be configured in DSH") {
		t.Errorf("a route without a policy: %v", err)
	}
}

// standardPreset is the shape of DSH 0.1.0-rc.8's standard preset around
// its compaction group.
const standardPreset = `- id: persona
  name: x

- id: compaction
  name: cordis:group
  group: true
  isolate:
    compaction: true
    toolResultPruner: true
  config:
    - id: compaction-basic
      name: '@deepseek-ai/dsh-compaction-basic'

    - id: tool-result-pruner
      name: '@deepseek-ai/dsh-compaction-tool-result-pruner'

# ── delegation and workflows ──
- id: delegation
`

func TestPreset(t *testing.T) {
	for _, row := range []struct {
		why, compaction string
		want            []string // substrings, in order
		absent          []string
	}{
		{"the scenario's budget and summary cap, no pruner unless asked", `{"maxOverflowRetries":0,"maxTokens":512}`,
			[]string{"- id: persona", "maxOverflowRetries: 0\n        maxTokens: 512", "id: command-compact", "# ── delegation"},
			[]string{"tool-result-pruner"}},
		{"the pruner with its settings", `{"pruner":{"thresholdChars":100,"headChars":20,"tailChars":10}}`,
			[]string{"maxOverflowRetries: 1", "id: tool-result-pruner", "thresholdChars: 100\n        headChars: 20\n        tailChars: 10"}, nil},
		{"no compaction at all", `false`, []string{"- id: persona", "# ── delegation"}, []string{"compaction"}},
	} {
		s, err := sim.ParseScenario([]byte(`{"name":"x","compaction":` + row.compaction + `}`))
		if err != nil {
			t.Fatal(err)
		}
		got, err := conformance.Preset(s, standardPreset)
		if err != nil {
			t.Fatalf("%s: %v", row.why, err)
		}
		at := 0
		for _, w := range row.want {
			i := strings.Index(got[at:], w)
			if i < 0 {
				t.Errorf("%s: %q missing (or out of order) in:\n%s", row.why, w, got)
				break
			}
			at += i + len(w)
		}
		for _, a := range row.absent {
			if strings.Contains(got, a) {
				t.Errorf("%s: %q present in:\n%s", row.why, a, got)
			}
		}
	}
	if _, err := conformance.Preset(&sim.Scenario{}, "- id: persona\n"); err == nil {
		t.Errorf("a preset without the compaction group was accepted")
	}
}
