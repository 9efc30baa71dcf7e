package session

// LlmFailure is DSH's failure record (docs/dsh.md#llmfailure): a non-empty
// message and code, and optionally the HTTP status, the provider's
// Retry-After in milliseconds and the provider's request id. The code set
// is open: any non-empty string is a code.
type LlmFailure struct {
	Message              string   `json:"message"`
	Code                 string   `json:"code"`
	Status               *int     `json:"status,omitempty"`
	ProviderRetryAfterMs *float64 `json:"providerRetryAfterMs,omitempty"`
	RequestID            string   `json:"requestId,omitempty"`
}

// ValidStatus says whether n can be a failure's HTTP status: the oracle
// refuses any other in a log, so every input that sets one refuses it
// first, as an input error rather than a violation found later.
func ValidStatus(n int) bool { return n >= 100 && n <= 599 }

// Cause is why a turn was aborted: user, parent, hook (with a reason),
// disposed, or legacy (only produced by the v0→v1 edge).
type Cause struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason,omitempty"`
}

// Cause kinds.
const (
	CauseUser     = "user"
	CauseParent   = "parent"
	CauseHook     = "hook"
	CauseDisposed = "disposed"
	CauseLegacy   = "legacy"
)

// TurnEndReason is the reason of a turn/end (docs/dsh.md#turn-end-reasons).
// Cause is set for kind aborted, Error for kind error.
type TurnEndReason struct {
	Kind  string      `json:"kind"`
	Cause *Cause      `json:"reason,omitempty"`
	Error *LlmFailure `json:"error,omitempty"`
}

// Turn end reason kinds.
const (
	EndCompleted   = "completed"
	EndMaxTokens   = "max-tokens"
	EndBlocked     = "blocked"
	EndAborted     = "aborted"
	EndError       = "error"
	EndInterrupted = "interrupted"
)
