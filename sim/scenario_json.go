package sim

import (
	"bytes"
	"encoding/json"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
)

// The scenario file's JSON, written in a fixed key order. ParseScenario
// reads back exactly what MarshalJSON wrote, so a scenario built in Go (a
// generated case, a shrunk reproduction) becomes a file that
// 'simrun scenario' replays.

type policyJSON struct {
	Mode           string      `json:"mode"`
	MaxRetries     *int        `json:"maxRetries,omitempty"`
	RetryableCodes []string    `json:"retryableCodes,omitempty"`
	Backoff        backoffJSON `json:"backoff"`
}

type backoffJSON struct {
	InitialDelayMs float64 `json:"initialDelayMs"`
	MaxDelayMs     float64 `json:"maxDelayMs"`
	JitterRatio    float64 `json:"jitterRatio"`
}

type prunerJSON struct {
	ThresholdChars int `json:"thresholdChars"`
	HeadChars      int `json:"headChars"`
	TailChars      int `json:"tailChars"`
}

type compactionJSON struct {
	MaxOverflowRetries int         `json:"maxOverflowRetries"`
	MaxTokens          int         `json:"maxTokens"`
	Pruner             *prunerJSON `json:"pruner,omitempty"`
}

type failJSON struct {
	Code         string   `json:"code"`
	Message      string   `json:"message"`
	Status       *int     `json:"status,omitempty"`
	RetryAfterMs *float64 `json:"retryAfterMs,omitempty"`
	RequestID    string   `json:"requestId,omitempty"`
}

type toolCallJSON struct {
	Name      string  `json:"name"`
	Arguments string  `json:"arguments"`
	Result    string  `json:"result"`
	IsError   bool    `json:"isError,omitempty"`
	LatencyMs float64 `json:"latencyMs,omitempty"`
}

type outcomeJSON struct {
	Text        *string        `json:"text,omitempty"`
	ToolCalls   []toolCallJSON `json:"toolCalls,omitempty"`
	MaxTokens   *string        `json:"maxTokens,omitempty"`
	Fail        *failJSON      `json:"fail,omitempty"`
	AfterChunks int            `json:"afterChunks,omitempty"`
	Stream      *outcomeJSON   `json:"stream,omitempty"`
	Hang        bool           `json:"hang,omitempty"`
	LatencyMs   float64        `json:"latencyMs,omitempty"`
	// ListenerThrows is last: files written before it read the same.
	ListenerThrows bool `json:"listenerThrows,omitempty"`
}

type summaryJSON struct {
	Text      *string `json:"text,omitempty"`
	Fail      *string `json:"fail,omitempty"`
	LatencyMs float64 `json:"latencyMs,omitempty"`
}

type scenarioJSON struct {
	Name                 string            `json:"name"`
	Provider             string            `json:"provider"`
	Model                string            `json:"model"`
	ContextWindow        int               `json:"contextWindow"`
	Adapter              *bool             `json:"adapter,omitempty"`
	RetryPolicy          json.RawMessage   `json:"retryPolicy"`
	Compaction           json.RawMessage   `json:"compaction"`
	ListenerOrder        []string          `json:"listenerOrder"`
	Seed                 *uint64           `json:"seed,omitempty"`
	Random               []float64         `json:"random,omitempty"`
	StreamIdleTimeoutMs  float64           `json:"streamIdleTimeoutMs"`
	MaxEvents            int               `json:"maxEvents"`
	Requests             []outcomeJSON     `json:"requests"`
	Summaries            []summaryJSON     `json:"summaries"`
	Inputs               []json.RawMessage `json:"inputs"`
	World                []json.RawMessage `json:"world"`
	Outages              []outageJSON      `json:"outages,omitempty"`
	EnforceContextWindow bool              `json:"enforceContextWindow,omitempty"`
	RuntimeContext       *runtimeJSON      `json:"runtimeContext,omitempty"`
}

type runtimeJSON struct {
	Text     string                `json:"text"`
	Sections []loop.ContextSection `json:"sections,omitempty"`
}

type outageJSON struct {
	FromMs float64  `json:"fromMs"`
	ToMs   float64  `json:"toMs"`
	Fail   failJSON `json:"fail"`
}

