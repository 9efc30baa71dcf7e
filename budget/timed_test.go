package budget

import (
	"context"
	"math"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/sim"
)

func fixed(v float64) *Distribution { return &Distribution{Fixed: &v} }

// noJitter retries SERVER three times after 1, 2 and 4 s, exactly.
func noJitter() *loop.RetryPolicy {
	return &loop.RetryPolicy{Mode: loop.ModeNormal, MaxRetries: 3, RetryableCodes: []string{"SERVER"},
		InitialDelayMs: 1000, MaxDelayMs: 10000, JitterRatio: 0}
}

// allCovered is the probability that Poisson incidents at rate λ (per ms)
// of fixed length d cover every one of the times ts: by inclusion and
// exclusion over the sets J of times left uncovered, Σ (−1)^|J| e^(−λ·L(J)),
// where L(J) is the length of the union of the windows (t−d, t] in which
// an incident covering t must begin. Exact, overlapping incidents
// included.
func allCovered(lambda, d float64, ts []float64) float64 {
	p := 0.0
	for set := uint(0); set < 1<<len(ts); set++ {
		length, last := 0.0, math.Inf(-1)
		for j, t := range ts {
			if set&(1<<j) != 0 {
				length += min(d, t-last) // sorted times: the new part of the window
				last = t
			}
		}
		p += math.Pow(-1, float64(bits.OnesCount(set))) * math.Exp(-lambda*length)
	}
	return p
}

// TestIncidentExhaustionMatchesAnalytic: with incidents only (no
// independent failures, no jitter, no latency), a turn is exhausted
// exactly when its first attempt and every retry run inside incidents;
// the share of exhausted turns over a horizon must match that probability,
// computed from the incident rate and length and the attempts' times, within
// the report's 95% interval. The attempts' times are read from a turn
// under a permanent outage, not assumed.
func TestIncidentExhaustionMatchesAnalytic(t *testing.T) {
	if raceEnabled {
		t.Skip("50,000 turns, 16 s under -race and nothing concurrent to race: make slow runs it without")
	}
	const perHour, length = 6.0, 20000.0
	env := &Environment{HorizonMs: 18 * 24 * 3600e3, Arrivals: &Arrivals{PerMinute: 2},
		Incidents: []IncidentKind{{PerHour: perHour, ForMs: fixed(length), Code: "SERVER", Status: 503}}}
	cfg := Config{Recovery: sim.Recovery{RetryPolicy: noJitter()}, Env: env}
	_, res := Config{Recovery: sim.Recovery{RetryPolicy: noJitter()}}.runTurn(1, []sim.Outage{{FromMs: 0, ToMs: 1e9, Fail: *failure("SERVER", 503)}})
	var times []float64
	for _, r := range res.Requests {
		times = append(times, r.TimeMs)
	}
	if diff := cmp.Diff([]float64{0, 1000, 3000, 7000}, times); diff != "" {
		t.Fatalf("attempt times under a permanent outage (-want +got):\n%s", diff)
	}
	lambda := perHour / 3600e3
	want := allCovered(lambda, length, times)
	// Nearly all of it is one incident covering the 7 s span.
	if one := -math.Expm1(-lambda * (length - 7000)); math.Abs(want-one) > 0.01*one {
		t.Fatalf("union %v against one incident %v: the rates were meant to make overlaps rare", want, one)
	}
	r := mustRun(t, cfg, 1, 0)
	if r.Turns < 40000 || r.FailedAtOnce != 0 || r.Aborted != 0 || len(r.Violations) != 0 {
		t.Fatalf("report %+v", r)
	}
	if !(want >= r.ExhaustionLo && want <= r.ExhaustionHi) {
		t.Errorf("exhaustion %v (95%% CI %v … %v, design effect %v) over %d turns; analytic %v",
			r.Exhaustion, r.ExhaustionLo, r.ExhaustionHi, r.Timeline.DesignEffect, r.Turns, want)
	}
	// Every exhausted turn was failed by incidents only, and names them.
	for _, in := range r.Timeline.Incidents {
		if in.Carried+in.Failed != in.TurnsHit {
			t.Errorf("incident %+v: carried + failed ≠ hit", in)
		}
	}
	if got := sumFailed(r.Timeline.Incidents); got < r.Exhausted {
		t.Errorf("incidents account for %d failed turns, %d were exhausted", got, r.Exhausted)
	}
	t.Logf("exhaustion %v (95%% CI %v … %v, design effect %v) over %d turns; analytic %v",
		r.Exhaustion, r.ExhaustionLo, r.ExhaustionHi, r.Timeline.DesignEffect, r.Turns, want)
	for _, c := range r.Timeline.Checks {
		if !c.Holds {
			t.Errorf("cross-check %+v", c)
		}
	}
}

