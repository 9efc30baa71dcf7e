// Package baseline is the harness a team would write without turnsim, kept
// to measure turnsim against: the loop on its goroutine driver
// (loop/realtime), github.com/benbjohnson/clock's Mock for time, a
// goroutine advancing the mock clock in steps until the run is over, and a
// third goroutine applying the plan's cancels, disposals and late inputs
// when their time comes or their event has been appended. It runs the same
// scenarios (workloads and fault plans) as the deterministic world, and
// checks the log with the same oracle.
//
// It is not part of turnsim's product: it exists for the side-by-side
// benchmark (make bench), which shows what the deterministic kernel buys —
// speed, and verdicts that do not change between two runs of one plan.
package baseline
