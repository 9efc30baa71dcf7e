package faults

import (
	randv2 "math/rand/v2"
)

// stream is a named random stream split off the seed: PCG underneath, no
// global source, no time. A stream is built once and drawn from in order.
func stream(seed uint64, name string) *randStream {
	// One allocation a stream: the generator, its source and its state
	// live in the stream (a run draws from several).
	s := &randStream{}
	seedStream(s, seed, name)
	return s
}

type pcgSource struct{ *randv2.PCG }

func (s pcgSource) Int63() int64 { return int64(s.Uint64() >> 1) }
func (s pcgSource) Seed(int64)   {} // streams are seeded once, by name

// intRange draws an int from [lo, hi] (as an int64: drawInt converts).
func intRange(lo, hi int) generator { return int64Range(int64(lo), int64(hi)) }

func drawInt(rng *randStream, g generator) int { return int(draw[int64](rng, g)) }

// draw samples one value of type T from a stream.
func draw[T any](rng *randStream, g generator) T { return g(rng).(T) }