func sumFailed(ins []IncidentReport) int {
	n := 0
	for _, in := range ins {
		n += in.Failed
	}
	return n
}

// TestAllCovered: the inclusion–exclusion sum against cases known by hand.
func TestAllCovered(t *testing.T) {
	const lambda, d = 0.001, 500.0
	tests := []struct {
		why  string
		ts   []float64
		want float64
	}{
		{"one time is covered when an incident began in the d before it", []float64{0}, -math.Expm1(-lambda * d)},
		{"equal times are one time", []float64{0, 0}, -math.Expm1(-lambda * d)},
		{"times further apart than d are independent", []float64{0, 2 * d}, math.Pow(-math.Expm1(-lambda*d), 2)},
		{"two times s ≤ d apart: 1 − e^(−λd)(2 − e^(−λs))", []float64{0, 100}, 1 - math.Exp(-lambda*d)*(2-math.Exp(-lambda*100))},
	}
	for _, tt := range tests {
		if got := allCovered(lambda, d, tt.ts); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: got %v, want %v", tt.why, got, tt.want)
		}
	}
}

// TestTimelineDraws: arrivals follow their rates (none where a schedule
// says 0), incidents are in progress at the start, the timeline is the
// seed's alone, and a second incident kind moves none of the first's.
func TestTimelineDraws(t *testing.T) {
	day := 24 * 3600e3
	env := &Environment{HorizonMs: day, Arrivals: &Arrivals{Schedule: []Rate{{FromMs: 0, PerMinute: 10}, {FromMs: day / 2, PerMinute: 0}, {FromMs: 0.75 * day, PerMinute: 40}}},
		Incidents: []IncidentKind{{PerHour: 2, ForMs: &Distribution{Exponential: ptr(60000.0)}, Code: "SERVER"}}}
	tl := newTimeline(env, 3)
	first, quiet, last := 0, 0, 0
	for _, at := range tl.arrivals {
		switch {
		case at < day/2:
			first++
		case at < 0.75*day:
			quiet++
		default:
			last++
		}
	}
	// 7,200 and 14,400 expected: within 4 standard deviations.
	if math.Abs(float64(first)-7200) > 4*math.Sqrt(7200) || quiet != 0 || math.Abs(float64(last)-14400) > 4*math.Sqrt(14400) {
		t.Errorf("arrivals by part of the day: %d, %d, %d; want about 7200, 0, 14400", first, quiet, last)
	}
	if !slices.IsSorted(tl.arrivals) {
		t.Error("arrivals out of order")
	}
	tl.until(day)
	if n := len(tl.sorted()); math.Abs(float64(n)-48) > 4*math.Sqrt(48) {
		t.Errorf("%d incidents in a day at 2 an hour", n)
	}
	again := newTimeline(env, 3)
	again.until(day)
	if diff := cmp.Diff(tl.sorted(), again.sorted()); diff != "" {
		t.Errorf("the same seed drew another timeline (-first +second):\n%s", diff)
	}
	// Over many seeds, an incident is in progress at 0 ms as often as the
	// analytic share of time covered says: 1 − e^(−2/60).
	atStart := 0
	// Only the incidents in progress at 0 ms are read: a horizon of a few
	// minutes with rare arrivals draws them without a day of turns.
	short := &Environment{HorizonMs: 120e3, Arrivals: &Arrivals{PerMinute: 0.01}, Incidents: env.Incidents}
	for seed := range uint64(3000) {
		tl := newTimeline(short, seed)
		if len(tl.sorted()) > 0 && tl.sorted()[0].FromMs < 0 {
			atStart++
		}
	}
	p := coveredShare(env.Incidents)
	if lo, hi := wilson(float64(atStart), 3000, 3); p < lo || p > hi {
		t.Errorf("an incident in progress at 0 ms in %d of 3000 horizons; want a share of %v", atStart, p)
	}
	two := *env
	two.Incidents = append(slices.Clone(env.Incidents), IncidentKind{PerHour: 30, ForMs: fixed(1000), Code: "RATE_LIMIT"})
	tl2 := newTimeline(&two, 3)
	tl2.until(day)
	var kept []Incident
	for _, in := range tl2.sorted() {
		if in.Source == "incidents[0]" {
			kept = append(kept, in)
		}
	}
	if diff := cmp.Diff(tl.sorted(), kept); diff != "" {
		t.Errorf("a second kind moved the first's incidents (-alone +beside another):\n%s", diff)
	}
}

