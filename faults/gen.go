package faults

import (
	"fmt"
	"math"
	"math/rand"
	randv2 "math/rand/v2"
	"sort"
)

// The generators a seed's draw is made of. They draw exactly what
// gopter's gen package draws from the same stream (Weighted, OneConstOf,
// Int64Range, UInt64Range, Float64Range, Bool and Const, as of gopter
// v0.2.11; TestDrawsUnchanged pins the plans of 2,000 seeds), written
// here so that a binary that draws plans does not link gopter, whose
// root package imports testing: gopter stays in the tests, where its
// properties and state machines run.

// A randStream is a named random stream of a seed (stream).
type randStream struct {
	Rng *rand.Rand // &rng
	rng rand.Rand
	pcg randv2.PCG
}

// A generator draws one value from a stream.
type generator func(*randStream) any

// weightedGen is a generator and its weight.
type weightedGen struct {
	Weight int
	Gen    generator
}

// nextUint64 is two 63-bit draws folded into 64 bits, as gopter's
// GenParameters.NextUint64.
func (s *randStream) nextUint64() uint64 {
	first := uint64(s.Rng.Int63())
	second := uint64(s.Rng.Int63())
	return (first << 1) ^ second
}

// constant draws nothing and gives v.
func constant(v any) generator { return func(*randStream) any { return v } }

// weighted picks one generator with a chance in proportion to its weight.
func weighted(gens []weightedGen) generator {
	if len(gens) == 0 {
		panic("faults: weighted of no generator")
	}
	total, cumulative := 0, make([]int, 0, len(gens))
	for _, g := range gens {
		if g.Weight <= 0 {
			panic("faults: a weight must be positive")
		}
		total += g.Weight
		cumulative = append(cumulative, total)
	}
	return func(s *randStream) any {
		return gens[sort.SearchInts(cumulative, 1+s.Rng.Intn(total))].Gen(s)
	}
}

// oneConstOf picks one of vs, each as likely.
func oneConstOf(vs ...any) generator {
	if len(vs) == 0 {
		panic("faults: oneConstOf of nothing")
	}
	return func(s *randStream) any { return vs[s.Rng.Intn(len(vs))] }
}

// int64Range draws from [lo, hi]. The whole int64 range, which gopter
// draws another way, is refused: no draw here needs it.
func int64Range(lo, hi int64) generator { return newInt64s(lo, hi).gen }

// uint64Range draws from [lo, hi]. The whole uint64 range is refused, as
// int64Range's.
func uint64Range(lo, hi uint64) generator { return newUint64s(lo, hi).gen }

// float64Range draws from [lo, hi).
func float64Range(lo, hi float64) generator { return newFloat64s(lo, hi).gen }

// int64s, uint64s and float64s are the ranges themselves: their draw
// gives the value as it is, where a generator boxes it (a draw of a plan
// made an allocation a number); the generators are their draws boxed.
type (
	int64s   struct{ lo, size uint64 }
	uint64s  struct{ lo, size uint64 }
	float64s struct{ lo, d float64 }
)

func newInt64s(lo, hi int64) int64s {
	size := uint64(hi - lo + 1)
	if hi < lo || size == 0 {
		panic(fmt.Sprintf("faults: int64Range(%d, %d)", lo, hi))
	}
	return int64s{uint64(lo), size}
}

func (r int64s) draw(s *randStream) int64 { return int64(r.lo + s.nextUint64()%r.size) }
func (r int64s) gen(s *randStream) any    { return r.draw(s) }

// ints is an int range, as intRange's.
func ints(lo, hi int) int64s { return newInt64s(int64(lo), int64(hi)) }

// drawInt is an int of the range.
func (r int64s) drawInt(s *randStream) int { return int(r.draw(s)) }

func newUint64s(lo, hi uint64) uint64s {
	size := hi - lo + 1
	if hi < lo || size == 0 {
		panic(fmt.Sprintf("faults: uint64Range(%d, %d)", lo, hi))
	}
	return uint64s{lo, size}
}

func (r uint64s) draw(s *randStream) uint64 { return r.lo + s.nextUint64()%r.size }
func (r uint64s) gen(s *randStream) any     { return r.draw(s) }

func newFloat64s(lo, hi float64) float64s {
	d := hi - lo
	if !(d >= 0) || math.IsInf(d, 0) {
		panic(fmt.Sprintf("faults: float64Range(%v, %v)", lo, hi))
	}
	return float64s{lo, d}
}

func (r float64s) draw(s *randStream) float64 { return r.lo + s.Rng.Float64()*r.d }
func (r float64s) gen(s *randStream) any      { return r.draw(s) }

// boolean draws true or false, each as likely.
func boolean() generator {
	return func(s *randStream) any { return s.Rng.Int63()&1 == 0 }
}
