package conformance_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/sim"
)

// TestSkeletonPlacesActions: a cancel inside a backoff wait is a line of
// its own between the retry record and the step's end, on the model's
// side as the driver would place it on DSH's.
func TestSkeletonPlacesActions(t *testing.T) {
	s, err := sim.ParseScenario([]byte(`{"name":"x",
		"retryPolicy":{"maxRetries":2,"retryableCodes":["SERVER"],"backoff":{"initialDelayMs":2000,"maxDelayMs":2000,"jitterRatio":0}},
		"requests":[{"fail":{"code":"SERVER","message":"busy","status":500}}],
		"inputs":[{"send":"go"},{"steer":"and quickly","after":"llm/retry","plusMs":500}],
		"world":[{"do":"cancel","keepInbox":true,"after":"llm/retry","plusMs":1000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	side, _ := conformance.ModelSide(s, "/work", sim.Options{})
	want := []string{
		`inbox next-turn +"go"`,
		"turn/start 1",
		"inbox next-turn claim 1",
		"step/start 1.1",
		`user/message "go"`,
		"user/message runtime-context",
		`finish error SERVER status 500 "busy"`,
		`llm/retry 1 max 2 normal ["normal",2,["SERVER"],2000,2000,0] delay 2000 SERVER`,
		`inbox next-step +"and quickly"`,
		"» cancel user keepInbox",
		"step/end 1.1",
		"turn/end aborted user",
		`request 1: user "go", user runtime-context`,
		"requests: 1 conversation, 0 summary",
	}
	if diff := cmp.Diff(want, side.Lines()); diff != "" {
		t.Errorf("skeleton (-want +got):\n%s", diff)
	}
}

// TestRequestTagsAgree: a request as the fake provider receives it and the
// same request as the model's log records it have the same tags.
func TestRequestTagsAgree(t *testing.T) {
	s, err := sim.ParseScenario([]byte(`{"name":"x","requests":[
		{"toolCalls":[{"name":"bash","arguments":"{}","result":"alpha\n"}]},{"text":"done"}],
		"inputs":[{"send":"Run the marker command, then answer at some length."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	side, _ := conformance.ModelSide(s, "/work", sim.Options{})
	wire := json.RawMessage(`{"messages":[{"role":"system","content":"You are…"},
		{"role":"user","content":"Run the marker command, then answer at some length."},
		{"role":"user","content":"Current runtime context. This snapshot…"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1_1","type":"function","function":{"name":"bash","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"call_1_1","content":"alpha\n"}]}`)
	got, err := conformance.WireRequestTags(wire)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(side.Requests[1], got); diff != "" {
		t.Errorf("(-model +wire):\n%s", diff)
	}
	if _, err := conformance.WireRequestTags(json.RawMessage(`[1,2]`)); err == nil {
		t.Errorf("a body that is not a request was read")
	}
}

func TestExpressible(t *testing.T) {
	for _, row := range []struct {
		why, scenario string
		fields        []string // the fields named, in order; none: expressible
	}{
		{"a scenario of the wire's and the web API's vocabulary",
			`{"name":"x","retryPolicy":{"backoff":{"initialDelayMs":10,"maxDelayMs":10,"jitterRatio":0}},
			  "requests":[{"fail":{"code":"TRANSPORT"},"afterChunks":1},{"fail":{"code":"HTTP_418"}},{"fail":{"code":"RATE_LIMIT","retryAfterMs":2000}}],
			  "inputs":[{"send":"a"},{"followup":"b","atMs":5},{"steer":"c","after":"llm/retry"}],
			  "world":[{"do":"cancel","keepInbox":true,"atMs":9}]}`, nil},
		{"no retry policy cannot be configured", `{"name":"x","retryPolicy":null}`, []string{"retryPolicy"}},
		{"jitter is Math.random in DSH", `{"name":"x"}`, []string{"retryPolicy.backoff.jitterRatio"}},
		{"the web API has neither inject nor disposal, and cancels with user and keepInbox only",
			`{"name":"x","retryPolicy":{"backoff":{"initialDelayMs":10,"maxDelayMs":10,"jitterRatio":0}},
			  "inputs":[{"send":"a"},{"inject":"b","atMs":1}],
			  "world":[{"do":"dispose","atMs":1},{"do":"cancel","keepInbox":true,"cause":"parent","atMs":2},{"do":"cancel","atMs":3}]}`,
			[]string{"inputs[1].inject", "world[0].do", "world[1].cause", "world[2].keepInbox"}},
		{"codes, chunks and Retry-After beyond the wire",
			`{"name":"x","retryPolicy":{"backoff":{"initialDelayMs":10,"maxDelayMs":10,"jitterRatio":0}},
			  "requests":[{"fail":{"code":"MAINTENANCE"}},{"fail":{"code":"SERVER"},"afterChunks":2},{"fail":{"code":"RATE_LIMIT","retryAfterMs":1500}},
			              {"fail":{"code":"SERVER"},"listenerThrows":true}],
			  "listenerOrder":["retry","compaction","always-retry"]}`,
			[]string{"listenerOrder[2]", "requests[0].fail.code", "requests[1].afterChunks", "requests[2].fail.retryAfterMs", "requests[3].listenerThrows"}},
		{"what the provider cannot see",
			`{"name":"x","retryPolicy":{"backoff":{"initialDelayMs":10,"maxDelayMs":10,"jitterRatio":0}},"adapter":false,"enforceContextWindow":true,
			  "outages":[{"fromMs":0,"toMs":5,"fail":{"code":"SERVER"}}],"compaction":{"pruner":true}}`,
			[]string{"adapter", "outages", "enforceContextWindow"}},
		{"a plug-in listener, and actions placed inside a listener's wait, have no counterpart in DSH",
			`{"name":"x","retryPolicy":{"backoff":{"initialDelayMs":10,"maxDelayMs":10,"jitterRatio":0}},
			  "listenerOrder":["my-retry","retry"],
			  "inputs":[{"send":"a"},{"steer":"b","after":"listener-wait"}],
			  "world":[{"do":"cancel","keepInbox":true,"after":"listener-wait","plusMs":20}]}`,
			[]string{"listenerOrder[0]", "inputs[1].after", "world[0].after"}},
		{"a held text stream cut after its block-start",
			`{"name":"x","retryPolicy":{"backoff":{"initialDelayMs":10,"maxDelayMs":10,"jitterRatio":0}},
			  "requests":[{"hang":true,"afterChunks":1},{"hang":true,"afterChunks":2},{"fail":{"code":"TRANSPORT"},"afterChunks":1}]}`,
			[]string{"requests[0].afterChunks"}},
	} {
		s, err := sim.ParseScenario([]byte(row.scenario))
		if err != nil {
			t.Fatalf("%s: %v", row.why, err)
		}
		var got []string
		for _, e := range conformance.Expressible(s) {
			got = append(got, strings.SplitN(e.Error(), ":", 2)[0])
		}
		if diff := cmp.Diff(row.fields, got); diff != "" {
			t.Errorf("%s: fields named (-want +got):\n%s", row.why, diff)
		}
	}
}

func TestUncertain(t *testing.T) {
	for _, row := range []struct {
		why, world string
		fields     []string
	}{
		{"inside a two-second wait, 600 ms in", `{"do":"cancel","keepInbox":true,"after":"llm/retry","plusMs":600}`, nil},
		{"right after the step opens: DSH goes on at once", `{"do":"cancel","keepInbox":true,"after":"step/start"}`, []string{"world[0]"}},
		{"100 ms before the wait ends", `{"do":"cancel","keepInbox":true,"after":"llm/retry","plusMs":1900}`, []string{"world[0]"}},
		{"a timed cancel 300 ms into the wait", `{"do":"cancel","keepInbox":true,"atMs":1300}`, nil},
	} {
		s, err := sim.ParseScenario([]byte(`{"name":"x",
			"retryPolicy":{"maxRetries":2,"retryableCodes":["SERVER"],"backoff":{"initialDelayMs":2000,"maxDelayMs":2000,"jitterRatio":0}},
			"requests":[{"fail":{"code":"SERVER","message":"busy","status":500},"latencyMs":1000}],"world":[` + row.world + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range conformance.Uncertain(s) {
			got = append(got, strings.SplitN(e.Error(), ":", 2)[0])
		}
		if diff := cmp.Diff(row.fields, got); diff != "" {
			t.Errorf("%s: fields named (-want +got):\n%s", row.why, diff)
		}
	}
}

func TestLineDiff(t *testing.T) {
	long := strings.Repeat("x", 300)
	dsh := []string{"a", "b", "c", "d " + long, "e", "f", "g", "h"}
	model := []string{"a", "b", "c", "d " + long + "!", "e", "f", "g", "h", "i"}
	want := "  … 1 identical lines\n  b\n  c\n- d " + long + "\n+ d " + long + "!\n  e\n  f\n  g\n  h\n+ i\n"
	if diff := cmp.Diff(want, conformance.LineDiff(dsh, model, 2)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if d := conformance.LineDiff(dsh, dsh, 2); d != "" {
		t.Errorf("equal skeletons gave %q", d)
	}
}
