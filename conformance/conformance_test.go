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
- id: compaction-basic
  config:
    maxOverflowRetries: 2
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
	for _, bad := range []struct{ scenario, want string }{
		{`{"name":"x","retryPolicy":null}`, "cannot be configured in DSH"},
		{`{"name":"x","compaction":{"pruner":true}}`, "pruner"},
	} {
		s, _ := sim.ParseScenario([]byte(bad.scenario))
		if _, err := conformance.Overlay(s, "http://127.0.0.1:1", "/s"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v", bad.scenario, err)
		}
	}
}
