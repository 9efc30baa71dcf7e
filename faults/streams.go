package faults

import (
	"math/rand"
	randv2 "math/rand/v2"

	"github.com/leanovate/gopter"
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
func draw[T any](rng *gopter.GenParameters, g gopter.Gen) T {
	v, ok := g(rng).Retrieve()
	if !ok {
		panic("faults: a generator gave no value") // generators here have no filters
	}
	return v.(T)
}
