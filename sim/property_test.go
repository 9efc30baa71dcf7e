package sim

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
)

// A generated case is plain data that gopter can shrink field by field;
// scenario() turns it into a Scenario, and String() prints that scenario
// as a file, so a failure is reported as turnsim's own reproduction.

type outcomeSpec struct {
	Kind        int // text, tool call, max tokens, failure, hang
	Code        int // index into failureCodes
	AfterChunks int
	LatencyMs   int
	RetryAfter  int // ms; 0 for none
}

type actionSpec struct {
	Do        int // cancel, dispose, dispose-retry, followup, steer, inject
	Cause     int
	KeepInbox bool
	AtMs      int
	ByEvent   bool // place after an event instead of at a time
	AfterType int
	Nth       int
}

type caseSpec struct {
	Policy   int
	Order    int
	Overflow int // maxOverflowRetries; 3 means compaction not installed
	Pruner   bool
	Random   float64
	Outcomes []outcomeSpec
	Actions  []actionSpec
	Summary  bool // false: the summarizer fails
}

var failureCodes = []struct {
	code   string
	status int
}{{"SERVER", 503}, {"RATE_LIMIT", 429}, {"AUTH", 401}, {"CONTEXT_WINDOW_EXCEEDED", 400}, {"TIMEOUT", 0}, {"TRANSPORT", 0},
	{"EMPTY_RESPONSE", 0}, {"STREAM_CLOSED", 0}, {"INVALID_REQUEST", 400}, {"QUOTA", 429}, {"CUSTOM_FAILURE", 0}}

var afterTypes = []string{session.TypeTurnStart, session.TypeStepStart, session.TypeAssistantChunk, session.TypeLLMRetry,
	session.TypeLLMRetryStarted, session.TypeCompactionStart, session.TypeToolCall, session.TypeStepEnd, session.TypeInboxSpliced}

var listenerOrders = [][]string{
	{ListenerRetry, ListenerCompaction},
	{ListenerCompaction, ListenerRetry},
	{ListenerRetry, ListenerCompaction, ListenerAlwaysRetry},
	{ListenerCancelThenNext, ListenerRetry, ListenerCompaction},
	{ListenerThrow, ListenerRetry},
	{ListenerRetry, ListenerThrow},
}

func policies() []*loop.RetryPolicy {
	return []*loop.RetryPolicy{
		retry.DefaultPolicy(),
		nil,
		{Mode: loop.ModeNormal, MaxRetries: 2, RetryableCodes: []string{"SERVER", "RATE_LIMIT", "CONTEXT_WINDOW_EXCEEDED"}, InitialDelayMs: 25, MaxDelayMs: 50, JitterRatio: 0.5},
		{Mode: loop.ModeNormal, MaxRetries: 1, RetryableCodes: []string{"TRANSPORT", "TIMEOUT", "STREAM_CLOSED"}, InitialDelayMs: 10, MaxDelayMs: 1000, JitterRatio: 0},
		{Mode: loop.ModeAlways, InitialDelayMs: 1, MaxDelayMs: 4, JitterRatio: 0.1},
	}
}

func (c caseSpec) scenario() *Scenario {
	s := &Scenario{Name: "generated", Provider: "mock", Model: "mock-model", ContextWindow: 128000,
		Recovery: Recovery{RetryPolicy: policies()[c.Policy], ListenerOrder: listenerOrders[c.Order]}, Random: []float64{c.Random},
		StreamIdleTimeoutMs: 500, MaxEvents: 5000}
	if c.Overflow < 3 {
		cfg := compact.DefaultConfig()
		cfg.MaxOverflowRetries = c.Overflow
		if c.Pruner {
			cfg.Pruner = &compact.PrunerConfig{ThresholdChars: 200, HeadChars: 50, TailChars: 50}
		}
		s.Compaction = &cfg
	}
	long := "Earlier context that a summary can condense: " + resultOfSize("the premise of the task, restated at length", 600)
	s.Inputs = []Input{{Kind: "send", Text: long, Trigger: Trigger{Nth: 1}}}
	for i, o := range c.Outcomes {
		out := Outcome{LatencyMs: float64(o.LatencyMs)}
		switch o.Kind {
		case 0:
			out.Text = ptr(fmt.Sprintf("answer %d", i+1))
		case 1:
			out.ToolCalls = []ToolCallSpec{{Name: "bash", Arguments: "{}", Result: resultOfSize("output", 300), LatencyMs: float64(o.LatencyMs)}}
		case 2:
			out.MaxTokens = ptr("cut short")
		case 3:
			fc := failureCodes[o.Code]
			f := &session.LlmFailure{Code: fc.code, Message: "simulated " + fc.code}
			if fc.status != 0 {
				f.Status = ptr(fc.status)
			}
			if o.RetryAfter > 0 {
				f.ProviderRetryAfterMs = ptr(float64(o.RetryAfter))
			}
			out.Fail, out.AfterChunks = f, o.AfterChunks
		default:
			out.Hang = true
		}
		s.Requests = append(s.Requests, out)
	}
	if c.Summary {
		s.Summaries = []SummaryOutcome{{Text: ptr("condensed")}}
	} else {
		s.Summaries = []SummaryOutcome{{Fail: ptr("summary unavailable")}}
	}
	for _, a := range c.Actions {
		t := Trigger{AtMs: float64(a.AtMs), Nth: 1}
		if a.ByEvent {
			t = Trigger{After: afterTypes[a.AfterType], Nth: a.Nth}
		}
		switch a.Do {
		case 0:
			s.World = append(s.World, Action{Do: "cancel", Cause: session.Cause{Kind: causes[a.Cause]}, KeepInbox: a.KeepInbox, Trigger: t})
		case 1:
			s.World = append(s.World, Action{Do: "dispose", Trigger: t})
		case 2:
			s.World = append(s.World, Action{Do: "dispose-retry", Trigger: t})
		default:
			s.Inputs = append(s.Inputs, Input{Kind: inputKinds[a.Do-2], Text: fmt.Sprintf("late input %d", a.Do), Trigger: t})
		}
	}
	return s
}

