package sim

import (
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/loop/session"
)

// Scenario is a scripted world: the agent's configuration, what the model
// answers, what the user sends and what the world does, all in virtual
// time. Its JSON form is documented in docs/scenarios.md.
type Scenario struct {
	Name          string
	Provider      string
	Model         string
	ContextWindow int
	// Recovery is the route's recovery: llm-retry's policy, compaction-
	// basic's settings and the listeners' order.
	Recovery
	Random    []float64
	Requests  []Outcome
	Summaries []SummaryOutcome
	Inputs    []Input
	World     []Action
	// StreamIdleTimeoutMs is the adapter's idle watchdog: a hanging
	// stream fails with TIMEOUT after it (DSH's default 300000).
	StreamIdleTimeoutMs float64
	// MaxEvents bounds a run (default 10000).
	MaxEvents int
	// NoAdapter leaves the provider unregistered: its requests fail with
	// NO_ADAPTER ("adapter": false).
	NoAdapter bool
	// Seed, when set and Random is not, draws the jitter samples from the
	// "jitter" stream split off it.
	Seed *uint64
	// Outages are windows of virtual time in which every request fails
	// (without consuming the requests list).
	Outages []Outage
	// EnforceContextWindow makes the model reject a request whose derived
	// history is larger than ContextWindow tokens (natural overflow),
	// without consuming the requests list.
	EnforceContextWindow bool
	// RuntimeContext is the runtime context DSH's composition puts on the
	// surface ("runtimeContext": {"cwd": …} for DSH's own, or text and
	// sections); nil for a bare loop, as DSH's loop tests compose it.
	RuntimeContext *loop.RuntimeContext
}

// Recovery is how a route recovers from a request error: what every
// part of turnsim that sets one up (a scenario, a seed's draw, a budget,
// an exploration) says it with.
type Recovery struct {
	// RetryPolicy is the route's resolved policy; nil for none.
	RetryPolicy *loop.RetryPolicy
	// Compaction is nil when compaction-basic is not installed.
	Compaction *compact.Config
	// ListenerOrder names the request-error listeners, outermost first:
	// "retry", "compaction", a listener of one's own, and the test
	// listeners of listeners.go (nil: llm-retry, then compaction-basic).
	ListenerOrder []string
}

// Order is the listener order, llm-retry first when none is given.
func (r Recovery) Order() []string {
	if len(r.ListenerOrder) > 0 {
		return r.ListenerOrder
	}
	return []string{ListenerRetry, ListenerCompaction}
}

// Default is a scenario of DSH's defaults with nothing planned: what a
// scenario file's absent fields are, and what shrinking moves a drawn
// configuration toward.
func Default() *Scenario {
	c := compact.DefaultConfig()
	return &Scenario{Provider: "mock", Model: "mock-model", ContextWindow: 128000,
		Recovery: Recovery{RetryPolicy: retry.DefaultPolicy(), Compaction: &c,
			ListenerOrder: []string{ListenerRetry, ListenerCompaction}}, Random: []float64{0.5},
		StreamIdleTimeoutMs: 300_000, MaxEvents: 10_000}
}

// Outage is a window [FromMs, ToMs) in which every request fails.
type Outage struct {
	FromMs, ToMs float64
	Fail         session.LlmFailure
}

// Outcome is the model's answer to one request.
type Outcome struct {
	Text      *string
	ToolCalls []ToolCallSpec
	MaxTokens *string // the partial text of a max-tokens stop
	Fail      *session.LlmFailure
	// AfterChunks is how many chunks of Stream precede a failure or a
	// hang (a held stream).
	AfterChunks int
	// Stream is what a failing request streamed before it threw
	// (default: a text response).
	Stream    *Outcome
	Hang      bool
	LatencyMs float64
	// ListenerThrows makes the request-error waterfall of this failure
	// throw: an outermost listener fails while handling it, as a policy
	// author's listener with a bug would (DSH's tests install one).
	ListenerThrows bool
}

// ToolCallSpec is one tool call of an answer, with the tool's result.
type ToolCallSpec struct {
	Name      string
	Arguments string
	Result    string
	IsError   bool
	LatencyMs float64
}

// SummaryOutcome is the summarizer's answer to one compaction.
type SummaryOutcome struct {
	Text      *string
	Fail      *string
	LatencyMs float64
}

// AfterListenerWait is the trigger point that is no event: a wait a
// request-error listener begins (a backoff, a summarization, a plug-in's
// own sleep). An action placed after it, with plusMs, lands inside the
// wait, whether or not the listener logs anything.
const AfterListenerWait = "listener-wait"

// AfterModelCall is the other trigger point that is no event: the loop's
// nth call of the model port (DSH: its adapter's stream), at its entry,
// before the request is sent. An action placed after it lands before the
// attempt's first chunk, or, with plusMs, while the request waits for its
// answer.
const AfterModelCall = "model-call"

// Trigger places a world action or input: at a virtual time, or right after
// the nth append (from 1) of an event type, or the nth wait a listener
// began (AfterListenerWait).
type Trigger struct {
	AtMs  float64
	After string
	Nth   int
	// PlusMs delays an action placed after an event by this much virtual
	// time: inside a backoff wait, a summarization or a slow stream, at
	// an offset of its own.
	PlusMs float64
}

// Input is a user message entering the inbox.
type Input struct {
	Kind string // send, followup, steer or inject
	Text string
	Trigger
}

// Action is something the world does to the agent.
type Action struct {
	// Do is cancel, dispose, dispose-retry, or observe: a look at the Web
	// view where the action lands, which changes nothing (simrun
	// conformance --render reads DSH's Web UI there).
	Do        string
	Cause     session.Cause
	KeepInbox bool
	Trigger
}

// Listener names of ListenerOrder.
const (
	ListenerRetry      = "retry"
	ListenerCompaction = "compaction"
)
