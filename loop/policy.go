package loop

// RetryPolicy is a provider route's resolved retry policy
// (docs/dsh.md#retry-config). It is data: loop/retry parses it from DSH's
// configuration and acts on it.
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
	// Settle, when set, replaces DSH's rule
	// (docs/dsh.md#after-the-waterfall) for what follows the request-error
	// waterfall (see SettleRule).
	Settle SettleRule
	// Attempts, when set, replaces the step's attempt path (RunAttempts).
	Attempts AttemptPath
	// RuntimeContext, when set, is the runtime context DSH's system-prompt
	// composition renders for every step; the loop projects it onto the
	// surface as a user message whenever it is not the one retained
	// (RuntimeContextProjection). Nil: a bare loop, as DSH's own loop
	// tests compose it, with no snapshot.
	RuntimeContext *RuntimeContext
	// Disposal is the rule a disposal follows (DisposalSPEC unless set).
	Disposal DisposalRule
	// Yield, when set, is called where DSH's driver first awaits in a turn
	// (the system prompt's assembly after a step's claim): the world lands
	// there what waits behind the send that started the driver.
	Yield func()
	// Memory, when set, is one worker's memory the agent reuses from the
	// worker's agent before it (Memory).
	Memory *Memory
}

// DisposalRule is what a disposal stops.
type DisposalRule int

const (
	// DisposalSPEC, named for the written account of DSH that turnsim's
	// model follows (docs/dsh.md): a disposed agent refuses inputs, and a
	// wake that lands after disposal began never starts a driver
	// (docs/dsh.md#disposal).
	DisposalSPEC DisposalRule = iota
	// DisposalRC8 is DSH 0.1.0-rc.8's (and 0.1.1-rc.2's): disposal is the
	// agent's lifecycle's, which cancels with cause disposed, waits for
	// idle and only then takes the agent out of the registries; the agent
	// itself keeps no disposed state. So an input that reaches it while
	// the disposed turn still runs is taken (a steer then goes to the next
	// turn, as after any abort, and waits there); and a send under way when
	// disposal began (an observer of its splice disposed the agent) still
	// wakes it: while idle that starts a driver, whose turn finds the inbox
	// cleared and ends with no step. (Found by --sut both; the version fact
	// is in docs/dsh-loop.md.)
	DisposalRC8
)
