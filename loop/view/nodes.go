package view

import (
	"fmt"
	"math"

	"github.com/turnsim/turnsim/loop/session"
)

// TurnError is the node of a turn that ended with an error. Seq and Time
// are the turn/end's; Step is the step of the turn that first appears
// last within the events given (as DSH reads it: see Deriver), or 0.
type TurnError struct {
	Seq     int64  `json:"seq"`
	Time    int64  `json:"time"`
	Turn    int    `json:"turn"`
	Step    int    `json:"step"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// Text is the rendered status: "This turn failed · message · code".
func (n TurnError) Text() string {
	if n.Code == "" {
		return "This turn failed · " + n.Message
	}
	return "This turn failed · " + n.Message + " · " + n.Code
}

// AttemptState is the state of one scheduled retry.
type AttemptState string

// Attempt states. Cancelled is a view state: the last attempt is still
// scheduled but its step or turn has closed.
const (
	Scheduled AttemptState = "scheduled"
	Started   AttemptState = "started"
	Cancelled AttemptState = "cancelled"
)

// RetryAttempt is one llm/retry of a chain with its state.
type RetryAttempt struct {
	Seq        int64              `json:"seq"`
	Time       int64              `json:"time"`
	Retry      int                `json:"retry"`
	MaxRetries *int               `json:"maxRetries,omitempty"`
	Mode       string             `json:"mode"`
	DelayMs    float64            `json:"delayMs"`
	Failure    session.LlmFailure `json:"failure"`
	State      AttemptState       `json:"state"`
}

// ModelRetry is the node of one retry chain, anchored at its first attempt.
// The last attempt's State is its view state.
type ModelRetry struct {
	Seq      int64          `json:"seq"`
	Time     int64          `json:"time"`
	RetryID  string         `json:"retryId"`
	Turn     int            `json:"turn"`
	Step     int            `json:"step"`
	Attempts []RetryAttempt `json:"attempts"`
}

// Current is the chain's last attempt.
func (n ModelRetry) Current() RetryAttempt { return n.Attempts[len(n.Attempts)-1] }

// Label is the English row label "{label} ({retry}/{maximum}) · {seconds}s"
// (docs/dsh.md#retry-row). A live countdown starts from the full delay, so
// an active row shows the same seconds as a settled one.
func (n ModelRetry) Label() string {
	cur := n.Current()
	var label string
	switch cur.State {
	case Scheduled:
		label = "Retrying model request"
	case Cancelled:
		label = "Model request retry cancelled"
	default:
		label = "Retried model request"
	}
	maximum := "∞"
	if cur.Mode != "always" && cur.MaxRetries != nil {
		maximum = fmt.Sprint(*cur.MaxRetries)
	}
	return fmt.Sprintf("%s (%d/%s) · %ds", label, cur.Retry, maximum, displaySeconds(cur.DelayMs))
}

// Details are the expandable lines of the row. The failure message is shown
// raw, as DSH does (a display-safety gap:
// docs/dsh.md#display-safe-message).
func (n ModelRetry) Details() []string {
	cur := n.Current()
	return []string{
		fmt.Sprintf("Retry delay: %dms", int64(math.Round(cur.DelayMs))),
		"Failure reason: " + cur.Failure.Message,
	}
}

func displaySeconds(delayMs float64) int {
	return max(1, int(math.Ceil(delayMs/1000)))
}

// DisplayFailureMessage is the message DSH shows for a failure: never the
// raw provider text for AUTH, which may echo a key.
func DisplayFailureMessage(f *session.LlmFailure) string {
	if f.Code == "AUTH" {
		return "API key is invalid"
	}
	return f.Message
}

// Nodes are the derived nodes, each list in seq order.
type Nodes struct {
	TurnErrors   []TurnError  `json:"turnErrors"`
	ModelRetries []ModelRetry `json:"modelRetries"`
}
