package dshloop

import (
	"errors"
	"fmt"
	"slices"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/serve"
	"github.com/turnsim/turnsim/sim"
)

// Plan is a scenario as the driver enacts it (driver.mjs): the provider's
// answers on the wire, the tools' results by call id, the inputs and world
// actions with the points they land at, the listeners and their settings,
// the seed of ids and the jitter samples.
type Plan struct {
	ID                  int64               `json:"id"`
	Name                string              `json:"name"`
	Seed                uint64              `json:"seed"`
	Provider            string              `json:"provider"`
	Model               string              `json:"model"`
	ContextWindow       int                 `json:"contextWindow"`
	StreamIdleTimeoutMs float64             `json:"streamIdleTimeoutMs,omitempty"`
	RetryPolicy         map[string]any      `json:"retryPolicy,omitempty"`
	Compaction          map[string]any      `json:"compaction,omitempty"`
	Pruner              map[string]int      `json:"pruner,omitempty"`
	ListenerOrder       []string            `json:"listenerOrder"`
	Random              []float64           `json:"random"`
	Answers             []serve.Answer      `json:"answers"`
	DefaultAnswer       serve.Answer        `json:"defaultAnswer"`
	Summaries           []serve.Answer      `json:"summaries"`
	Outages             []PlanOutage        `json:"outages,omitempty"`
	Tools               map[string]PlanTool `json:"tools,omitempty"`
	Inputs              []PlanInput         `json:"inputs"`
	World               []PlanAction        `json:"world"`
	MaxEvents           int                 `json:"maxEvents"`
}

// PlanOutage is a window of virtual time in which every conversation
// request gets Answer, and takes none of the list.
type PlanOutage struct {
	FromMs float64      `json:"fromMs"`
	ToMs   float64      `json:"toMs"`
	Answer serve.Answer `json:"answer"`
}

// PlanTool is a scripted tool's answer to one call.
type PlanTool struct {
	Name      string  `json:"name"`
	Result    string  `json:"result"`
	IsError   bool    `json:"isError,omitempty"`
	LatencyMs float64 `json:"latencyMs,omitempty"`
}

// PlanTrigger is where an input or a world action lands: after the nth
// event of a type (or the nth call of the adapter, "adapter-call"), or at
// a virtual time; PlusMs later.
type PlanTrigger struct {
	After  string  `json:"after,omitempty"`
	Nth    int     `json:"nth,omitempty"`
	AtMs   float64 `json:"atMs,omitempty"`
	PlusMs float64 `json:"plusMs,omitempty"`
}

// PlanInput is a message for the agent's inbox.
type PlanInput struct {
	Kind    string      `json:"kind"`
	Text    string      `json:"text"`
	Trigger PlanTrigger `json:"trigger"`
}

// PlanAction is something the world does to the agent.
type PlanAction struct {
	Do        string        `json:"do"`
	Cause     session.Cause `json:"cause"`
	KeepInbox bool          `json:"keepInbox,omitempty"`
	Trigger   PlanTrigger   `json:"trigger"`
}

// jitterSamples is how many of a seeded scenario's jitter draws a plan
// carries at least: llm-retry draws one a retry, and a run retries at
// most once per three events of its bound (llm/retry, llm/retry-started,
// the attempt's finish).
const jitterSamples = 64

