package budget

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/turnsim/turnsim/sim"
)

// Incident is one stretch of virtual time in which every request fails
// with Code: an occurrence of one of the environment's incident kinds, or
// one of its outages on the horizon.
type Incident struct {
	// Source is the environment field it comes from: "incidents[0]" or
	// "outages[1]".
	Source       string   `json:"source"`
	FromMs       float64  `json:"fromMs"`
	ToMs         float64  `json:"toMs"`
	Code         string   `json:"code"`
	Status       int      `json:"status,omitempty"`
	RetryAfterMs *float64 `json:"retryAfterMs,omitempty"`
}

// LengthMs is how long the incident lasts.
func (in Incident) LengthMs() float64 { return in.ToMs - in.FromMs }

// timeline is a horizon's turns and incidents, drawn from the run's seed:
// arrivals from the "arrivals" stream, each incident kind's occurrences
// from a stream of its own, so that adding a kind moves no other kind's
// incidents, and none of it depends on the policy.
type timeline struct {
	env      *Environment
	arrivals []float64
	// all are the incidents drawn so far, up to drawn ms, in the order
	// they were drawn: an incident's id is its place here, which never
	// changes (later ones are drawn when a turn runs past drawn, and may
	// start before a scheduled outage). byStart are their ids in order of
	// start, equal starts in the order drawn.
	all     []Incident
	byStart []int
	drawn   float64
	// longest is the longest incident yet, bounding how far back an
	// incident in progress can have begun.
	longest float64
	kinds   []*kindStream
}

// kindStream draws one incident kind's occurrences in order of start.
type kindStream struct {
	kind   *IncidentKind
	source string
	r      *rand.Rand
	next   float64 // the next occurrence's start
}

func newTimeline(env *Environment, seed uint64) *timeline {
	t, _ := newTimelineUntil(env, seed, nil)
	return t
}

// newTimelineUntil is newTimeline that gives up, returning false, once
// stopped (when not nil) says so: drawing a horizon's arrivals goes
// through every rate of its schedule, millions of them for one repeated
// every minute over a year, and an interrupt once waited seconds for it.
func newTimelineUntil(env *Environment, seed uint64, stopped func() bool) (*timeline, bool) {
	stop := &stopCheck{stopped: stopped}
	arrivals, ok := drawArrivals(env, sim.Stream(seed, "arrivals"), stop)
	if !ok {
		return nil, false
	}
	t := &timeline{env: env, arrivals: arrivals}
	var first []Incident
	draws := sim.Stream(seed, "outages")
	for i, o := range env.Outages {
		in := Incident{Source: fmt.Sprintf("outages[%d]", i), FromMs: o.FromMs, ToMs: o.FromMs + o.ForMs, Code: o.Code, Status: o.Status}
		if o.RetryAfterMs != nil {
			in.RetryAfterMs = ptr(o.RetryAfterMs.draw(draws.Float64()))
		}
		first = append(first, in)
	}
	for i := range env.Incidents {
		k := &kindStream{kind: &env.Incidents[i], source: fmt.Sprintf("incidents[%d]", i), r: sim.Stream(seed, fmt.Sprintf("incidents/%d", i))}
		in, ok := k.inProgress(stop)
		if !ok {
			return nil, false
		}
		first = append(first, in...)
		k.next = k.gap()
		t.kinds = append(t.kinds, k)
	}
	t.add(first)
	return t, true
}

// stopCheck asks stopped every stopEvery steps of drawing: often enough
// to stop at once, seldom enough to cost nothing.
type stopCheck struct {
	stopped func() bool
	steps   int
}

const stopEvery = 4096

// now reports whether to stop, counting a step.
func (s *stopCheck) now() bool {
	s.steps++
	return s.stopped != nil && s.steps%stopEvery == 0 && s.stopped()
}

// inProgress draws the incidents under way at 0 ms, as a stationary
// process has them: their number is Poisson with mean rate × mean
// duration, each one's length is length-biased, and 0 ms falls uniformly
// within it.
func (k *kindStream) inProgress(stop *stopCheck) ([]Incident, bool) {
	mean := k.kind.PerHour / 3600e3 * k.kind.ForMs.mean()
	var out []Incident
	for sum := k.r.ExpFloat64(); sum <= mean; sum += k.r.ExpFloat64() {
		if stop.now() {
			return nil, false
		}
		length := k.kind.ForMs.drawLengthBiased(k.r.Float64(), k.r.Float64())
		left := length * k.r.Float64() // what remains of it at 0 ms
		out = append(out, k.occurrence(left-length, length))
	}
	return out, true
}

