// Package budget measures what a retry policy buys under a fault
// environment: it runs turns in the deterministic world with failures
// drawn from the environment, checks each with the oracle, and reports
// exhaustion with its confidence interval, why turns failed, attempts per
// turn, virtual time spent in recovery and request amplification, beside
// the bounds that follow from the policy alone.
//
// An environment describes either one turn's provider (every turn its own
// world from 0 ms: Config.Run runs as many as asked) or, with a horizon,
// a stretch of virtual time: turns arrive over it, incidents arrive and
// last as a process over it, and each turn meets whatever is happening
// while its requests run (Config.Run runs the arrivals, and the report's
// Timeline says what each incident did). Config.Assess runs the same and
// says what fails: an oracle violation, a broken Bound
// (ExhaustionHi.Below(0.001)); budgettest.Check fails a test with it.
// Package budget/report draws the reports side by side.
//
// A configuration built in Go is held to what its files would be: every
// run method (Run, Turn, Assess, Trace, TraceTurn) first calls
// Config.Validate, which checks the policy as ParsePolicy does, the
// environment as ParseEnvironment does (Environment.Validate) and the
// listeners as the world does, and returns the loader's error for the
// same content; nothing runs on an error, and Check fails its test with
// it. Every duration an environment gives is within
// limits.Current.DurationMs (--max-duration-ms), a distribution by the
// most it can draw; a horizon is at most a year, a ceiling of its own.
package budget
