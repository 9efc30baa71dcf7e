package oracle

// Facts are what a run knows beyond its log: the simulator fills them in,
// real logs have none. With facts, invariants take their exact forms.
type Facts struct {
	// TimeNs is each event's exact virtual time in nanoseconds, by index
	// (log times are whole milliseconds).
	TimeNs []int64
	// TimerResolutionNs is how finely the system's timers count, when
	// they count coarser than the nanosecond: a wait lasts its delay to
	// within it (DSH's own loop in Node: whole milliseconds). 0: exactly.
	TimerResolutionNs int64
	// Actions are the world's cancels and disposals, as applied.
	Actions []Action
	// Decisions are the request-error listeners' answers, in order.
	Decisions []Decision
	// Inputs are the messages the world sent, with their ids.
	Inputs []Input
	// Requests are the model requests the loop made, in order.
	Requests []Request
	// Waterfalls are the request-error waterfalls' settled answers (the
	// outermost listener's), in order.
	Waterfalls []Waterfall
	// Budgets are the most retries each installed listener may answer in
	// one step, by its name on the agent.
	Budgets []Budget
	// MaxOverflowRetries is compaction's bound; -1 when compaction is not
	// installed.
	MaxOverflowRetries int
	// IdleAfterDisposal is the log length when the agent went idle after a
	// disposal, or -1.
	IdleAfterDisposal int64
	// Stopped says why the world stopped the run early; Panic is a panic
	// of the system under test, with its stack.
	Stopped string
	Panic   string
}

// Action is a world action applied before the event with seq Seq, while
// turn Turn was open. Order places actions, requests and waterfalls in one
// sequence, which seqs cannot (a cancel inside a port call and the request
// that made the call share a seq).
type Action struct {
	Seq   int64
	Order int64
	// TimeNs is the virtual time it was applied at.
	TimeNs int64
	Turn   int
	Kind   string // "cancel" or "dispose"
	Cause  string
}

// Request is a call of the model port for attempt Attempt of a step.
// Messages are the seqs of the surface nodes it carried.
type Request struct {
	Seq, Order          int64
	Turn, Step, Attempt int
	Messages            []int64
}

// Waterfall is the answer the request-error waterfall of a failed attempt
// settled on: the outermost listener's retry (passed on or its own), or
// its throw.
type Waterfall struct {
	Seq, Order   int64
	Retry, Threw bool
}

// Decision is one listener's answer to one failed attempt, given before
// the event with seq Seq.
type Decision struct {
	Seq int64
	// Turn and Step are the failed attempt's.
	Turn, Step int
	Listener   string
	Retry      bool
	Threw      bool
}

// Input is a message the world gave to send, followup, steer or inject.
type Input struct {
	ID      string
	Refused bool // the agent refused it (disposed)
}

// Budget is the most retries a listener may answer in one step;
// MaxRetries < 0: no bound of its own.
type Budget struct {
	Listener   string
	MaxRetries int
}
