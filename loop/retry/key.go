package retry

import (
	"math"
	"slices"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
)

// Key is the policy's policyKey (docs/dsh.md#policykey): a compact JSON
// array with JS number formatting, codes sorted by code unit:
//
//	["normal",maxRetries,codes,initialDelayMs,maxDelayMs,jitterRatio]
//	["always",initialDelayMs,maxDelayMs,jitterRatio]
func Key(p *loop.RetryPolicy) string {
	var v []any
	if p.Mode == loop.ModeAlways {
		v = []any{loop.ModeAlways, p.InitialDelayMs, p.MaxDelayMs, p.JitterRatio}
	} else {
		codes := slices.Clone(p.RetryableCodes)
		slices.Sort(codes) // Go compares strings bytewise: UTF-8 order, code unit order for these codes
		v = []any{loop.ModeNormal, p.MaxRetries, codes, p.InitialDelayMs, p.MaxDelayMs, p.JitterRatio}
	}
	b, err := session.Marshal(v)
	if err != nil {
		panic(err) // numbers and strings only
	}
	return string(b)
}

// Delay is the local backoff delay of retry number n with random sample r
// in [0,1] (docs/dsh.md#retry-delay), in DSH's order of IEEE operations.
// Each product is rounded explicitly (float64 conversions) so that no
// platform fuses a multiply-add.
func Delay(p *loop.RetryPolicy, n int, r float64) float64 {
	exponent := float64(min(n-1, 1024))
	exponential := math.Min(float64(p.InitialDelayMs*math.Pow(2, exponent)), p.MaxDelayMs)
	spread := float64(float64(2*p.JitterRatio) * r)
	jitter := float64(float64(1-p.JitterRatio) + spread)
	return math.Min(float64(exponential*jitter), p.MaxDelayMs)
}
