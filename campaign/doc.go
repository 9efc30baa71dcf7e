// Package campaign runs seeded fault-injection campaigns: a range of seeds
// (or a stretch of time), each drawn into a configuration and a fault
// plan, run in the deterministic world and checked by the oracle; the
// corpus replayed first; a share of seeds run twice to check they
// reproduce byte for byte; every failure shrunk to a 1-minimal plan and
// kept as one corpus entry per distinct (invariant, shrunk plan).
//
// It has two faces. [Run] is what 'simrun run' prints from, seed by seed,
// on several workers, sharded across processes ([Shard]). [Check] is the
// same campaign from go test, in the style of rapid: it replays the
// calling package's testdata/turnsim entries, runs the seeds, and fails
// the test with one failure — the first, shrunk, with its plan, its
// reproduction lines and its corpus entry — and a count of the others.
//
//	func TestMyListener(t *testing.T) {
//		campaign.Check(t, campaign.Listeners(mylistener.Plugin()))
//	}
//
// The same seed gives the same shrunk plan from both faces.
package campaign
