package budget

import (
	"math"
	"testing"

	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/sim"
)

// TestRecoveryBoundsOfTheDefaultPolicy: DSH's default (5 retries, 500 ms,
// cap 10 s, jitter 0.1) waits 500+1000+2000+4000+8000 = 15,500 ms ± 10%.
func TestRecoveryBoundsOfTheDefaultPolicy(t *testing.T) {
	lo, hi, ok := RecoveryBounds(retry.DefaultPolicy())
	if !ok || math.Abs(lo-13950) > 1e-6 || math.Abs(hi-17050) > 1e-6 {
		t.Errorf("bounds [%v, %v] (ok %v), want [13950, 17050]", lo, hi, ok)
	}
}

// TestWilson: known values, and the interval holds its point estimate.
func TestWilson(t *testing.T) {
	tests := []struct {
		why    string
		k, n   int
		lo, hi float64
	}{
		{"none in 100: the interval still reaches 3.7%", 0, 100, 0, 0.0370},
		{"half of 100", 50, 100, 0.4038, 0.5962},
		{"all of 10: the interval does not pass 1", 10, 10, 0.7225, 1},
	}
	for _, tt := range tests {
		lo, hi := wilson(float64(tt.k), float64(tt.n), 1.96)
		if math.Abs(lo-tt.lo) > 1e-4 || math.Abs(hi-tt.hi) > 1e-4 {
			t.Errorf("%s: [%.4f, %.4f], want [%.4f, %.4f]", tt.why, lo, hi, tt.lo, tt.hi)
		}
	}
}

// TestRecoveryBoundsOfAHugeBudget: a budget of any safe integer (DSH's
// bound) gives its bounds at once (they were summed term by term, and
// 2^53−1 retries never finished), equal to the term-by-term sums.
func TestRecoveryBoundsOfAHugeBudget(t *testing.T) {
	p := retry.DefaultPolicy()
	termByTerm := func(n int) (lo, hi float64) {
		for k := 1; k <= n; k++ {
			e := math.Min(p.InitialDelayMs*math.Pow(2, float64(min(k-1, 1024))), p.MaxDelayMs)
			lo += math.Min(e*(1-p.JitterRatio), p.MaxDelayMs)
			hi += math.Min(e*(1+p.JitterRatio), p.MaxDelayMs)
		}
		return lo, hi
	}
	for _, n := range []int{10_000, 10_001, 20_000} {
		p.MaxRetries = n
		lo, hi, _ := RecoveryBounds(p)
		wantLo, wantHi := termByTerm(n)
		if math.Abs(lo-wantLo) > 1e-9*wantLo || math.Abs(hi-wantHi) > 1e-9*wantHi {
			t.Errorf("%d retries: [%v, %v], term by term [%v, %v]", n, lo, hi, wantLo, wantHi)
		}
	}
	p.MaxRetries = 1<<53 - 1
	lo, hi, _ := RecoveryBounds(p) // at once
	_, hi10k := termByTerm(10_000)
	if want := hi10k + float64(p.MaxRetries-10_000)*p.MaxDelayMs; math.Abs(hi-want) > 1e-9*want || !(lo > 0 && lo <= hi) {
		t.Errorf("2^53−1 retries: [%v, %v], want hi %v", lo, hi, want)
	}
}

// TestRecoveryHistogram: the recovery histogram holds every turn that had
// a failure, in 20 bins.
func TestRecoveryHistogram(t *testing.T) {
	env := &Environment{Failures: []Failure{{Code: "SERVER", Status: 503, P: 0.3}}}
	r := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: env}, 1, 2000)
	failing := r.Turns - r.Attempts[1]
	sum := 0
	for _, b := range r.RecoveryHistogram {
		sum += b.Count
	}
	if sum != failing || len(r.RecoveryHistogram) != 20 {
		t.Errorf("histogram of %d bins holds %d turns, want %d", len(r.RecoveryHistogram), sum, failing)
	}
}
