// Package explore enumerates fault plans instead of drawing them: every
// plan of at most K faults over the choice points of a bounded workload
// (one turn, two steps), each run in the deterministic world and checked
// by the oracle. Where the seeded search of package campaign finds a bug
// with high probability, exploration promises every schedule within the
// bound.
//
// A fault is one of a fixed alphabet (alphabet.go) placed at a choice
// point of the run it extends (points.go): a request's answer replaced by
// a failure, a summarizer's answer replaced, or a world action — a
// cancel, a disposal, a late message — right after an append or inside
// the virtual time that follows it. Plans grow one fault at a time, each
// new fault at or after the last one (explore.go), so a plan is generated
// once, whatever the order its faults were chosen in. Two plans whose runs
// write the same log and send the same requests reach the same state;
// only one of them is extended.
package explore
