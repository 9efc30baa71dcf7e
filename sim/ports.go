package sim

import (
	"math/rand/v2"
	"strconv"
)

// counterIDs gives readable ids: retry-1, compaction-1, message-1, …
type counterIDs struct {
	// counts are the ids given of each kind; a run uses a few kinds, so
	// a list searched in order beats a map (and is reused from run to run).
	counts []idCount
	// names are the worker's names made before (nil: none kept).
	names *names
}

type idCount struct {
	kind string
	n    int
}

func (c *counterIDs) NewID(kind string) string {
	i := 0
	for i < len(c.counts) && c.counts[i].kind != kind {
		i++
	}
	if i == len(c.counts) {
		c.counts = append(c.counts, idCount{kind: kind})
	}
	c.counts[i].n++
	n := c.counts[i].n
	return c.names.of(nameKey{kind: kind, n: n}, func() string { return kind + "-" + strconv.Itoa(n) })
}

// cycle gives the scenario's random samples in order, cycled.
type cycle struct {
	samples []float64
	i       int
}

func (c *cycle) Float64() float64 {
	v := c.samples[c.i%len(c.samples)]
	c.i++
	return v
}

// Stream is a named random stream split off a seed: removing draws from one
// stream never shifts another's. It uses PCG with explicit seeds.
func Stream(seed uint64, name string) *rand.Rand {
	return rand.New(rand.NewPCG(seed, StreamHash(name)))
}

// StreamHash is the FNV-1a hash of a stream's name, the second word of
// its PCG seed: every named stream of a seed (the plan's too) is seeded
// by it.
func StreamHash(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}
