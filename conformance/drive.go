package conformance

// Applied is one input or world action as the driver applied it to DSH.
type Applied struct {
	// Field is the scenario field it came from: inputs[i] or world[i].
	Field string `json:"field"`
	What  string `json:"what"`
	// BeforeSeq is the seq of the first event the driver had not yet
	// received when it made the call: where the action landed, as far as
	// the driver can tell (exact when it lands inside a wait).
	BeforeSeq int64 `json:"beforeSeq"`
	// AtMs is the real time of the call, from the start of the drive.
	AtMs float64 `json:"atMs"`
	// Error is the host's refusal, if any.
	Error string `json:"error,omitempty"`
}

// Drive is what driving a scenario against DSH did.
type Drive struct {
	SessionID string    `json:"sessionId"`
	Applied   []Applied `json:"applied"`
	// Unfired are the fields whose trigger never fired.
	Unfired []string `json:"unfired,omitempty"`
	// AgentErrors are the host's host/agent-error frames for the session:
	// DSH's live agent/error (a turn that ended in error, or a failure
	// the loop could not even log).
	AgentErrors []string `json:"agentErrors,omitempty"`
	// Running is the session's last status: still running when the drive
	// ended means the agent never went idle.
	Running bool `json:"running"`
	// OpenTurns are the turns still open when the drive ended: turns
	// DSH's log never closes, its agent idle.
	OpenTurns int `json:"openTurns,omitempty"`
	// Events is how many of the session's events the stream delivered.
	Events int `json:"events"`
	// ElapsedMs is the drive's real duration.
	ElapsedMs float64 `json:"elapsedMs"`
}
