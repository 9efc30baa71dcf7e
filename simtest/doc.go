// Package simtest runs a turnsim campaign from go test, in the style of
// rapid, as net/http/httptest serves net/http's tests: it replays the
// calling package's testdata/turnsim entries, runs the seeds, and fails
// the test with one failure — the first, shrunk, with its plan, its
// reproduction lines and its corpus entry — and a count of the others.
//
//	func TestMyListener(t *testing.T) {
//		simtest.Check(t, simtest.Listeners(mylistener.Plugin()))
//	}
//
// It registers the -sim.seed, -sim.runs, -sim.duration and -sim.mutant
// flags of the test binary (each with a SIM_* twin in the environment):
// a package of its own, so that a program that links the campaign engine
// (simrun) neither links package testing for it nor carries those flags.
// The same seed gives the same shrunk plan as 'simrun run'.
package simtest