// TestTurnMeetsWhatIsHappening: a turn that begins before an incident and
// retries into it is hit by it (its first request was not); one that
// begins inside it is hit from its first request; turns are placed at
// their arrival, and their failures land in the minute they ended.
func TestTurnMeetsWhatIsHappening(t *testing.T) {
	env := &Environment{HorizonMs: 3600e3, Arrivals: &Arrivals{PerMinute: 1},
		Outages:  []Outage{{FromMs: 600e3, ForMs: 30e3, Code: "SERVER", Status: 503}},
		Failures: []Failure{{Code: "SERVER", Status: 503, P: 1}}}
	cfg := Config{Recovery: sim.Recovery{RetryPolicy: noJitter()}, Env: env}
	tl := newTimeline(env, 1)
	before := cfg.timedTurn(tl, 599.5e3, 1) // attempts at 599.5, 600.5, 602.5, 606.5 s
	if before.FirstInIncident || !slices.Equal(before.hitBy, []int{0}) || before.StartMs != 599.5e3 {
		t.Errorf("a turn beginning 0.5 s before the outage: %+v", before)
	}
	inside := cfg.timedTurn(tl, 610e3, 2)
	if !inside.FirstInIncident || !slices.Equal(inside.hitBy, []int{0}) {
		t.Errorf("a turn beginning inside the outage: %+v", inside)
	}
	after := cfg.timedTurn(tl, 640e3, 3)
	if after.FirstInIncident || len(after.hitBy) != 0 || after.End != "error" {
		t.Errorf("a turn after the outage, failed by its independent failures: %+v", after)
	}
	h := newHorizonTally(env.HorizonMs, 2)
	h.add(before, tl)
	h.add(after, tl)
	if failed := h.failed; failed[10] != 2 { // both ended between 600 and 660 s
		t.Errorf("failed per minute: %v", failed[9:12])
	}
}

// TestDesignEffect: independent turns have none; turns that fail or pass
// all together in clusters of m widen the interval m times.
func TestDesignEffect(t *testing.T) {
	var xs []bool
	var alone, clustered []int32
	for c := range 1000 {
		for range 10 {
			xs = append(xs, c%20 == 0) // one cluster in 20 fails whole
			alone = append(alone, -1)
			clustered = append(clustered, int32(c))
		}
	}
	if d := designEffect(xs, alone); d != 1 {
		t.Errorf("independent turns: design effect %v, want 1", d)
	}
	if d := designEffect(xs, clustered); math.Abs(d-10) > 0.01 {
		t.Errorf("clusters of 10 failing together: design effect %v, want 10", d)
	}
	if d := designEffect(make([]bool, 50), clustered[:50]); d != 1 {
		t.Errorf("no failure: design effect %v, want 1", d)
	}
}

