package loop

import (
	"context"
	"fmt"
	"time"

	"github.com/turnsim/turnsim/loop/session"
)

// Clock is the loop's time port.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx is done: then it returns
	// context.Cause(ctx) at once. It returns nil when the wait completed.
	Sleep(ctx context.Context, d time.Duration) error
}

// Random gives samples in [0,1] (jitter).
type Random interface {
	Float64() float64
}

// IDs gives fresh ids: message ids, retry chain ids, compaction ids.
type IDs interface {
	NewID(kind string) string
}

// Id kinds.
const (
	IDMessage    = "message"
	IDRetry      = "retry"
	IDCompaction = "compaction"
)

// Model streams one request to a provider.
type Model interface {
	// Stream dispatches the request. An error is a failure before any
	// chunk.
	Stream(ctx context.Context, req *Request) (Stream, error)
}

// Stream is one response being streamed.
type Stream interface {
	// Next returns the next chunk, io.EOF after the last one, or the
	// failure the stream threw: an *LLMError, or any other error (code
	// UNKNOWN). When ctx is cancelled it returns context.Cause(ctx).
	Next(ctx context.Context) (session.StreamChunk, error)
}

// Request is what the loop sends for one attempt.
type Request struct {
	Turn, Step int
	Attempt    int // 1-based within the step
	Provider   string
	Model      string
	MaxTokens  int
	// Messages are the derived surface: the model-visible history, with
	// compaction replacements applied and failed attempts left out. They
	// are valid for the call and must not be modified.
	Messages []SurfaceNode
	// Tokens is the sum of the Messages' Tokens: the request's estimated
	// size, known without reading the history.
	Tokens int
	// Generation counts the surface's committed replacements when the
	// request was made. Of two requests with the same Generation, the
	// later one's Messages extend the earlier one's, so a port can keep
	// what it derives from a history and add only the new messages. A
	// port that rewrites Messages sets it to -1: unknown.
	Generation int
}

// ToolRunner runs one tool call.
type ToolRunner interface {
	Run(ctx context.Context, call ToolCall) ToolOutcome
}

// ToolCall is one call the model asked for.
type ToolCall struct {
	Turn, Step int
	ID         string
	Name       string
	Arguments  string
}

// ToolOutcome is a tool's result.
type ToolOutcome struct {
	Text    string
	IsError bool
}

// Ports are everything the loop waits on or takes from outside.
type Ports struct {
	Model  Model
	Clock  Clock
	Random Random
	IDs    IDs
	Tools  ToolRunner
}

// LLMError is a failure of a model request carrying DSH's LlmFailure. The
// adapter boundary turns it into an error finish chunk; a listener that
// returns one ends the turn with that failure.
type LLMError struct {
	Failure session.LlmFailure
}

func (e *LLMError) Error() string {
	return fmt.Sprintf("%s: %s", e.Failure.Code, e.Failure.Message)
}

// CancelError is the context cause of a cancelled turn.
type CancelError struct {
	Cause session.Cause
}

func (e *CancelError) Error() string {
	if e.Cause.Reason != "" {
		return "cancelled (" + e.Cause.Kind + ": " + e.Cause.Reason + ")"
	}
	return "cancelled (" + e.Cause.Kind + ")"
}
