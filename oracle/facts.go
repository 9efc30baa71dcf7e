package oracle

// Facts are what a run knows beyond its log: the simulator fills them in,
// real logs have none. With facts, invariants take their exact forms.
type Facts struct {
	// TimeNs is each event's exact virtual time in nanoseconds, by index
	// (log times are whole milliseconds).
	TimeNs []int64
	// Actions are the world's cancels and disposals, as applied.
	Actions []Action
	// Decisions are the request-error listeners' answers, in order.
	Decisions []Decision
	// Inputs are the messages the world sent, with their ids.
	Inputs []Input
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

// Action is a world action applied before the event with seq Seq.
type Action struct {
	Seq   int64
	Kind  string // "cancel" or "dispose"
	Cause string
}

// Decision is one listener's answer to one failed attempt, given before
// the event with seq Seq.
type Decision struct {
	Seq      int64
	Listener string
	Retry    bool
	Threw    bool
}

// Input is a message the world gave to send, followup, steer or inject.
type Input struct {
	ID      string
	Refused bool // the agent refused it (disposed)
}
