// Package campaign runs seeded fault-injection campaigns: a range of seeds
// (or a stretch of time), each drawn into a configuration and a fault
// plan, run in the deterministic world and checked by the oracle; the
// corpus replayed first; a share of seeds run twice to check they
// reproduce byte for byte; every failure shrunk to a 1-minimal plan and
// kept as one corpus entry per failure (the invariant, and the message
// but for its numbers), whatever paths the seeds took to it.
//
// [Run] is what 'simrun run' prints from, seed by seed, on several
// workers, sharded across processes ([Shard]). Package simtest runs the
// same campaign from go test (simtest.Check).
//
// The same seed gives the same shrunk plan from both faces.
//
// It owns what takes a failure to ground, for every face that finds one
// (simrun run, hunt, replay and shrink, go test): [Shrink] makes a failing
// plan 1-minimal and canonical, so that the seeds of one bug meet in one
// plan; an [Entry] keeps it in the corpus, and [LoadCorpus] reads the
// corpus back; [Coverage] counts what the runs exercised (--stats).
// Running and checking one plan is package judge's, which budget, explore
// and baseline use without any of this; drawing it is package faults'.
package campaign