// gap is the time to the next start: exponential at the kind's rate.
func (k *kindStream) gap() float64 { return k.r.ExpFloat64() * 3600e3 / k.kind.PerHour }

// occurrence draws the rest of an incident that starts at from: its
// Retry-After (after its length was drawn, so a kind's lengths do not move
// when a Retry-After is added).
func (k *kindStream) occurrence(from, length float64) Incident {
	in := Incident{Source: k.source, FromMs: from, ToMs: from + length, Code: k.kind.Code, Status: k.kind.Status}
	if k.kind.RetryAfterMs != nil {
		in.RetryAfterMs = ptr(k.kind.RetryAfterMs.draw(k.r.Float64()))
	}
	return in
}

// until draws every incident that starts before ms.
func (t *timeline) until(ms float64) {
	if ms <= t.drawn {
		return
	}
	var fresh []Incident
	for _, k := range t.kinds {
		for k.next < ms {
			fresh = append(fresh, k.occurrence(k.next, k.kind.ForMs.draw(k.r.Float64())))
			k.next += k.gap()
		}
	}
	t.drawn = ms
	t.add(fresh)
}

// add gives fresh incidents their ids and places them in order of start.
func (t *timeline) add(fresh []Incident) {
	if len(fresh) == 0 {
		return
	}
	for _, in := range fresh {
		t.longest = max(t.longest, in.ToMs-in.FromMs)
		t.byStart = append(t.byStart, len(t.all))
		t.all = append(t.all, in)
	}
	slices.SortStableFunc(t.byStart, func(a, b int) int { return cmp.Compare(t.all[a].FromMs, t.all[b].FromMs) })
}

// scheduled says incident id is one of the environment's outages, not a
// draw: newTimeline gives them the first ids.
func (t *timeline) scheduled(id int) bool { return id < len(t.env.Outages) }

// sorted are the incidents drawn so far in order of start.
func (t *timeline) sorted() []Incident {
	out := make([]Incident, len(t.byStart))
	for i, id := range t.byStart {
		out[i] = t.all[id]
	}
	return out
}

// outagesFor are the incidents that overlap [at, at+window), as the
// outages of a turn's world that begins at at: times made the turn's own,
// the part before its start cut off; ids are the incidents'. Their order
// is by start: the world fails a request with the first outage covering
// it, and timedRun reads them back in the same order.
func (t *timeline) outagesFor(at, window float64) (outages []sim.Outage, ids []int) {
	t.until(at + window)
	end, _ := slices.BinarySearchFunc(t.byStart, at+window, func(id int, ms float64) int { return cmp.Compare(t.all[id].FromMs, ms) })
	for i := end - 1; i >= 0 && t.all[t.byStart[i]].FromMs >= at-t.longest; i-- {
		if id := t.byStart[i]; t.all[id].ToMs > at {
			ids = append(ids, id)
		}
	}
	slices.Reverse(ids)
	for _, id := range ids {
		in := t.all[id]
		fail := failure(in.Code, in.Status)
		fail.ProviderRetryAfterMs = in.RetryAfterMs
		outages = append(outages, sim.Outage{FromMs: max(0, in.FromMs-at), ToMs: in.ToMs - at, Fail: *fail})
	}
	return outages, ids
}

// drawArrivals draws the turns' start times: Poisson at the rate in
// force, the wait for the next arrival restarted at each change of rate
// (exact, as waits are memoryless). It gives up, returning false, once
// stop says so.
func drawArrivals(env *Environment, r *rand.Rand, stop *stopCheck) ([]float64, bool) {
	var out []float64
	for rate := range env.rates() {
		if stop.now() {
			return nil, false
		}
		if rate.PerMinute == 0 {
			continue
		}
		for at := rate.FromMs + r.ExpFloat64()*60e3/rate.PerMinute; at < rate.toMs; at += r.ExpFloat64() * 60e3 / rate.PerMinute {
			if stop.now() {
				return nil, false
			}
			out = append(out, at)
		}
	}
	return out, true
}

// coveredShare is the analytic share of time some incident is in
// progress: one minus the chance that none is, exp(−Σ rate × mean
// duration), for stationary Poisson incidents.
func coveredShare(kinds []IncidentKind) float64 {
	load := 0.0
	for _, k := range kinds {
		load += k.PerHour / 3600e3 * k.ForMs.mean()
	}
	return -math.Expm1(-load)
}