// FromScenario is the plan that enacts s on DSH's own loop, or the fields
// of s that DSH's composition cannot be asked for, each named: a listener
// of one's own or one of turnsim's test listeners (DSH's composition has
// llm-retry and compaction-basic), a failure code with no wire form, a
// listener that throws on cue, natural overflow (DSH counts its own
// tokens), a route without an adapter.
func FromScenario(s *sim.Scenario) (*Plan, error) {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if s.NoAdapter {
		bad("adapter", "DSH's composition always registers the DeepSeek adapter")
	}
	if s.EnforceContextWindow {
		bad("enforceContextWindow", "DSH counts its own tokens: script the overflow in requests")
	}
	if s.RuntimeContext != nil {
		bad("runtimeContext", "the in-process composition is DSH's bare loop, as its tests compose it")
	}
	p := &Plan{Name: s.Name, Provider: "deepseek", Model: s.Model, ContextWindow: s.ContextWindow,
		StreamIdleTimeoutMs: s.StreamIdleTimeoutMs, MaxEvents: s.MaxEvents,
		DefaultAnswer: serve.Script(sim.Outcome{Text: ptr("ok")}, 0, s.Model)}
	if p.Model == "" {
		p.Model = "deepseek-chat"
	}
	if s.Seed != nil {
		p.Seed = *s.Seed
	}
	if r := s.RetryPolicy; r != nil {
		p.RetryPolicy = retryPolicy(r)
	}
	if c := s.Compaction; c != nil {
		p.Compaction = map[string]any{"maxOverflowRetries": c.MaxOverflowRetries, "maxTokens": c.MaxTokens}
		if r := c.Pruner; r != nil {
			p.Pruner = map[string]int{"thresholdChars": r.ThresholdChars, "headChars": r.HeadChars, "tailChars": r.TailChars}
		}
	}
	for i, name := range s.ListenerOrder {
		switch name {
		case sim.ListenerRetry, sim.ListenerCompaction:
			p.ListenerOrder = append(p.ListenerOrder, name)
		default:
			bad(fmt.Sprintf("listenerOrder[%d]", i), "%q: DSH's composition has llm-retry and compaction-basic only (a listener of one's own, or a turnsim test listener, runs in the model)", name)
		}
	}
	p.Random = jitter(s)
	p.Tools = map[string]PlanTool{}
	for i, r := range s.Requests {
		field := fmt.Sprintf("requests[%d]", i)
		if r.ListenerThrows {
			bad(field+".listenerThrows", "DSH's composition has no listener that throws on cue")
		}
		if f := r.Fail; f != nil && !wireCode(f.Code) {
			bad(field+".fail.code", "%q has no wire form: DSH's adapter derives %v and HTTP_<status>", f.Code, wireCodes)
		}
		p.Answers = append(p.Answers, serve.Script(r, i+1, p.Model))
		for k, c := range r.ToolCalls {
			p.Tools[serve.ToolCallID(i+1, k)] = PlanTool{Name: c.Name, Result: c.Result, IsError: c.IsError, LatencyMs: c.LatencyMs}
		}
	}
	for i, sum := range s.Summaries {
		out := sim.Outcome{Text: sum.Text, LatencyMs: sum.LatencyMs}
		if sum.Fail != nil {
			out = sim.Outcome{Fail: &session.LlmFailure{Code: "SERVER", Message: *sum.Fail, Status: ptr(500)}, LatencyMs: sum.LatencyMs}
		}
		p.Summaries = append(p.Summaries, serve.Script(out, 1000+i, p.Model))
	}
	for i, o := range s.Outages {
		if !wireCode(o.Fail.Code) {
			bad(fmt.Sprintf("outages[%d].fail.code", i), "%q has no wire form", o.Fail.Code)
		}
		f := o.Fail
		p.Outages = append(p.Outages, PlanOutage{FromMs: o.FromMs, ToMs: o.ToMs, Answer: serve.Script(sim.Outcome{Fail: &f}, 0, p.Model)})
	}
	for i, in := range s.Inputs {
		t, err := trigger(in.Trigger)
		if err != nil {
			bad(fmt.Sprintf("inputs[%d]", i), "%v", err)
		}
		p.Inputs = append(p.Inputs, PlanInput{Kind: in.Kind, Text: in.Text, Trigger: t})
	}
	for i, a := range s.World {
		field := fmt.Sprintf("world[%d]", i)
		t, err := trigger(a.Trigger)
		if err != nil {
			bad(field, "%v", err)
		}
		switch a.Do {
		case "cancel", "dispose", "observe", "dispose-retry":
		default:
			bad(field+".do", "%q is no world action DSH's agent takes", a.Do)
		}
		p.World = append(p.World, PlanAction{Do: a.Do, Cause: a.Cause, KeepInbox: a.KeepInbox, Trigger: t})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// trigger is a scenario's trigger as the driver places it: the same
// points, by the same names (the driver marks model-call at its adapter's
// entry, listener-wait at llm-retry's backoff and at a summary requested
// inside a request-error listener).
func trigger(t sim.Trigger) (PlanTrigger, error) {
	return PlanTrigger{After: t.After, Nth: t.Nth, AtMs: t.AtMs, PlusMs: t.PlusMs}, nil
}

// retryPolicy is a policy as DSH's RetryPolicyConfig writes it.
func retryPolicy(p *loop.RetryPolicy) map[string]any {
	out := map[string]any{"mode": p.Mode,
		"backoff": map[string]float64{"initialDelayMs": p.InitialDelayMs, "maxDelayMs": p.MaxDelayMs, "jitterRatio": p.JitterRatio}}
	if p.Mode == loop.ModeNormal {
		out["maxRetries"], out["retryableCodes"] = p.MaxRetries, p.RetryableCodes
	}
	return out
}

// jitter is the scenario's jitter samples as the model draws them: the
// first draws of its seed's "jitter" stream, else its list, cycled.
func jitter(s *sim.Scenario) []float64 {
	if s.Seed == nil {
		return slices.Clone(s.Random)
	}
	r := sim.Stream(*s.Seed, "jitter")
	out := make([]float64, max(jitterSamples, s.MaxEvents/3+1))
	for i := range out {
		out[i] = r.Float64()
	}
	return out
}

// wireCodes are the failure codes DSH's DeepSeek adapter can be made to
// derive from the wire, besides HTTP_<status>.
var wireCodes = []string{"AUTH", "RATE_LIMIT", "QUOTA", "CONTEXT_WINDOW_EXCEEDED", "INVALID_REQUEST", "SERVER",
	"STREAM_CLOSED", "TRANSPORT", "TIMEOUT", "EMPTY_RESPONSE"}

func wireCode(code string) bool {
	var n int
	if _, err := fmt.Sscanf(code, "HTTP_%d", &n); err == nil && code == fmt.Sprintf("HTTP_%d", n) {
		return true
	}
	return slices.Contains(wireCodes, code)
}

func ptr[T any](v T) *T { return &v }
