package faults

import (
	"math"
	"math/rand"
	randv2 "math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
)

// TestGeneratorsRefuseWhatTheyCannotDraw: a range that is empty, inverted
// or whole (gopter draws the whole range another way) panics when it is
// built, rather than drawing outside it.
func TestGeneratorsRefuseWhatTheyCannotDraw(t *testing.T) {
	for name, build := range map[string]func(){
		"an inverted int64 range":  func() { int64Range(5, 3) },
		"the whole int64 range":    func() { int64Range(math.MinInt64, math.MaxInt64) },
		"an inverted uint64 range": func() { uint64Range(5, 3) },
		"the whole uint64 range":   func() { uint64Range(0, math.MaxUint64) },
		"an inverted float range":  func() { float64Range(1, 0) },
		"one of nothing":           func() { oneConstOf() },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: built without a panic", name)
				}
			}()
			build()
		}()
	}
}

// TestGeneratorsDrawAsGopter: each generator of gen.go draws, from the same
// stream, what its gopter counterpart draws, value for value and in the
// same consumption of the stream (the next draw after it agrees too).
// gopter is the reference: the seeds' plans were gopter's before a binary
// that draws them stopped linking it.
func TestGeneratorsDrawAsGopter(t *testing.T) {
	tests := []struct {
		name   string
		ours   generator
		theirs gopter.Gen
	}{
		{"a constant draws nothing", constant("x"), gen.Const("x")},
		{"weights of one, three and five", weighted([]weightedGen{{1, constant("a")}, {3, constant("b")}, {5, constant("c")}}),
			gen.Weighted([]gen.WeightedGen{{Weight: 1, Gen: gen.Const("a")}, {Weight: 3, Gen: gen.Const("b")}, {Weight: 5, Gen: gen.Const("c")}})},
		{"weights over ranges", weighted([]weightedGen{{3, int64Range(1, 50)}, {1, int64Range(51, 1000)}}),
			gen.Weighted([]gen.WeightedGen{{Weight: 3, Gen: gen.Int64Range(1, 50)}, {Weight: 1, Gen: gen.Int64Range(51, 1000)}})},
		{"one of four", oneConstOf(100, 1000, 5000, 20000), gen.OneConstOf(100, 1000, 5000, 20000)},
		{"a small int64 range", int64Range(0, 2), gen.Int64Range(0, 2)},
		{"a negative int64 range", int64Range(-7, 7), gen.Int64Range(-7, 7)},
		{"a uint64 range of 32 bits", uint64Range(0, math.MaxUint32), gen.UInt64Range(0, math.MaxUint32)},
		{"a float64 range", float64Range(0.1, 0.7), gen.Float64Range(0.1, 0.7)},
		{"a coin", boolean(), gen.Bool()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 200; seed++ {
				ours := &randStream{Rng: rand.New(pcgSource{randv2.NewPCG(seed, 7)})}
				theirs := &gopter.GenParameters{MaxSize: 100, Rng: rand.New(pcgSource{randv2.NewPCG(seed, 7)})}
				for i := 0; i < 20; i++ {
					want, _ := tt.theirs(theirs).Retrieve()
					if got := tt.ours(ours); got != want {
						t.Fatalf("seed %d draw %d: %v, gopter %v", seed, i, got, want)
					}
				}
				if a, b := ours.Rng.Int63(), theirs.Rng.Int63(); a != b {
					t.Fatalf("seed %d: the streams part after the draws (%d, %d): another consumption", seed, a, b)
				}
			}
		})
	}
}
