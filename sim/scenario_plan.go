package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/loop/session"
)

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
