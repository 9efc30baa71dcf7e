package oracle

// Finding is a violation found in what a system other than turnsim's
// model made of a log (DSH's own view code, package dshview), with the
// recorded finding about that system that explains it: Class names it,
// or is "" for a violation no recorded finding explains (a new finding,
// which fails a run as any violation does).
type Finding struct {
	Class string `json:"class,omitempty"`
	Violation
	// Where is what it was seen in ("the whole log", "the tail window
	// from seq 4 to seq 9").
	Where string `json:"where"`
}
