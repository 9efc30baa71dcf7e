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
package faults