// MarshalJSON writes the scenario in its file format, every default
// spelled out.
func (s *Scenario) MarshalJSON() ([]byte, error) {
	out := scenarioJSON{Name: s.Name, Provider: s.Provider, Model: s.Model, ContextWindow: s.ContextWindow,
		ListenerOrder: append([]string{}, s.ListenerOrder...), Seed: s.Seed, StreamIdleTimeoutMs: s.StreamIdleTimeoutMs, MaxEvents: s.MaxEvents,
		Requests: []outcomeJSON{}, Summaries: []summaryJSON{}, Inputs: []json.RawMessage{}, World: []json.RawMessage{}}
	// ListenerOrder is copied so that no listeners writes [], never null.
	if s.Seed == nil {
		out.Random = s.Random
	}
	out.EnforceContextWindow = s.EnforceContextWindow
	if rc := s.RuntimeContext; rc != nil {
		out.RuntimeContext = &runtimeJSON{rc.Text, rc.Sections}
	}
	for _, o := range s.Outages {
		f := o.Fail
		out.Outages = append(out.Outages, outageJSON{o.FromMs, o.ToMs, failJSON{f.Code, f.Message, f.Status, f.ProviderRetryAfterMs, f.RequestID}})
	}
	if s.NoAdapter {
		out.Adapter = new(bool)
	}
	var err error
	out.RetryPolicy = json.RawMessage("null")
	if p := s.RetryPolicy; p != nil {
		pj := policyJSON{Mode: p.Mode, Backoff: backoffJSON{p.InitialDelayMs, p.MaxDelayMs, p.JitterRatio}}
		if p.Mode == loop.ModeNormal {
			pj.MaxRetries, pj.RetryableCodes = &p.MaxRetries, p.RetryableCodes
		}
		if out.RetryPolicy, err = session.Marshal(pj); err != nil {
			return nil, err
		}
	}
	out.Compaction = json.RawMessage("false")
	if c := s.Compaction; c != nil {
		cj := compactionJSON{MaxOverflowRetries: c.MaxOverflowRetries, MaxTokens: c.MaxTokens}
		if c.Pruner != nil {
			cj.Pruner = &prunerJSON{c.Pruner.ThresholdChars, c.Pruner.HeadChars, c.Pruner.TailChars}
		}
		if out.Compaction, err = session.Marshal(cj); err != nil {
			return nil, err
		}
	}
	for i := range s.Requests {
		out.Requests = append(out.Requests, outcomeToJSON(&s.Requests[i]))
	}
	for _, sm := range s.Summaries {
		out.Summaries = append(out.Summaries, summaryJSON(sm))
	}
	for _, in := range s.Inputs {
		fields := [][2]any{{in.Kind, in.Text}}
		out.Inputs = append(out.Inputs, orderedObject(append(fields, triggerFields(in.Trigger)...)))
	}
	for _, a := range s.World {
		fields := [][2]any{{"do", a.Do}}
		if a.Do == "cancel" {
			fields = append(fields, [2]any{"cause", a.Cause.Kind})
			if a.Cause.Reason != "" {
				fields = append(fields, [2]any{"reason", a.Cause.Reason})
			}
			fields = append(fields, [2]any{"keepInbox", a.KeepInbox})
		}
		out.World = append(out.World, orderedObject(append(fields, triggerFields(a.Trigger)...)))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func outcomeToJSON(o *Outcome) outcomeJSON {
	out := outcomeJSON{Text: o.Text, MaxTokens: o.MaxTokens, AfterChunks: o.AfterChunks, Hang: o.Hang, LatencyMs: o.LatencyMs, ListenerThrows: o.ListenerThrows}
	for _, c := range o.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, toolCallJSON(c))
	}
	if f := o.Fail; f != nil {
		out.Fail = &failJSON{f.Code, f.Message, f.Status, f.ProviderRetryAfterMs, f.RequestID}
	}
	if o.Stream != nil {
		st := outcomeToJSON(o.Stream)
		out.Stream = &st
	}
	return out
}

func triggerFields(t Trigger) [][2]any {
	if t.After != "" && t.PlusMs > 0 {
		return [][2]any{{"after", t.After}, {"nth", t.Nth}, {"plusMs", t.PlusMs}}
	}
	if t.After != "" {
		return [][2]any{{"after", t.After}, {"nth", t.Nth}}
	}
	return [][2]any{{"atMs", t.AtMs}}
}

// orderedObject encodes key/value pairs as an object in the given order.
func orderedObject(pairs [][2]any) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := session.Marshal(p[0])
		v, _ := session.Marshal(p[1])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}
