package session

import "encoding/json"

// Payload is the data of one event. Each event type of docs/dsh.md#events
// has a Go type; every other type is carried by [Opaque].
type Payload interface {
	// EventType is the event's "type" field.
	EventType() string
}

// Event types with a Go payload type.
const (
	TypeInboxSpliced      = "agent/inbox/spliced"
	TypeTurnStart         = "turn/start"
	TypeTurnEnd           = "turn/end"
	TypeStepStart         = "step/start"
	TypeStepEnd           = "step/end"
	TypeUserMessage       = "user/message"
	TypeAssistantChunk    = "assistant/chunk"
	TypeAssistantMessage  = "assistant/message"
	TypeToolCall          = "tool/call"
	TypeToolResult        = "tool/result"
	TypeRequestHeader     = "request/header"
	TypeRequestContext    = "request/context"
	TypeLLMRetry          = "llm/retry"
	TypeLLMRetryStarted   = "llm/retry-started"
	TypeCompactionStart   = "compaction/start"
	TypeCompactionSummary = "compaction/summary"
	TypeCompactionEnd     = "compaction/end"
	TypeCompactionPrune   = "compaction/prune"
	TypeSessionEndSeed    = "session/end-seed"
)

// InboxSpliced is a durable inbox mutation. A claim is a pure deletion
// without Outcome; a cancel carries Outcome "canceled".
type InboxSpliced struct {
	Target       string        `json:"target"`
	Start        int           `json:"start"`
	RemovedCount int           `json:"removedCount,omitempty"`
	Inserted     []UserMessage `json:"inserted"`
	Outcome      string        `json:"outcome,omitempty"`
}

// TurnStart opens turn Turn (1, 2, … across the whole session).
type TurnStart struct {
	Turn int `json:"turn"`
}

// TurnEnd closes turn Turn with its reason.
type TurnEnd struct {
	Turn   int           `json:"turn"`
	Reason TurnEndReason `json:"reason"`
}

// StepStart opens step Step of turn Turn; steps restart at 1 in every turn.
type StepStart struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

// StepEnd closes a step.
type StepEnd struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

// Source says where a message came from. Only the fields turnsim reads are
// typed; a message that was read keeps every other field in its raw bytes.
type Source struct {
	Kind   string `json:"kind"`
	Plugin string `json:"plugin,omitempty"`
	// Form and Sections describe a runtime-context snapshot: form
	// "snapshot" and the named sections it was rendered from.
	Form         string          `json:"form,omitempty"`
	Sections     json.RawMessage `json:"sections,omitempty"`
	CompactionID string          `json:"compactionId,omitempty"`
	CallID       string          `json:"callId,omitempty"`
	Provider     string          `json:"provider,omitempty"`
	Model        string          `json:"model,omitempty"`
	ReplayState  json.RawMessage `json:"replayState,omitempty"`
}

// UserMessage is the data of a user/message event and an inbox item:
// prompts, injected context, runtime-context snapshots and compaction
// checkpoints.
type UserMessage struct {
	Content json.RawMessage `json:"content"`
	Source  Source          `json:"source"`
	Role    string          `json:"role"`
	ID      string          `json:"id"`
}

// AssistantBody is the message inside an assistant/message event.
type AssistantBody struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Source  Source          `json:"source"`
	ID      string          `json:"id"`
}

// AssistantMessage is a model message: the success of an attempt, or the
// interrupted prefix of a cancelled one. Its envelope cites the chunks it
// was assembled from.
type AssistantMessage struct {
	Turn        int             `json:"turn"`
	Step        int             `json:"step"`
	Message     AssistantBody   `json:"message"`
	Usage       json.RawMessage `json:"usage,omitempty"`
	Interrupted bool            `json:"interrupted,omitempty"`
}

// AssistantChunk is one raw streamed chunk of an attempt.
type AssistantChunk struct {
	Turn  int         `json:"turn"`
	Step  int         `json:"step"`
	Chunk StreamChunk `json:"chunk"`
}

