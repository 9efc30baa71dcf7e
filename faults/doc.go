// Package faults draws seeded fault-injection runs: from a seed, a
// complete [Config] (the retry policy, listener order, compaction
// settings, which fault kinds are enabled and at what rates, the
// workload) and a fault plan, which is an ordinary sim.Scenario. A
// generated case is therefore a scenario file that 'simrun scenario'
// replays exactly.
//
// Draws come from named streams split off the seed ("config", "workload",
// "faults", "world", and the scenario's "jitter"), sampled through
// generators that draw as gopter's do (gen.go), so that changing one part
// of a draw does not reshuffle the rest. Swarm testing: each seed enables its own subset of fault kinds;
// some seeds have none, some all.
//
// [DrawFor] draws for a system under test that can enact only part of
// what the model can (a [Planner]: DSH's own loop). Drawing is all the
// package does: a drawn plan is run and checked by package judge, and a
// failing one shrunk and kept in the corpus by package campaign.
package faults
