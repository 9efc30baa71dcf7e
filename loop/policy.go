package loop

// RetryPolicy is a provider route's resolved retry policy (SPEC 3.1). It is
// data: loop/retry parses it from DSH's configuration and acts on it.
type RetryPolicy struct {
	Mode           string // "normal" or "always"
	MaxRetries     int    // normal mode only
	RetryableCodes []string
	InitialDelayMs float64
	MaxDelayMs     float64
	JitterRatio    float64
}

// Retry policy modes.
const (
	ModeNormal = "normal"
	ModeAlways = "always"
)

// Route is a provider's registration: a provider without one has no
// adapter, and its requests fail with NO_ADAPTER.
type Route struct {
	// RetryPolicy is nil when the route registered none.
	RetryPolicy *RetryPolicy
	// ContextWindow is reported in request/context when non-zero.
	ContextWindow int
}

// Target is where requests go.
type Target struct {
	Provider string
	Model    string
}

// Config configures an Agent.
type Config struct {
	Target    Target
	MaxTokens int
	// Routes are the registered providers, by name.
	Routes map[string]*Route
	// RequestHook, when set, may reroute each attempt (DSH's agent/request
	// waterfall): it returns the target of the attempt.
	RequestHook func(turn, step, attempt int, t Target) Target
	// Settle, when set, replaces SPEC 2.7's rule for what follows the
	// request-error waterfall (see SettleRule).
	Settle SettleRule
	// Attempts, when set, replaces the step's attempt path (RunAttempts).
	Attempts AttemptPath
	// RuntimeContext, when set, is the runtime context DSH's system-prompt
	// composition renders for every step; the loop projects it onto the
	// surface as a user message whenever it is not the one retained
	// (RuntimeContextProjection). Nil: a bare loop, as DSH's own loop
	// tests compose it, with no snapshot.
	RuntimeContext *RuntimeContext
}
