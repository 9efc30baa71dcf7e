package retry

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
)

// Key is the policy's policyKey (docs/dsh.md#policykey): a compact JSON
// array with JS number formatting, codes sorted by code unit:
//
//	["normal",maxRetries,codes,initialDelayMs,maxDelayMs,jitterRatio]
//	["always",initialDelayMs,maxDelayMs,jitterRatio]
//
// It is written by hand, into memory on the stack, as encoding/json writes
// the array (FuzzKey holds the two equal): every handled failure asks for
// its key, and reflection made it half a dozen allocations.
func Key(p *loop.RetryPolicy) string {
	var buf [256]byte
	b := append(buf[:0], '[')
	if p.Mode == loop.ModeAlways {
		b = session.AppendString(b, loop.ModeAlways)
	} else {
		b = session.AppendString(b, loop.ModeNormal)
		b = strconv.AppendInt(append(b, ','), int64(p.MaxRetries), 10)
		// Sorted in a copy: on the stack for the codes a policy has.
		var codesBuf [16]string
		codes := append(codesBuf[:0], p.RetryableCodes...)
		slices.Sort(codes) // Go compares strings bytewise: UTF-8 order, code unit order for these codes
		b = append(b, ',')
		if p.RetryableCodes == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i, c := range codes {
				if i > 0 {
					b = append(b, ',')
				}
				b = session.AppendString(b, c)
			}
			b = append(b, ']')
		}
	}
	for _, f := range []float64{p.InitialDelayMs, p.MaxDelayMs, p.JitterRatio} {
		b = appendNumber(append(b, ','), f)
	}
	return string(append(b, ']'))
}

// appendNumber writes f as encoding/json does: the shortest decimal that
// reads back as f, in exponent form below 1e-6 and from 1e21 on, with an
// exponent of at least two digits only past e±99 (e-07 becomes e-7). A
// NaN or an infinity has no JSON: a policy that passed validation has
// none, and one that has panics, as encoding/json's error did.
func appendNumber(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		panic(fmt.Sprintf("retry: a policy number %v has no JSON", f))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
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
