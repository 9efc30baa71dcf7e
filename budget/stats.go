package budget

import (
	"math"
	"slices"

	"github.com/turnsim/turnsim/loop"
)

// wilson is the Wilson score interval for k successes in nf trials at z
// standard normal deviations (1.96 for 95%); both may be fractional (an
// effective count, a count divided by a design effect). Unlike the normal
// approximation it stays inside [0,1] and is not empty at k = 0, which is
// where budgets live (exhaustion rates of 1e-4 and below).
func wilson(k, nf, z float64) (lo, hi float64) {
	if !(nf > 0) {
		return 0, 1
	}
	p := k / nf
	den := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return max(0, centre-half), min(1, centre+half)
}

// percentile is the nearest-rank q-quantile (q in [0,1]) of sorted values.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// RecoveryBounds is the least and the most virtual time a normal-mode
// policy can spend waiting in one step before it gives up: the sums, over
// retries 1 … maxRetries, of DSH's delay (docs/dsh.md#retry-delay) at
// jitter samples 0 and 1. Always mode has no bound (ok is false).
func RecoveryBounds(p *loop.RetryPolicy) (lo, hi float64, ok bool) {
	if p == nil {
		return 0, 0, true
	}
	if p.Mode != loop.ModeNormal {
		return 0, math.Inf(1), false
	}
	for n := 1; n <= p.MaxRetries; n++ {
		exponential := math.Min(p.InitialDelayMs*math.Pow(2, float64(min(n-1, 1024))), p.MaxDelayMs)
		termLo, termHi := math.Min(exponential*(1-p.JitterRatio), p.MaxDelayMs), math.Min(exponential*(1+p.JitterRatio), p.MaxDelayMs)
		if n > 10_000 && exponential == math.Min(p.InitialDelayMs*math.Pow(2, float64(min(n, 1024))), p.MaxDelayMs) {
			// Every term from here on is this one: the rest at once
			// (a budget may be any safe integer), the same sums as term by
			// term for the budgets anyone measures.
			rest := float64(p.MaxRetries - n + 1)
			return lo + rest*termLo, hi + rest*termHi, true
		}
		lo += termLo
		hi += termHi
	}
	return lo, hi, true
}

func sorted(xs []float64) []float64 {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// Bin is one bar of a histogram: the values in [Lo, Hi), the last bin
// closed.
type Bin struct {
	Lo, Hi float64
	Count  int
}

// histogram puts sorted values in n equal bins from 0 to the largest.
func histogram(sorted []float64, n int) []Bin {
	if len(sorted) == 0 {
		return nil
	}
	top := sorted[len(sorted)-1]
	if top <= 0 {
		return []Bin{{0, 0, len(sorted)}}
	}
	bins := make([]Bin, n)
	for i := range bins {
		bins[i] = Bin{Lo: top * float64(i) / float64(n), Hi: top * float64(i+1) / float64(n)}
	}
	for _, v := range sorted {
		i := min(int(v/top*float64(n)), n-1)
		bins[i].Count++
	}
	return bins
}