// TestHorizonErrors: a timed environment's mistakes name their field.
func TestHorizonErrors(t *testing.T) {
	tests := []struct{ why, env, want string }{
		{"arrivals need a horizon", `{"arrivals":{"perMinute":1}}`, "arrivals: needs horizonMs > 0"},
		{"a horizon of 0 is none", `{"horizonMs":0,"arrivals":{"perMinute":1}}`, "arrivals: needs horizonMs > 0"},
		{"a scheduled outage past the horizon never happens", `{"horizonMs":1000,"arrivals":{"perMinute":1},"outages":[{"fromMs":5000,"forMs":10,"code":"SERVER"}]}`, "outages[0].fromMs: with a horizon, a time on it: must be under horizonMs (1000), got 5000"},
		{"incidents need a horizon", `{"incidents":[{"perHour":1,"forMs":{"fixed":1},"code":"SERVER"}]}`, "incidents: needs horizonMs"},
		{"a schedule of nothing", `{"horizonMs":1000,"arrivals":{"schedule":[{"fromMs":0,"perMinute":0}]}}`, "arrivals: every rate of the schedule is 0"},
		{"a horizon needs arrivals", `{"horizonMs":1000}`, "arrivals: missing"},
		{"a rate per second is refused before it runs for hours", `{"horizonMs":86400000,"arrivals":{"perMinute":6000}}`, "arrivals: 8640000 turns expected"},
		{"a schedule in order", `{"horizonMs":1000,"arrivals":{"schedule":[{"fromMs":500,"perMinute":1},{"fromMs":100,"perMinute":1}]}}`, "arrivals.schedule[1].fromMs: must be after schedule[0]'s 500, got 100"},
		{"an incident's length", `{"horizonMs":1000,"arrivals":{"perMinute":1},"incidents":[{"perHour":1,"code":"SERVER"}]}`, "incidents[0].forMs: missing"},
		{"an incident's rate", `{"horizonMs":1000,"arrivals":{"perMinute":1},"incidents":[{"perHour":0,"forMs":{"fixed":1},"code":"SERVER"}]}`, "incidents[0].perHour: must be in (0, 3600], got 0"},
		{"incidents by the million are refused (each in progress at the start is drawn)", `{"horizonMs":31536000000,"arrivals":{"perMinute":0.001},"incidents":[{"perHour":3600,"forMs":{"fixed":1000},"code":"SERVER"}]}`, "incidents[0].perHour: 3600 an hour is 31536001 incidents over the horizon, more than the 1000000 a run takes"},
		{"an incident's code", `{"horizonMs":1000,"arrivals":{"perMinute":1},"incidents":[{"perHour":1,"forMs":{"fixed":1}}]}`, "incidents[0].code: missing"},
		{"an incident's field, by path", `{"horizonMs":1000,"arrivals":{"perMinute":1},"incidents":[{"perHour":1,"forMs":{"fixed":1},"code":"SERVER","rate":2}]}`, "incidents[0].rate: unknown field"},
		{"a key matched but for case is refused (encoding/json took it, the last of two winning)", `{"horizonMs":1000,"arrivals":{"perMinute":1},"incidents":[{"perHour":1,"forMs":{"fixed":1},"forMS":{"fixed":99},"code":"SERVER"}]}`, "incidents[0].forMS: unknown field: keys are matched as written; did you mean forMs?"},
		{"a distribution's field, by path", `{"horizonMs":1000,"arrivals":{"perMinute":1},"incidents":[{"perHour":1,"forMs":{"uniform":[5,1]},"code":"SERVER"}]}`, "incidents[0].forMs.uniform: want [low, high]"},
	}
	for _, tt := range tests {
		_, err := ParseEnvironment([]byte(tt.env))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.why, err, tt.want)
		}
	}
}

// TestLongOutageRiddenInAlwaysMode: an always-mode policy with a 1 s cap
// rides an 80-minute outage — thousands of attempts — and the turn that
// begins with it completes without a violation; the fixed bound of 10,000
// events once stopped such turns and reported turn-terminates.
func TestLongOutageRiddenInAlwaysMode(t *testing.T) {
	always := &loop.RetryPolicy{Mode: loop.ModeAlways, RetryableCodes: []string{"SERVER"}, InitialDelayMs: 500, MaxDelayMs: 1000, JitterRatio: 0.1}
	env := &Environment{HorizonMs: 7200e3, Arrivals: &Arrivals{PerMinute: 0.1},
		Outages: []Outage{{FromMs: 300e3, ForMs: 4800e3, Code: "SERVER", Status: 503}}}
	turn := Config{Recovery: sim.Recovery{RetryPolicy: always}, Env: env}.timedTurn(newTimeline(env, 1), 300e3, 1)
	if turn.End != "completed" || len(turn.Violations) != 0 || turn.Attempts < 4000 {
		t.Errorf("a turn beginning with the outage: %s after %d attempts, violations %v", turn.End, turn.Attempts, turn.Violations)
	}
}

// TestEventBound: the bound follows what the policy can do in the
// outages it meets, and stays at the floor where nothing bounds retries.
func TestEventBound(t *testing.T) {
	always := &loop.RetryPolicy{Mode: loop.ModeAlways, InitialDelayMs: 500, MaxDelayMs: 1000, JitterRatio: 0.1}
	hour := []sim.Outage{{FromMs: 0, ToMs: 3600e3}}
	tests := []struct {
		why     string
		p       *loop.RetryPolicy
		outages []sim.Outage
		want    int
	}{
		{"no outage: the floor", always, nil, 10_000},
		{"always mode through an hour: 8,001 attempts at ≥ 450 ms, 16 events each", always, hour, 16 * (8001 + 1)},
		{"normal mode: its budget a step, not the outage", noJitter(), hour, 10_000},
		{"waits of no time retry without end: the floor", &loop.RetryPolicy{Mode: loop.ModeAlways}, hour, 10_000},
		{"an outage of a hundred days is permanent: the floor", always, []sim.Outage{{FromMs: 0, ToMs: 1e12}}, 10_000},
		{"never past the ceiling", &loop.RetryPolicy{Mode: loop.ModeAlways, InitialDelayMs: 1, MaxDelayMs: 1}, hour, 500_000},
	}
	for _, tt := range tests {
		if got := eventBound(tt.p, tt.outages, 1, 1); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.why, got, tt.want)
		}
	}
}

