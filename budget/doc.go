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
// Timeline says what each incident did). Config.Check runs the same from
// a test and fails it on an oracle violation or a broken bound;
// WritePage draws the reports side by side.
package budget
