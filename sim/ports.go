package sim

import (
	"math/rand/v2"
	"strconv"
)

// counterIDs gives readable ids: retry-1, compaction-1, message-1, …
type counterIDs struct {
	next map[string]int
	// names are the worker's names made before (nil: none kept).
	names *names
}

func (c *counterIDs) NewID(kind string) string {
	if c.next == nil {
		c.next = map[string]int{}
	}
	c.next[kind]++
	n := c.next[kind]
	return c.names.of(nameKey{kind, "", n}, func() string { return kind + "-" + strconv.Itoa(n) })
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
	h := uint64(14695981039346656037) // FNV-1a of the name
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return rand.New(rand.NewPCG(seed, h))
}