// TestScheduledStormCarriesRetryAfter: a scheduled 429 outage with a
// Retry-After of 5 s fails at once the turns of a policy capped at 4 s
// (a Retry-After over the cap is not retried), and one capped at 10 s
// waits it out.
func TestScheduledStormCarriesRetryAfter(t *testing.T) {
	env := &Environment{HorizonMs: 1800e3, Arrivals: &Arrivals{PerMinute: 2},
		Outages: []Outage{{FromMs: 600e3, ForMs: 60e3, Code: "RATE_LIMIT", Status: 429, RetryAfterMs: fixed(5000)}}}
	capped := func(maxDelay float64) *loop.RetryPolicy {
		return &loop.RetryPolicy{Mode: loop.ModeNormal, MaxRetries: 20, RetryableCodes: []string{"RATE_LIMIT"}, InitialDelayMs: 500, MaxDelayMs: maxDelay}
	}
	short := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: capped(4000)}, Env: env}, 1, 0)
	long := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: capped(10000)}, Env: env}, 1, 0)
	storm := short.Timeline.Incidents[0]
	if storm.TurnsHit == 0 || storm.Failed != storm.TurnsHit || short.FailedAtOnce != storm.Failed ||
		len(short.Failures) != 1 || short.Failures[0].Why != "not retried: Retry-After over the cap" {
		t.Errorf("capped at 4 s: %+v, failures %+v", storm, short.Failures)
	}
	if in := long.Timeline.Incidents[0]; in.TurnsHit != storm.TurnsHit || in.Failed != 0 || in.LongestRecoveryMs < 5000 {
		t.Errorf("capped at 10 s: %+v", in)
	}
	// Exhaustion's two parts as bound figures: all of the short cap's is
	// failing at once.
	for _, tt := range []struct {
		bound string
		holds bool
	}{
		{"failed_at_once_share<=0", false},
		{"exhausted_share<=0", true},
	} {
		ok, v := mustBound(t, tt.bound).Holds(short)
		if ok != tt.holds || tt.bound[0] == 'f' && v != short.Exhaustion {
			t.Errorf("%s: holds %v at %v (exhaustion %v)", tt.bound, ok, v, short.Exhaustion)
		}
	}
}

// TestScheduleRepeats: a day's schedule repeated over three days: no turn
// arrives in any night, and every day has its day's turns.
func TestScheduleRepeats(t *testing.T) {
	day := 24 * 3600e3
	env := &Environment{HorizonMs: 3 * day, Arrivals: &Arrivals{RepeatEveryMs: day,
		Schedule: []Rate{{FromMs: 0, PerMinute: 0}, {FromMs: 6 * 3600e3, PerMinute: 2}}}}
	if got, want := env.expectedTurns(), 3*2*18*60.0; got != want {
		t.Errorf("expected turns %v, want %v", got, want)
	}
	perDay := make([]int, 3)
	for _, at := range newTimeline(env, 1).arrivals {
		d := int(at / day)
		if math.Mod(at, day) < 6*3600e3 {
			t.Fatalf("a turn arrived at %.0f ms, in the night", at)
		}
		perDay[d]++
	}
	for d, n := range perDay {
		if math.Abs(float64(n)-2160) > 4*math.Sqrt(2160) {
			t.Errorf("day %d: %d turns, want about 2160", d+1, n)
		}
	}
	for _, tt := range []struct{ env, want string }{
		{`{"horizonMs":86400000,"arrivals":{"perMinute":1,"repeatEveryMs":3600000}}`, "arrivals.repeatEveryMs: repeats a schedule: give one"},
		{`{"horizonMs":86400000,"arrivals":{"repeatEveryMs":3600000,"schedule":[{"fromMs":4000000,"perMinute":1}]}}`, "arrivals.schedule[0].fromMs: must be in [0, repeatEveryMs), got 4000000"},
	} {
		if _, err := ParseEnvironment([]byte(tt.env)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.env, err, tt.want)
		}
	}
}

