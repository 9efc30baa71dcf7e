package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/internal/inputfile"
	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/internal/strictjson"
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
	// RetryPolicy is the route's resolved policy; nil for none.
	RetryPolicy *loop.RetryPolicy
	// Compaction is nil when compaction-basic is not installed.
	Compaction *compact.Config
	// ListenerOrder names the request-error listeners, outermost first:
	// "retry", "compaction", and the test listeners of listeners.go.
	ListenerOrder []string
	Random        []float64
	Requests      []Outcome
	Summaries     []SummaryOutcome
	Inputs        []Input
	World         []Action
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

// Default is a scenario of DSH's defaults with nothing planned: what a
// scenario file's absent fields are, and what shrinking moves a drawn
// configuration toward.
func Default() *Scenario {
	c := compact.DefaultConfig()
	return &Scenario{Provider: "mock", Model: "mock-model", ContextWindow: 128000,
		RetryPolicy: retry.DefaultPolicy(), Compaction: &c,
		ListenerOrder: []string{ListenerRetry, ListenerCompaction}, Random: []float64{0.5},
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

// LoadScenario reads and checks a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	raw, err := inputfile.Read(path)
	if err != nil {
		return nil, err
	}
	return ParseScenario(raw)
}

// ParseScenario reads a scenario; errors name the field path.
func ParseScenario(raw []byte) (*Scenario, error) {
	if err := strictjson.Check(raw); err != nil {
		return nil, ferr("", "%v", err)
	}
	o, err := readObject("", raw)
	if err != nil {
		return nil, err
	}
	if err := o.only("name", "provider", "model", "contextWindow", "retryPolicy", "compaction", "listenerOrder",
		"random", "requests", "summaries", "inputs", "world", "streamIdleTimeoutMs", "maxEvents", "adapter", "seed",
		"outages", "enforceContextWindow", "runtimeContext"); err != nil {
		return nil, err
	}
	s := Default()
	for _, step := range []func() error{
		func() error { return o.str("name", &s.Name) },
		func() error { return o.str("provider", &s.Provider) },
		func() error { return o.str("model", &s.Model) },
		func() error { return o.integer("contextWindow", &s.ContextWindow, 1) },
		func() error { return o.duration("streamIdleTimeoutMs", &s.StreamIdleTimeoutMs) },
		func() error { return o.integer("maxEvents", &s.MaxEvents, 1) },
		func() error {
			adapter := true
			err := o.boolean("adapter", &adapter)
			s.NoAdapter = !adapter
			return err
		},
		func() error { return parseRetryPolicy(o, s) },
		func() error { return parseCompaction(o, s) },
		func() error { return parseListenerOrder(o, s) },
		func() error { return parseRandom(o, s) },
		func() error { return parseSeed(o, s) },
		func() error { return o.boolean("enforceContextWindow", &s.EnforceContextWindow) },
		func() error { return parseOutages(o, s) },
		func() error { return parseRuntimeContext(o, s) },
		func() error { return parseRequests(o, s) },
		func() error { return parseSummaries(o, s) },
		func() error { return parseInputs(o, s) },
		func() error { return parseWorld(o, s) },
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if s.Name == "" {
		return nil, ferr("name", "missing: every scenario has a name")
	}
	return s, nil
}

func parseRetryPolicy(o *object, s *Scenario) error {
	raw := o.raw("retryPolicy")
	switch {
	case raw == nil:
	case bytes.Equal(bytes.TrimSpace(raw), []byte("null")):
		s.RetryPolicy = nil
	default:
		p, err := retry.ParsePolicy(raw)
		if err != nil {
			var ce *retry.ConfigError
			if errors.As(err, &ce) {
				return ferr(join("retryPolicy", ce.Field), "%s", ce.Msg)
			}
			return ferr("retryPolicy", "%v", err)
		}
		s.RetryPolicy = p
	}
	return nil
}

func parseCompaction(o *object, s *Scenario) error {
	raw := o.raw("compaction")
	if raw == nil {
		return nil
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("false")) {
		s.Compaction = nil
		return nil
	}
	c, err := readObject("compaction", raw)
	if err != nil {
		return ferr("compaction", "must be an object or false, got %s", describe(raw))
	}
	if err := c.only("maxOverflowRetries", "maxTokens", "pruner"); err != nil {
		return err
	}
	if err := c.integer("maxOverflowRetries", &s.Compaction.MaxOverflowRetries, 0); err != nil {
		return err
	}
	if err := c.integer("maxTokens", &s.Compaction.MaxTokens, 1); err != nil {
		return err
	}
	if p := c.raw("pruner"); p != nil {
		switch string(bytes.TrimSpace(p)) {
		case "true":
			s.Compaction.Pruner = compact.DefaultPruner()
		case "false":
		default:
			po, err := readObject("compaction.pruner", p)
			if err != nil {
				return ferr("compaction.pruner", "must be true, false or an object, got %s", describe(p))
			}
			if err := po.only("thresholdChars", "headChars", "tailChars"); err != nil {
				return err
			}
			pr := compact.DefaultPruner()
			for _, f := range []struct {
				key string
				dst *int
			}{{"thresholdChars", &pr.ThresholdChars}, {"headChars", &pr.HeadChars}, {"tailChars", &pr.TailChars}} {
				if err := po.integer(f.key, f.dst, 0); err != nil {
					return err
				}
			}
			if pr.HeadChars+pr.TailChars >= pr.ThresholdChars {
				return ferr("compaction.pruner", "headChars + tailChars must be below thresholdChars")
			}
			s.Compaction.Pruner = pr
		}
	}
	return nil
}

var knownListeners = []string{ListenerRetry, ListenerCompaction, ListenerAlwaysRetry, ListenerThrow, ListenerCancelThenNext, ListenerCancelThenRetry}

// listenerName: a built-in listener, or what a plug-in may be called (the
// world refuses a name nothing registered: CheckPlugged).
func listenerName(name string) bool {
	if slices.Contains(knownListeners, name) {
		return true
	}
	if name == "" || len(name) > 64 {
		return false
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || i > 0 && strings.ContainsRune("._:-", r)
		if !ok {
			return false
		}
	}
	return true
}

// CheckPlugged says which name of the listenerOrder is neither built in
// nor one of the plug-ins, with its field path.
func (s *Scenario) CheckPlugged(plugged []Listener) error {
	for i, name := range s.ListenerOrder {
		if slices.Contains(knownListeners, name) {
			continue
		}
		if _, ok := find(plugged, name); !ok {
			var names []string
			for _, l := range plugged {
				names = append(names, l.Name)
			}
			registered := "none"
			if len(names) > 0 {
				registered = strings.Join(names, ", ")
			}
			return ferr(index("listenerOrder", i), "unknown listener %q (built in: %s; plugged in: %s)", name, strings.Join(knownListeners, ", "), registered)
		}
	}
	return nil
}

func parseListenerOrder(o *object, s *Scenario) error {
	items, err := o.array("listenerOrder")
	if err != nil || items == nil {
		return err
	}
	s.ListenerOrder = nil
	for i, it := range items {
		var name string
		if json.Unmarshal(it, &name) != nil || !listenerName(name) {
			return ferr(index("listenerOrder", i), "%s is not a listener name (built in: %s; a plug-in's name is letters, digits and ._:- up to 64)",
				describe(it), strings.Join(knownListeners, ", "))
		}
		if slices.Contains(s.ListenerOrder, name) {
			return ferr(index("listenerOrder", i), "%q is listed twice", name)
		}
		s.ListenerOrder = append(s.ListenerOrder, name)
	}
	return nil
}

func parseRandom(o *object, s *Scenario) error {
	items, err := o.array("random")
	if err != nil || items == nil {
		return err
	}
	if len(items) == 0 {
		return ferr("random", "must list at least one sample")
	}
	s.Random = nil
	for i, it := range items {
		var f float64
		if json.Unmarshal(it, &f) != nil || !(f >= 0 && f <= 1) {
			return ferr(index("random", i), "must be a number in [0,1], got %s", describe(it))
		}
		s.Random = append(s.Random, f)
	}
	return nil
}

func parseSeed(o *object, s *Scenario) error {
	raw := o.raw("seed")
	if raw == nil {
		return nil
	}
	var seed uint64
	if err := json.Unmarshal(raw, &seed); err != nil {
		return ferr("seed", "must be a non-negative integer, got %s", describe(raw))
	}
	if o.has("random") {
		return ferr("seed", "draws the jitter samples; it cannot stand beside random")
	}
	s.Seed = &seed
	return nil
}

func parseOutages(o *object, s *Scenario) error {
	items, err := o.array("outages")
	if err != nil {
		return err
	}
	for i, it := range items {
		path := index("outages", i)
		oo, err := readObject(path, it)
		if err != nil {
			return err
		}
		if err := oo.only("fromMs", "toMs", "fail"); err != nil {
			return err
		}
		var out Outage
		if err := oo.duration("fromMs", &out.FromMs); err != nil {
			return err
		}
		if err := oo.duration("toMs", &out.ToMs); err != nil {
			return err
		}
		if out.ToMs <= out.FromMs {
			return ferr(join(path, "toMs"), "must be after fromMs")
		}
		if !oo.has("fail") {
			return ferr(join(path, "fail"), "missing: an outage needs the failure its requests get")
		}
		f, err := parseFailure(join(path, "fail"), oo.raw("fail"))
		if err != nil {
			return err
		}
		out.Fail = *f
		s.Outages = append(s.Outages, out)
	}
	return nil
}

// parseRuntimeContext reads {"cwd": DIR} (DSH's composition for a
// session working in DIR) or {"text": T, "sections": [{"name","text"}…]}.
func parseRuntimeContext(o *object, s *Scenario) error {
	raw := o.raw("runtimeContext")
	if raw == nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	ro, err := readObject("runtimeContext", raw)
	if err != nil {
		return err
	}
	if err := ro.only("cwd", "text", "sections"); err != nil {
		return err
	}
	if ro.has("cwd") {
		if ro.has("text") || ro.has("sections") {
			return ferr("runtimeContext", "is either {cwd} (DSH's own) or {text, sections}, not both")
		}
		var cwd string
		if err := ro.str("cwd", &cwd); err != nil {
			return err
		}
		if cwd == "" {
			return ferr("runtimeContext.cwd", "must name a folder")
		}
		s.RuntimeContext = DSHRuntimeContext(cwd)
		return nil
	}
	rc := &loop.RuntimeContext{}
	if err := ro.str("text", &rc.Text); err != nil {
		return err
	}
	items, err := ro.array("sections")
	if err != nil {
		return err
	}
	for i, it := range items {
		so, err := readObject(index("runtimeContext.sections", i), it)
		if err != nil {
			return err
		}
		if err := so.only("name", "text"); err != nil {
			return err
		}
		var sec loop.ContextSection
		if err := so.str("name", &sec.Name); err != nil {
			return err
		}
		if err := so.str("text", &sec.Text); err != nil {
			return err
		}
		rc.Sections = append(rc.Sections, sec)
	}
	s.RuntimeContext = rc
	return nil
}

// resultTotal counts the characters of the tool results a scenario asks
// for, against limits.Current.TotalResultChars, before any is made: each
// result is held as a string and copied into the log, so 20 results of
// 16,000,000 characters (each under --max-result-chars) once took a
// 1.2 KB scenario to 1.14 GB.
type resultTotal struct{ chars int }

// add counts one result of n characters; path names its field.
func (t *resultTotal) add(path string, n int) error {
	t.chars += n
	if max := limits.Current.TotalResultChars; t.chars > max {
		return ferr(path, "%v", &limits.Exceeded{What: fmt.Sprintf("the tool results' total of %d characters", t.chars),
			Limit: fmt.Sprint(max), Flag: limits.FlagTotalResultChars})
	}
	return nil
}

func parseRequests(o *object, s *Scenario) error {
	items, err := o.array("requests")
	if err != nil {
		return err
	}
	var total resultTotal
	for i, it := range items {
		out, err := parseOutcome(index("requests", i), it, true, &total)
		if err != nil {
			return err
		}
		s.Requests = append(s.Requests, *out)
	}
	return nil
}

// parseOutcome reads one of {text}, {toolCalls}, {maxTokens}, {fail},
// {hang}, each with an optional latencyMs; its tool results count toward
// total.
func parseOutcome(path string, raw json.RawMessage, top bool, total *resultTotal) (*Outcome, error) {
	o, err := readObject(path, raw)
	if err != nil {
		return nil, err
	}
	keys := []string{"text", "toolCalls", "maxTokens", "latencyMs"}
	if top {
		keys = append(keys, "fail", "afterChunks", "stream", "hang", "listenerThrows")
	}
	if err := o.only(keys...); err != nil {
		return nil, err
	}
	out := &Outcome{}
	kinds := 0
	for _, k := range []string{"text", "toolCalls", "maxTokens", "fail", "hang"} {
		if o.has(k) {
			kinds++
		}
	}
	if kinds != 1 {
		return nil, ferr(path, "needs exactly one of text, toolCalls, maxTokens, fail or hang")
	}
	if err := o.duration("latencyMs", &out.LatencyMs); err != nil {
		return nil, err
	}
	for _, k := range []string{"afterChunks", "stream"} {
		if o.has(k) && !o.has("fail") && !o.has("hang") {
			return nil, ferr(join(path, k), "only a failure (fail) or a hang streams chunks first")
		}
	}
	if o.has("listenerThrows") {
		if !o.has("fail") && !o.has("hang") {
			return nil, ferr(join(path, "listenerThrows"), "only a failure (fail or hang) reaches the request-error listeners")
		}
		if err := o.boolean("listenerThrows", &out.ListenerThrows); err != nil {
			return nil, err
		}
	}
	switch {
	case o.has("text"):
		out.Text = new(string)
		return out, o.str("text", out.Text)
	case o.has("maxTokens"):
		out.MaxTokens = new(string)
		return out, o.str("maxTokens", out.MaxTokens)
	case o.has("hang"):
		if err := o.boolean("hang", &out.Hang); err != nil {
			return nil, err
		}
		if !out.Hang {
			return nil, ferr(join(path, "hang"), "must be true when present")
		}
		return out, parsePartial(path, o, out, total)
	case o.has("toolCalls"):
		calls, err := o.array("toolCalls")
		if err != nil {
			return nil, err
		}
		if len(calls) == 0 {
			return nil, ferr(join(path, "toolCalls"), "must list at least one call")
		}
		for i, c := range calls {
			spec, err := parseToolCall(index(join(path, "toolCalls"), i), c, total)
			if err != nil {
				return nil, err
			}
			out.ToolCalls = append(out.ToolCalls, spec)
		}
		return out, nil
	}
	f, err := parseFailure(join(path, "fail"), o.raw("fail"))
	if err != nil {
		return nil, err
	}
	out.Fail = f
	return out, parsePartial(path, o, out, total)
}

// parsePartial reads what a failure or a hang streams first: afterChunks
// chunks of stream.
func parsePartial(path string, o *object, out *Outcome, total *resultTotal) error {
	if err := o.integer("afterChunks", &out.AfterChunks, 0); err != nil {
		return err
	}
	if raw := o.raw("stream"); raw != nil {
		st, err := parseOutcome(join(path, "stream"), raw, false, total)
		if err != nil {
			return err
		}
		out.Stream = st
	}
	return nil
}

func parseToolCall(path string, raw json.RawMessage, total *resultTotal) (ToolCallSpec, error) {
	spec := ToolCallSpec{Arguments: "{}", Result: "ok"}
	o, err := readObject(path, raw)
	if err != nil {
		return spec, err
	}
	if err := o.only("name", "arguments", "result", "resultChars", "isError", "latencyMs"); err != nil {
		return spec, err
	}
	chars := 0
	for _, f := range []func() error{
		func() error { return o.str("name", &spec.Name) },
		func() error { return o.str("arguments", &spec.Arguments) },
		func() error { return o.str("result", &spec.Result) },
		func() error { return o.integer("resultChars", &chars, 0) },
		func() error { return o.boolean("isError", &spec.IsError) },
		func() error { return o.duration("latencyMs", &spec.LatencyMs) },
	} {
		if err := f(); err != nil {
			return spec, err
		}
	}
	if spec.Name == "" {
		return spec, ferr(join(path, "name"), "missing: a tool call needs a name")
	}
	if max := limits.Current.ResultChars; chars > max {
		return spec, ferr(join(path, "resultChars"), "%v", &limits.Exceeded{What: fmt.Sprint(chars), Limit: fmt.Sprint(max), Flag: limits.FlagResultChars})
	}
	if chars == 0 {
		// A result written out counts too: the total is of what is held.
		return spec, total.add(join(path, "result"), len(spec.Result))
	}
	if err := total.add(join(path, "resultChars"), chars); err != nil {
		return spec, err
	}
	spec.Result = resultOfSize(spec.Result, chars)
	return spec, nil
}

// resultOfSize repeats text to exactly n characters (large tool results
// without large scenario files).
func resultOfSize(text string, n int) string {
	if text == "" {
		text = "x"
	}
	b := make([]byte, 0, n)
	for len(b) < n {
		b = append(b, text...)
		b = append(b, '\n')
	}
	return string(b[:n])
}

func parseFailure(path string, raw json.RawMessage) (*session.LlmFailure, error) {
	o, err := readObject(path, raw)
	if err != nil {
		return nil, err
	}
	if err := o.only("code", "message", "status", "retryAfterMs", "requestId"); err != nil {
		return nil, err
	}
	f := &session.LlmFailure{}
	if err := o.str("code", &f.Code); err != nil {
		return nil, err
	}
	if f.Code == "" {
		return nil, ferr(join(path, "code"), "missing: a failure needs a code")
	}
	if err := o.str("message", &f.Message); err != nil {
		return nil, err
	}
	if f.Message == "" {
		f.Message = fmt.Sprintf("simulated %s failure", f.Code)
	}
	if o.has("status") {
		status := 0
		if err := o.integer("status", &status, 100); err != nil || !session.ValidStatus(status) {
			return nil, ferr(join(path, "status"), "must be an integer in 100..599, got %s", describe(o.raw("status")))
		}
		f.Status = &status
	}
	if o.has("retryAfterMs") {
		var ra float64
		if err := o.duration("retryAfterMs", &ra); err != nil {
			return nil, err
		}
		if ra <= 0 {
			return nil, ferr(join(path, "retryAfterMs"), "must be > 0 (DSH drops a Retry-After of 0 or less), got %v", ra)
		}
		f.ProviderRetryAfterMs = &ra
	}
	return f, o.str("requestId", &f.RequestID)
}

func parseSummaries(o *object, s *Scenario) error {
	items, err := o.array("summaries")
	if err != nil {
		return err
	}
	for i, it := range items {
		path := index("summaries", i)
		so, err := readObject(path, it)
		if err != nil {
			return err
		}
		if err := so.only("text", "fail", "latencyMs"); err != nil {
			return err
		}
		var out SummaryOutcome
		if so.has("text") == so.has("fail") {
			return ferr(path, "needs exactly one of text or fail")
		}
		if so.has("text") {
			out.Text = new(string)
			err = so.str("text", out.Text)
		} else {
			out.Fail = new(string)
			err = so.str("fail", out.Fail)
		}
		if err == nil {
			err = so.duration("latencyMs", &out.LatencyMs)
		}
		if err != nil {
			return err
		}
		s.Summaries = append(s.Summaries, out)
	}
	return nil
}

// loopEventTypes are the event types the loop and its listeners write: the
// ones an action can be placed after.
var loopEventTypes = []string{session.TypeInboxSpliced, session.TypeTurnStart, session.TypeTurnEnd, session.TypeStepStart,
	session.TypeStepEnd, session.TypeUserMessage, session.TypeAssistantChunk, session.TypeAssistantMessage, session.TypeToolCall,
	session.TypeToolResult, session.TypeRequestHeader, session.TypeRequestContext, session.TypeLLMRetry, session.TypeLLMRetryStarted,
	session.TypeCompactionStart, session.TypeCompactionSummary, session.TypeCompactionEnd, session.TypeCompactionPrune}

func parseTrigger(o *object, t *Trigger) error {
	if o.has("atMs") && o.has("after") {
		return ferr(o.path, "is placed either atMs or after/nth, not both")
	}
	if err := o.duration("atMs", &t.AtMs); err != nil {
		return err
	}
	if err := o.str("after", &t.After); err != nil {
		return err
	}
	if o.has("after") && !slices.Contains(loopEventTypes, t.After) && t.After != AfterListenerWait && t.After != AfterModelCall {
		return ferr(join(o.path, "after"), "unknown event type %q (the loop writes: %s; %s is a wait inside a listener, %s a call of the model port)",
			t.After, strings.Join(loopEventTypes, ", "), AfterListenerWait, AfterModelCall)
	}
	t.Nth = 1
	if err := o.integer("nth", &t.Nth, 1); err != nil {
		return err
	}
	if o.has("nth") && t.After == "" {
		return ferr(join(o.path, "nth"), "needs after (the event type it counts)")
	}
	if err := o.duration("plusMs", &t.PlusMs); err != nil {
		return err
	}
	if o.has("plusMs") && t.After == "" {
		return ferr(join(o.path, "plusMs"), "needs after (the event it counts from); use atMs for a time from the start")
	}
	return nil
}

var inputKinds = []string{"send", "followup", "steer", "inject"}

func parseInputs(o *object, s *Scenario) error {
	items, err := o.array("inputs")
	if err != nil {
		return err
	}
	if items == nil {
		s.Inputs = []Input{{Kind: "send", Text: "hello", Trigger: Trigger{Nth: 1}}}
		return nil
	}
	for i, it := range items {
		path := index("inputs", i)
		io, err := readObject(path, it)
		if err != nil {
			return err
		}
		if err := io.only("send", "followup", "steer", "inject", "atMs", "after", "nth", "plusMs"); err != nil {
			return err
		}
		var in Input
		for _, k := range inputKinds {
			if io.has(k) {
				if in.Kind != "" {
					return ferr(path, "needs exactly one of send, followup, steer or inject")
				}
				in.Kind = k
				if err := io.str(k, &in.Text); err != nil {
					return err
				}
			}
		}
		if in.Kind == "" {
			return ferr(path, "needs one of send, followup, steer or inject")
		}
		if err := parseTrigger(io, &in.Trigger); err != nil {
			return err
		}
		s.Inputs = append(s.Inputs, in)
	}
	return nil
}

var causes = []string{session.CauseUser, session.CauseParent, session.CauseHook, session.CauseDisposed}

func parseWorld(o *object, s *Scenario) error {
	items, err := o.array("world")
	if err != nil {
		return err
	}
	for i, it := range items {
		path := index("world", i)
		wo, err := readObject(path, it)
		if err != nil {
			return err
		}
		if err := wo.only("do", "cause", "reason", "keepInbox", "atMs", "after", "nth", "plusMs"); err != nil {
			return err
		}
		var a Action
		if err := wo.str("do", &a.Do); err != nil {
			return err
		}
		switch a.Do {
		case "cancel":
			a.Cause.Kind = session.CauseUser
			if err := wo.str("cause", &a.Cause.Kind); err != nil {
				return err
			}
			if !slices.Contains(causes, a.Cause.Kind) {
				return ferr(join(path, "cause"), "unknown cause %q (known: %v)", a.Cause.Kind, causes)
			}
			if err := wo.str("reason", &a.Cause.Reason); err != nil {
				return err
			}
			if err := wo.boolean("keepInbox", &a.KeepInbox); err != nil {
				return err
			}
		case "dispose", "dispose-retry", "observe":
			if wo.has("cause") || wo.has("keepInbox") || wo.has("reason") {
				return ferr(path, "%s takes no cause, reason or keepInbox", a.Do)
			}
		case "":
			return ferr(join(path, "do"), "missing: one of cancel, dispose, dispose-retry, observe")
		default:
			return ferr(join(path, "do"), "unknown action %q (known: cancel, dispose, dispose-retry, observe)", a.Do)
		}
		if err := parseTrigger(wo, &a.Trigger); err != nil {
			return err
		}
		s.World = append(s.World, a)
	}
	return nil
}
