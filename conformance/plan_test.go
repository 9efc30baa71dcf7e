package conformance_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// TestSeedPlans: a seed's plan for DSH is the same every time, and every
// plan is one DSH can be held to: expressible, its landings certain.
func TestSeedPlans(t *testing.T) {
	seeds := uint64(200)
	if testing.Short() {
		seeds = 20
	}
	cancels := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		_, s, _ := conformance.SeedPlan(seed)
		_, again, _ := conformance.SeedPlan(seed)
		a, _ := s.MarshalJSON()
		b, _ := again.MarshalJSON()
		if !bytes.Equal(a, b) {
			t.Fatalf("seed %d: two different plans", seed)
		}
		if problems := append(conformance.Expressible(s), conformance.Uncertain(s)...); len(problems) > 0 {
			t.Errorf("seed %d: %v", seed, problems)
		}
		cancels += len(s.World)
	}
	if cancels == 0 {
		t.Errorf("no plan of %d kept a cancel", seeds)
	}
}

func TestOnTheWire(t *testing.T) {
	s, err := sim.ParseScenario([]byte(`{"name":"x","streamIdleTimeoutMs":2000,
		"retryPolicy":{"mode":"always","backoff":{"initialDelayMs":10,"maxDelayMs":100,"jitterRatio":0.5}},
		"listenerOrder":["compaction","retry"],
		"requests":[
			{"fail":{"code":"TIMEOUT","message":"stream idle timeout"},"afterChunks":1,"latencyMs":50},
			{"fail":{"code":"EMPTY_RESPONSE","message":"x"},"afterChunks":2},
			{"fail":{"code":"TRANSPORT","message":"reset"}},
			{"fail":{"code":"TRANSPORT","message":"reset"},"afterChunks":3},
			{"fail":{"code":"SERVER","message":"upstream 503","status":503},"afterChunks":2},
			{"fail":{"code":"RATE_LIMIT","message":"slow","status":429,"retryAfterMs":1500}},
			{"text":"late","latencyMs":1900}],
		"inputs":[{"send":"go"},{"followup":"turn 2","atMs":30000},{"inject":"ctx","atMs":5},{"steer":"s","atMs":30400}],
		"world":[{"do":"cancel","cause":"parent","atMs":31000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got, notes := conformance.OnTheWire(s)
	if p := got.RetryPolicy; p.JitterRatio != 0 || got.ListenerOrder[0] != sim.ListenerRetry {
		t.Errorf("policy %+v, listeners %v: want jitter 0, llm-retry outermost", p, got.ListenerOrder)
	}
	want := []string{
		`{"afterChunks":2,"hang":true,"latencyMs":50}`, // a stall past the watchdog; the first delta carries text
		`{"text":""}`, // an empty completion
		`{"fail":{"code":"TRANSPORT","message":"DeepSeek API request to http://127.0.0.1:1 failed"}}`,
		// Whole deltas: a text's block start and delta (its end would come with a next block).
		`{"fail":{"code":"TRANSPORT","message":"DeepSeek API stream from http://127.0.0.1:1 failed"},"afterChunks":2}`,
		`{"fail":{"code":"SERVER","message":"upstream 503","status":503}}`,                 // an HTTP status: no chunks
		`{"fail":{"code":"RATE_LIMIT","message":"slow","status":429,"retryAfterMs":2000}}`, // whole seconds
		`{"text":"late"}`, // a first token past the watchdog's margin
	}
	data, _ := got.MarshalJSON()
	var out struct {
		Requests []json.RawMessage `json:"requests"`
		Inputs   []json.RawMessage `json:"inputs"`
		World    []json.RawMessage `json:"world"`
	}
	json.Unmarshal(data, &out)
	var gotReqs []string
	for _, r := range out.Requests {
		var b bytes.Buffer
		json.Compact(&b, r)
		gotReqs = append(gotReqs, b.String())
	}
	if diff := cmp.Diff(want, gotReqs); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	wantInputs := []sim.Trigger{{Nth: 1}, {After: session.TypeTurnEnd, Nth: 1, PlusMs: 300}, {After: session.TypeTurnStart, Nth: 2, PlusMs: 400}}
	var gotInputs []sim.Trigger
	for _, in := range got.Inputs {
		gotInputs = append(gotInputs, in.Trigger)
	}
	if diff := cmp.Diff(wantInputs, gotInputs); diff != "" {
		t.Errorf("input triggers (-want +got), the inject dropped:\n%s", diff)
	}
	if a := got.World[0]; a.Cause.Kind != session.CauseUser || !a.KeepInbox || a.After != session.TypeTurnStart || a.Nth != 2 || a.PlusMs != 1000 {
		t.Errorf("the cancel is %+v: want the web host's, 1 s into turn 2", a)
	}
	if len(notes) == 0 {
		t.Errorf("no note says the inject was dropped")
	}
}

// TestBashPrintsTheResult: a workload tool call becomes a bash command
// that prints exactly the scripted result.
func TestBashPrintsTheResult(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	var call sim.ToolCallSpec
	for seed := uint64(1); call.Name == ""; seed++ {
		_, s := faults.Draw(seed, faults.Overrides{})
		got, _ := conformance.OnTheWire(s)
		for _, r := range got.Requests {
			if len(r.ToolCalls) > 0 && r.ToolCalls[0].LatencyMs > 0 {
				call = r.ToolCalls[0]
				break
			}
		}
	}
	var args struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil || call.Name != "bash" {
		t.Fatalf("the call is %s %s", call.Name, call.Arguments)
	}
	printed, err := exec.Command(bash, "-c", args.Command).Output()
	if err != nil {
		t.Fatalf("%s: %v", args.Command, err)
	}
	if string(printed) != call.Result {
		t.Errorf("%s printed %d characters, not the %d scripted", args.Command, len(printed), len(call.Result))
	}
}
