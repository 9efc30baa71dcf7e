package oracle

import (
	"math"
	"slices"

	"github.com/turnsim/turnsim/loop/session"
)

// checkBackoff checks each llm/retry's delay against the formula's bounds
// for the policy its policyKey names (or the provider's Retry-After), and
// the wait before its retry started: with run facts (exact virtual times)
// exactly delayMs; in a real log, whose clock fires timers late but never
// early, not less than delayMs (to the whole millisecond). Logs whose
// times were normalized away (DSH's fixtures, all 0) carry no wait.
func checkBackoff(events []session.Event, facts *Facts) []Violation {
	r := &reporter{id: BackoffHonoured}
	exact := facts != nil && len(facts.TimeNs) == len(events)
	timed := exact
	if !timed {
		for i := range events {
			if events[i].Time != 0 {
				timed = true
				break
			}
		}
	}
	for i := range events {
		p, ok := events[i].Data.(*session.LLMRetry)
		if !ok {
			continue
		}
		pol, err := parsePolicyKey(p.PolicyKey)
		if err != nil {
			continue // log-well-formed's business
		}
		seq := events[i].Seq
		if ra := p.Failure.ProviderRetryAfterMs; ra != nil && *ra > 0 && *ra <= pol.max {
			if p.DelayMs != *ra {
				r.add(p.Turn, p.Step, []int64{seq}, "delayMs %v, but the provider's Retry-After %v is within the cap and is used exactly", p.DelayMs, *ra)
			}
		} else if lo, hi := delayBounds(pol, p.Retry); p.DelayMs < lo || p.DelayMs > hi {
			r.add(p.Turn, p.Step, []int64{seq}, "delayMs %v is outside [%v, %v], what %s allows for retry %d", p.DelayMs, lo, hi, p.PolicyKey, p.Retry)
		}
		for j := i + 1; j < len(events); j++ {
			st, ok := events[j].Data.(*session.LLMRetryStarted)
			if !ok || st.RetryID != p.RetryID || st.Retry != p.Retry {
				continue
			}
			switch {
			case !timed:
			case exact:
				waited := facts.TimeNs[j] - facts.TimeNs[i]
				if want := int64(math.Round(p.DelayMs * 1e6)); waited != want {
					r.add(p.Turn, p.Step, []int64{seq, events[j].Seq}, "retry %d started %v ns after its llm/retry, want exactly %v ns (delayMs %v)", p.Retry, waited, want, p.DelayMs)
				}
			default:
				if waited := float64(events[j].Time - events[i].Time); waited < math.Floor(p.DelayMs)-1 {
					r.add(p.Turn, p.Step, []int64{seq, events[j].Seq}, "retry %d started %v ms after its llm/retry, before its delay of %v ms", p.Retry, waited, p.DelayMs)
				}
			}
			break
		}
	}
	return r.out
}

// delayBounds is what SPEC 3.5 allows for retry n over every random sample
// in [0,1].
func delayBounds(p keyPolicy, n int) (lo, hi float64) {
	exponential := math.Min(p.initial*math.Pow(2, math.Min(float64(n-1), 1024)), p.max)
	return math.Min(exponential*(1-p.ratio), p.max), math.Min(exponential*(1+p.ratio), p.max)
}

// checkNonRetryable: a normal-mode llm/retry only answers a failure whose
// code its own policy lists.
func checkNonRetryable(events []session.Event) []Violation {
	r := &reporter{id: NonRetryableStaysTerminal}
	for i := range events {
		p, ok := events[i].Data.(*session.LLMRetry)
		if !ok || p.Mode != "normal" {
			continue
		}
		pol, err := parsePolicyKey(p.PolicyKey)
		if err != nil {
			continue
		}
		if !slices.Contains(pol.codes, p.Failure.Code) {
			r.add(p.Turn, p.Step, []int64{events[i].Seq}, "a normal-mode policy retried %s, which its retryable codes %v do not list", p.Failure.Code, pol.codes)
		}
	}
	return r.out
}