// String is the case as a scenario file.
func (c caseSpec) String() string {
	b, err := c.scenario().MarshalJSON()
	if err != nil {
		return err.Error()
	}
	return "\n" + string(b)
}

func genCase() gopter.Gen {
	outcome := gen.Struct(reflect.TypeOf(outcomeSpec{}), map[string]gopter.Gen{
		"Kind": gen.IntRange(0, 4), "Code": gen.IntRange(0, len(failureCodes)-1), "AfterChunks": gen.IntRange(0, 4),
		"LatencyMs": gen.IntRange(0, 200), "RetryAfter": gen.OneConstOf(0, 0, 0, 20, 20000),
	})
	action := gen.Struct(reflect.TypeOf(actionSpec{}), map[string]gopter.Gen{
		"Do": gen.IntRange(0, 5), "Cause": gen.IntRange(0, len(causes)-1), "KeepInbox": gen.Bool(),
		"AtMs": gen.IntRange(0, 1500), "ByEvent": gen.Bool(), "AfterType": gen.IntRange(0, len(afterTypes)-1), "Nth": gen.IntRange(1, 3),
	})
	return gen.Struct(reflect.TypeOf(caseSpec{}), map[string]gopter.Gen{
		"Policy": gen.IntRange(0, len(policies())-1), "Order": gen.IntRange(0, len(listenerOrders)-1),
		"Overflow": gen.IntRange(0, 3), "Pruner": gen.Bool(), "Random": gen.Float64Range(0, 1),
		"Outcomes": gen.SliceOf(outcome), "Actions": gen.SliceOf(action), "Summary": gen.Bool(),
	})
}

// seed is the property's seed: SIM_SEED, or 1 so that 'go test' is
// deterministic.
func seed(t *testing.T) int64 {
	if v := os.Getenv("SIM_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 0, 64)
		if err != nil {
			t.Fatalf("SIM_SEED=%q: %v", v, err)
		}
		return n
	}
	return 1
}

// TestWorldProperties: for generated request outcomes, policies, listener
// orders and world actions, every run passes the oracle, ends, gives the
// same bytes twice, and its scenario file replays to the same bytes.
func TestWorldProperties(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(seed(t))
	params.MinSuccessfulTests = 400
	if testing.Short() {
		params.MinSuccessfulTests = 40
	}
	params.MaxSize = 8
	t.Logf("seed %d (rerun with SIM_SEED=%d)", params.Seed(), params.Seed())
	props := gopter.NewProperties(params)
	props.Property("runs are deterministic, end, and pass the oracle", prop.ForAll(func(c caseSpec) string {
		s := c.scenario()
		first := Run(s)
		if first.Stopped != "" {
			return "the run stopped: " + first.Stopped
		}
		if vs := oracle.Check(first.Events, oracle.Options{Strict: true, Facts: &first.Facts}); len(vs) > 0 {
			return "violation: " + vs[0].String()
		}
		a, b := logOf(first), logOf(Run(s))
		if !bytes.Equal(a, b) {
			return "two runs wrote different logs"
		}
		file, err := s.MarshalJSON()
		if err != nil {
			return err.Error()
		}
		replayed, err := ParseScenario(file)
		if err != nil {
			return "the scenario file does not parse: " + err.Error()
		}
		if !bytes.Equal(a, logOf(Run(replayed))) {
			return "the scenario file replays differently"
		}
		return ""
	}, genCase()))
	props.TestingRun(t)
}

func logOf(r *Result) []byte {
	var b bytes.Buffer
	session.WriteLog(&b, r.Header, r.Events)
	return b.Bytes()
}