// TestIncidentsOfAQuietEnd: incidents are reported over the whole
// horizon, also where no turn runs (they were drawn only as far as the
// last turn's window, and a quiet evening lost its incidents).
func TestIncidentsOfAQuietEnd(t *testing.T) {
	day := 24 * 3600e3
	env := &Environment{HorizonMs: day, Arrivals: &Arrivals{Schedule: []Rate{{FromMs: 0, PerMinute: 2}, {FromMs: day / 2, PerMinute: 0}}},
		Incidents: []IncidentKind{{PerHour: 2, ForMs: fixed(30000), Code: "SERVER", Status: 503}}}
	r := mustRun(t, Config{Recovery: sim.Recovery{RetryPolicy: noJitter()}, Env: env}, 1, 0)
	ins := r.Timeline.Incidents
	if len(ins) == 0 || ins[len(ins)-1].FromMs < 20*3600e3 || math.Abs(float64(len(ins))-48) > 4*math.Sqrt(48) {
		t.Errorf("%d incidents over a day at 2 an hour, the last at %.0f ms", len(ins), ins[len(ins)-1].FromMs)
	}
}

// TestHorizonSetupStops: drawing a horizon's arrivals and incidents looks
// at the stop, as running its turns does: over a year of 10 rates
// repeated every minute (5 million rates, a handful of turns) the stop
// was asked only between turns, after the drawing, and a SIGINT waited
// seconds for it.
// endsAfter is a context that ends once it has been asked after times,
// as a Ctrl-C at that moment would: it counts how often a run asks.
type endsAfter struct {
	context.Context
	asked, after int
}

func (c *endsAfter) Err() error {
	c.asked++
	if c.asked > c.after {
		return context.Canceled
	}
	return nil
}

func TestHorizonSetupStops(t *testing.T) {
	env, err := ParseEnvironment(schedule(t, 365*24*3600e3, 10, 60e3, 0.00001))
	if err != nil {
		t.Fatal(err)
	}
	ctx := &endsAfter{Context: t.Context(), after: 100}
	r, err := Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}, Env: env}.Run(ctx, 1, 0)
	if err != nil || !r.Interrupted || r.Turns != 0 || ctx.asked != 101 || r.Timeline == nil {
		t.Errorf("interrupted %v after %d turns, the stop asked %d times (%v)", r.Interrupted, r.Turns, ctx.asked, err)
	}
	asked := 0
	// Incidents in progress at the start are drawn before any turn too.
	many := &Environment{HorizonMs: 7 * 24 * 3600e3, Arrivals: &Arrivals{PerMinute: 0.01},
		Incidents: []IncidentKind{{PerHour: 20000.0 / 84, ForMs: fixed(84 * 3600e3), Code: "SERVER"}}} // 20,000 at the start
	if err := many.Validate(); err != nil {
		t.Fatal(err)
	}
	asked = 0
	if _, ok := newTimelineUntil(many, 1, func() bool { asked++; return true }); ok || asked != 1 {
		t.Errorf("drawing 20,000 incidents in progress: stopped %v, the stop asked %d times", !ok, asked)
	}
}

// TestRatesInOrder: a repeated schedule's rates, one period after another,
// the last cut by the horizon's end, are given one at a time (and
// expectedTurns, summed over one period, agrees with them).
func TestRatesInOrder(t *testing.T) {
	env := &Environment{HorizonMs: 150e3, Arrivals: &Arrivals{RepeatEveryMs: 60e3, Schedule: []Rate{{FromMs: 0, PerMinute: 1}, {FromMs: 20e3, PerMinute: 2}}}}
	var got []spanRate
	for r := range env.rates() {
		got = append(got, r)
	}
	want := []spanRate{{Rate{0, 1}, 20e3}, {Rate{20e3, 2}, 60e3}, {Rate{60e3, 1}, 80e3}, {Rate{80e3, 2}, 120e3}, {Rate{120e3, 1}, 140e3}, {Rate{140e3, 2}, 150e3}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(spanRate{})); diff != "" {
		t.Errorf("rates (-want +got):\n%s", diff)
	}
	sum := 0.0
	for _, r := range got {
		sum += r.PerMinute * (r.toMs - r.FromMs) / 60e3
	}
	if e := env.expectedTurns(); math.Abs(e-sum) > 1e-9 || env.rateCount() != 6 {
		t.Errorf("expected turns %v, want %v; %v rates counted, want 6", e, sum, env.rateCount())
	}
	for range env.rates() {
		break // a caller that stops early stops the rates
	}
}
