package faults

import (
	"math/rand"
	randv2 "math/rand/v2"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// stream is a named random stream split off the seed, as the parameters
// gopter's generators draw from: PCG underneath, no global source, no time.
// The parameters are built once per stream; gopter's defaults would seed a
// new math/rand source on every draw.
func stream(seed uint64, name string) *gopter.GenParameters {
	h := uint64(14695981039346656037) // FNV-1a of the name
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return &gopter.GenParameters{MaxSize: 100, MaxShrinkCount: 1000, Rng: rand.New(pcgSource{randv2.NewPCG(seed, h)})}
}

type pcgSource struct{ *randv2.PCG }

func (s pcgSource) Int63() int64 { return int64(s.Uint64() >> 1) }
func (s pcgSource) Seed(int64)   {} // streams are seeded once, by name

// draw samples one value of a gopter generator from a stream.
// intRange is gen.IntRange without its reflection-driven Map to int: the
// same draw (IntRange is Int64Range mapped, and nothing of the mapping
// touches the stream; TestDrawsUnchanged pins that), without a reflected
// call per value. Draw it with drawInt.
func intRange(lo, hi int) gopter.Gen { return gen.Int64Range(int64(lo), int64(hi)) }

func drawInt(rng *gopter.GenParameters, g gopter.Gen) int { return int(draw[int64](rng, g)) }

func draw[T any](rng *gopter.GenParameters, g gopter.Gen) T {
	v, ok := g(rng).Retrieve()
	if !ok {
		panic("faults: a generator gave no value") // generators here have no filters
	}
	return v.(T)
}
