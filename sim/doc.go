// Package sim is turnsim's deterministic world: a virtual clock with an
// ordered queue of world actions, scripted ports (model, tools,
// summarizer, ids, random samples) and the choice points where the world
// acts on the agent under test, through its public API only.
//
// A run is a pure function of its inputs: [Run] of the same [Scenario]
// gives the same log, byte for byte, on any machine. Nothing here starts a
// goroutine, reads the wall clock or iterates a map into an output.
//
// Virtual time is instant: a backoff of ten seconds takes no wall time.
// [Clock.Sleep] advances virtual time to the earlier of its deadline and
// the next scheduled world action, applies that action, and returns early
// when the action cancelled the sleeper's context.
package sim