// ToolCall records a dispatched tool call.
type ToolCall struct {
	Turn      int    `json:"turn"`
	Step      int    `json:"step"`
	CallID    string `json:"callId"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolError classifies a failed tool result.
type ToolError struct {
	Name string `json:"name"`
	Code string `json:"code"`
}

// ToolResult is a tool's result message. Logs of the retired web layout
// carry the call id at the top level instead of inside Message.
type ToolResult struct {
	Turn         int          `json:"turn"`
	Step         int          `json:"step"`
	Message      *UserMessage `json:"message,omitempty"`
	Error        *ToolError   `json:"error,omitempty"`
	LegacyCallID string       `json:"callId,omitempty"`
}

// CallID is the id of the tool call this result answers.
func (r *ToolResult) CallID() string {
	if r.Message != nil && r.Message.Source.CallID != "" {
		return r.Message.Source.CallID
	}
	return r.LegacyCallID
}

// RequestConfig is the routed request configuration of a header.
type RequestConfig struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// RequestHeaderBody is the header of a request/header event; system prompt,
// tools and the other settings are kept raw.
type RequestHeaderBody struct {
	Config RequestConfig `json:"config"`
}

// RequestHeader records the request header of an attempt when it is first
// sent, resumed or changed.
type RequestHeader struct {
	Header RequestHeaderBody `json:"header"`
	Reason string            `json:"reason"`
}

// RequestContext records a change of route or capacity.
type RequestContext struct {
	Provider      string `json:"provider"`
	Model         string `json:"model"`
	ContextWindow *int   `json:"contextWindow,omitempty"`
}

// LLMRetry is llm-retry's scheduling record (docs/dsh.md#retry-events),
// appended before the backoff wait. MaxRetries is absent in always mode.
type LLMRetry struct {
	RetryID    string     `json:"retryId"`
	Turn       int        `json:"turn"`
	Step       int        `json:"step"`
	Provider   string     `json:"provider"`
	Mode       string     `json:"mode"`
	PolicyKey  string     `json:"policyKey"`
	Retry      int        `json:"retry"`
	MaxRetries *int       `json:"maxRetries,omitempty"`
	DelayMs    float64    `json:"delayMs"`
	Failure    LlmFailure `json:"failure"`
}

// LLMRetryStarted is appended once a retry's wait completed, before the next
// attempt.
type LLMRetryStarted struct {
	RetryID string `json:"retryId"`
	Turn    int    `json:"turn"`
	Step    int    `json:"step"`
	Retry   int    `json:"retry"`
}

// SeqRange is an inclusive range of seqs.
type SeqRange struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// CompactionStart opens a compaction bracket. Turn is nil for a compaction
// outside any turn.
type CompactionStart struct {
	CompactionID    string `json:"compactionId"`
	SourceCommandID string `json:"sourceCommandId,omitempty"`
	Turn            *int   `json:"turn"`
}

// CompactionSummary records the summary that replaces ShadowedSeqs; the
// replacing checkpoint user/message follows it immediately.
type CompactionSummary struct {
	CompactionID       string          `json:"compactionId"`
	SourceCommandID    string          `json:"sourceCommandId,omitempty"`
	Summary            json.RawMessage `json:"summary"`
	RawOutput          json.RawMessage `json:"rawOutput,omitempty"`
	LLMStreamCall      bool            `json:"llmStreamCall,omitempty"`
	ShadowedRange      SeqRange        `json:"shadowedRange"`
	ShadowedSeqs       []int64         `json:"shadowedSeqs"`
	ShadowedTokenCount int64           `json:"shadowedTokenCount"`
	Provider           string          `json:"provider"`
	Model              string          `json:"model"`
	MaxTokens          *int            `json:"maxTokens,omitempty"`
	Usage              json.RawMessage `json:"usage,omitempty"`
}

// CompactionEnd closes a compaction bracket; Error is set on failure.
type CompactionEnd struct {
	CompactionID    string `json:"compactionId"`
	SourceCommandID string `json:"sourceCommandId,omitempty"`
	Turn            *int   `json:"turn"`
	Error           string `json:"error,omitempty"`
}

// CompactionPrune records a pruned tool result; a replacing tool/result
// follows it.
type CompactionPrune struct {
	ShadowedRange      SeqRange `json:"shadowedRange"`
	ShadowedSeqs       []int64  `json:"shadowedSeqs"`
	ShadowedTokenCount int64    `json:"shadowedTokenCount"`
}

// SessionEndSeed marks the end of inherited or resumed history.
type SessionEndSeed struct{}

// Opaque is an event of a type turnsim does not interpret (titles,
// approvals, hooks, subagents, …). Its data is kept byte for byte and it is
// ordering-neutral for the oracle.
type Opaque struct {
	Type string
	Data json.RawMessage
}

func (*InboxSpliced) EventType() string      { return TypeInboxSpliced }
func (*TurnStart) EventType() string         { return TypeTurnStart }
func (*TurnEnd) EventType() string           { return TypeTurnEnd }
func (*StepStart) EventType() string         { return TypeStepStart }
func (*StepEnd) EventType() string           { return TypeStepEnd }
func (*UserMessage) EventType() string       { return TypeUserMessage }
func (*AssistantChunk) EventType() string    { return TypeAssistantChunk }
func (*AssistantMessage) EventType() string  { return TypeAssistantMessage }
func (*ToolCall) EventType() string          { return TypeToolCall }
func (*ToolResult) EventType() string        { return TypeToolResult }
func (*RequestHeader) EventType() string     { return TypeRequestHeader }
func (*RequestContext) EventType() string    { return TypeRequestContext }
func (*LLMRetry) EventType() string          { return TypeLLMRetry }
func (*LLMRetryStarted) EventType() string   { return TypeLLMRetryStarted }
func (*CompactionStart) EventType() string   { return TypeCompactionStart }
func (*CompactionSummary) EventType() string { return TypeCompactionSummary }
func (*CompactionEnd) EventType() string     { return TypeCompactionEnd }
func (*CompactionPrune) EventType() string   { return TypeCompactionPrune }
func (*SessionEndSeed) EventType() string    { return TypeSessionEndSeed }
func (o *Opaque) EventType() string          { return o.Type }

// MarshalJSON writes the opaque data unchanged.
func (o *Opaque) MarshalJSON() ([]byte, error) { return o.Data, nil }

// newPayload returns an empty payload for a typed event type, or nil when
// the type is opaque.
func newPayload(typ string) Payload {
	switch typ {
	case TypeInboxSpliced:
		return new(InboxSpliced)
	case TypeTurnStart:
		return new(TurnStart)
	case TypeTurnEnd:
		return new(TurnEnd)
	case TypeStepStart:
		return new(StepStart)
	case TypeStepEnd:
		return new(StepEnd)
	case TypeUserMessage:
		return new(UserMessage)
	case TypeAssistantChunk:
		return new(AssistantChunk)
	case TypeAssistantMessage:
		return new(AssistantMessage)
	case TypeToolCall:
		return new(ToolCall)
	case TypeToolResult:
		return new(ToolResult)
	case TypeRequestHeader:
		return new(RequestHeader)
	case TypeRequestContext:
		return new(RequestContext)
	case TypeLLMRetry:
		return new(LLMRetry)
	case TypeLLMRetryStarted:
		return new(LLMRetryStarted)
	case TypeCompactionStart:
		return new(CompactionStart)
	case TypeCompactionSummary:
		return new(CompactionSummary)
	case TypeCompactionEnd:
		return new(CompactionEnd)
	case TypeCompactionPrune:
		return new(CompactionPrune)
	case TypeSessionEndSeed:
		return new(SessionEndSeed)
	}
	return nil
}

// typedEventTypes are the event types with a Go payload.
var typedEventTypes = []string{
	TypeInboxSpliced, TypeTurnStart, TypeTurnEnd, TypeStepStart, TypeStepEnd, TypeUserMessage,
	TypeAssistantChunk, TypeAssistantMessage, TypeToolCall, TypeToolResult, TypeRequestHeader,
	TypeRequestContext, TypeLLMRetry, TypeLLMRetryStarted, TypeCompactionStart, TypeCompactionSummary,
	TypeCompactionEnd, TypeCompactionPrune, TypeSessionEndSeed,
}

// typedEventType returns the constant of a typed event type spelled as
// name, with no allocation.
func typedEventType(name []byte) (string, bool) {
	for _, t := range typedEventTypes {
		if string(name) == t {
			return t, true
		}
	}
	return "", false
}

// MarshalJSON writes inserted as [] rather than null when empty, as DSH does.
func (s InboxSpliced) MarshalJSON() ([]byte, error) {
	type plain InboxSpliced
	if s.Inserted == nil {
		s.Inserted = []UserMessage{}
	}
	return marshal(plain(s))
}
