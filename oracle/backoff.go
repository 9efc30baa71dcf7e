package oracle

import (
	"math"
	"slices"

	"github.com/turnsim/turnsim/internal/arena"
	"github.com/turnsim/turnsim/loop/session"
)

// backoff checks each llm/retry's delay against the formula's bounds for
// the policy its policyKey names (or the provider's Retry-After), and the
// wait before its retry started: with run facts (exact virtual times)
// exactly delayMs; in a real log, whose clock fires timers late but never
// early, not less than delayMs (to the whole millisecond). Logs whose
// times were normalized away (DSH's fixtures, all 0) carry no wait: a
// wait that is too short counts only if some event of the log has a time.
type backoff struct {
	reporter
	// timeNs are the run's exact virtual times, by index; nil for a log
	// that has only its own millisecond times.
	timeNs []int64
	// resolutionNs is how finely the system's timers count (run facts'
	// TimerResolutionNs): a wait lasts its delay to within it.
	resolutionNs int64
	timed        bool
	// pending are the retries not started yet, by chain and number.
	pending map[retryRef][]pendingRetry
	// early are the waits too short found while every time so far was
	// 0: they count only if the log turns out timed. Kept as the few
	// numbers that make the report, since an untimed log has one per
	// retry.
	early []earlyStart
	// spare is the pending map, kept to be made again.
	spare map[retryRef][]pendingRetry
}

// earlyStart is a retry started before its delay in a log whose times
// were all 0 up to its start: it waited 0 ms.
type earlyStart struct {
	turn, step    int
	seq, startSeq int64
	retry         int
	delayMs       float64
}

type pendingRetry struct {
	index      int64
	seq, time  int64
	turn, step int
	retry      int
	delayMs    float64
}

func newBackoff(timeNs []int64, resolutionNs int64) *backoff {
	b := &backoff{}
	b.reset(timeNs, resolutionNs)
	return b
}

func (b *backoff) reset(timeNs []int64, resolutionNs int64) {
	clear(b.early)
	*b = backoff{reporter: b.reporter.reused(BackoffHonoured), timeNs: timeNs, resolutionNs: resolutionNs, timed: timeNs != nil,
		early: b.early[:0], spare: b.spare}
}

func timerResolution(f *Facts) int64 {
	if f == nil {
		return 0
	}
	return f.TimerResolutionNs
}

// event checks the event at index i.
func (b *backoff) event(i int64, e *session.Event) {
	if e.Time != 0 {
		b.timed = true
	}
	switch p := e.Data.(type) {
	case *session.LLMRetry:
		pol, err := parsePolicyKey(p.PolicyKey)
		if err != nil {
			return // log-well-formed's business
		}
		if ra := p.Failure.ProviderRetryAfterMs; ra != nil && *ra > 0 && *ra <= pol.max {
			if p.DelayMs != *ra {
				b.add(p.Turn, p.Step, []int64{e.Seq}, "delayMs %v, but the provider's Retry-After %v is within the cap and is used exactly", p.DelayMs, *ra)
			}
		} else if lo, hi := delayBounds(pol, p.Retry); p.DelayMs < lo || p.DelayMs > hi {
			b.add(p.Turn, p.Step, []int64{e.Seq}, "delayMs %v is outside [%v, %v], what %s allows for retry %d", p.DelayMs, lo, hi, p.PolicyKey, p.Retry)
		}
		ref := retryRef{p.RetryID, p.Retry}
		if b.pending == nil {
			b.pending = arena.Fresh(&b.spare)
		}
		b.pending[ref] = append(b.pending[ref], pendingRetry{index: i, seq: e.Seq, time: e.Time, turn: p.Turn, step: p.Step, retry: p.Retry, delayMs: p.DelayMs})
	case *session.LLMRetryStarted:
		ref := retryRef{p.RetryID, p.Retry}
		for _, r := range b.pending[ref] {
			b.waited(r, i, e)
		}
		delete(b.pending, ref)
	}
}

// waited checks the wait between a retry and its start at index j.
func (b *backoff) waited(r pendingRetry, j int64, started *session.Event) {
	if b.timeNs != nil {
		waited := b.timeNs[j] - b.timeNs[r.index]
		want := int64(math.Round(r.delayMs * 1e6))
		switch off := waited - want; {
		case b.resolutionNs == 0 && off != 0:
			b.add(r.turn, r.step, []int64{r.seq, started.Seq}, "retry %d started %v ns after its llm/retry, want exactly %v ns (delayMs %v)", r.retry, waited, want, r.delayMs)
		case b.resolutionNs > 0 && (off >= b.resolutionNs || off <= -b.resolutionNs):
			b.add(r.turn, r.step, []int64{r.seq, started.Seq}, "retry %d started %v ns after its llm/retry, want %v ns to within the timers' %v ns (delayMs %v)",
				r.retry, waited, want, b.resolutionNs, r.delayMs)
		}
		return
	}
	if waited := float64(started.Time - r.time); waited < math.Floor(r.delayMs)-1 {
		if !b.timed {
			b.early = append(b.early, earlyStart{r.turn, r.step, r.seq, started.Seq, r.retry, r.delayMs})
			return
		}
		b.reportEarly(earlyStart{r.turn, r.step, r.seq, started.Seq, r.retry, r.delayMs}, waited)
	}
}

func (b *backoff) reportEarly(s earlyStart, waited float64) {
	b.add(s.turn, s.step, []int64{s.seq, s.startSeq}, "retry %d started %v ms after its llm/retry, before its delay of %v ms", s.retry, waited, s.delayMs)
}

// done adds the early starts of a log's untimed beginning if the log
// turned out timed.
func (b *backoff) done() []Violation {
	if b.timed {
		for _, s := range b.early {
			b.reportEarly(s, 0)
		}
	}
	return b.out
}

// delayBounds is what DSH's delay formula (docs/dsh.md#retry-delay) allows
// for retry n over every random sample in [0,1].
func delayBounds(p keyPolicy, n int) (lo, hi float64) {
	// float64(n)-1, not n-1, which wraps at the smallest int.
	exponential := math.Min(p.initial*math.Pow(2, math.Min(float64(n)-1, 1024)), p.max)
	return math.Min(exponential*(1-p.ratio), p.max), math.Min(exponential*(1+p.ratio), p.max)
}

// nonRetryable: a normal-mode llm/retry only answers a failure whose code
// its own policy lists.
type nonRetryable struct{ reporter }

func (n *nonRetryable) event(e *session.Event) {
	p, ok := e.Data.(*session.LLMRetry)
	if !ok || p.Mode != "normal" {
		return
	}
	pol, err := parsePolicyKey(p.PolicyKey)
	if err != nil {
		return
	}
	if !slices.Contains(pol.codes, p.Failure.Code) {
		n.add(p.Turn, p.Step, []int64{e.Seq}, "a normal-mode policy retried %s, which its retryable codes %v do not list", p.Failure.Code, pol.codes)
	}
}
