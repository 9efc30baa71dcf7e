package budget

import (
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
	// incidents are sorted by FromMs (then by source), drawn up to drawn
	// ms; later ones are drawn when a turn runs past that.
	incidents []Incident
	drawn     float64
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
	t := &timeline{env: env, arrivals: drawArrivals(env, sim.Stream(seed, "arrivals"))}
	var first []Incident
	for i, o := range env.Outages {
		first = append(first, Incident{Source: fmt.Sprintf("outages[%d]", i), FromMs: o.FromMs, ToMs: o.FromMs + o.ForMs, Code: o.Code, Status: o.Status})
	}
	for i := range env.Incidents {
		k := &kindStream{kind: &env.Incidents[i], source: fmt.Sprintf("incidents[%d]", i), r: sim.Stream(seed, fmt.Sprintf("incidents/%d", i))}
		first = append(first, k.inProgress()...)
		k.next = k.gap()
		t.kinds = append(t.kinds, k)
	}
	t.add(first)
	return t
}

// inProgress draws the incidents under way at 0 ms, as a stationary
// process has them: their number is Poisson with mean rate × mean
// duration, each one's length is length-biased, and 0 ms falls uniformly
// within it.
func (k *kindStream) inProgress() []Incident {
	mean := k.kind.PerHour / 3600e3 * k.kind.ForMs.mean()
	var out []Incident
	for sum := k.r.ExpFloat64(); sum <= mean; sum += k.r.ExpFloat64() {
		length := k.kind.ForMs.drawLengthBiased(k.r.Float64(), k.r.Float64())
		left := length * k.r.Float64() // what remains of it at 0 ms
		out = append(out, k.occurrence(left-length, length))
	}
	return out
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

// add puts fresh incidents among the drawn ones, in order of start (a
// stable sort: equal starts keep the order they were drawn in).
func (t *timeline) add(fresh []Incident) {
	if len(fresh) == 0 {
		return
	}
	for _, in := range fresh {
		t.longest = max(t.longest, in.ToMs-in.FromMs)
	}
	t.incidents = append(t.incidents, fresh...)
	slices.SortStableFunc(t.incidents, func(a, b Incident) int { return compareFloat(a.FromMs, b.FromMs) })
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// outagesFor are the incidents that overlap [at, at+window), as the
// outages of a turn's world that begins at at: times made the turn's own,
// the part before its start cut off. Their order is the incidents' (by
// start): the world fails a request with the first outage covering it,
// and attribute reads them back in the same order.
func (t *timeline) outagesFor(at, window float64) (outages []sim.Outage, index []int) {
	t.until(at + window)
	end := startingBefore(t.incidents, at+window)
	for i := end - 1; i >= 0 && t.incidents[i].FromMs >= at-t.longest; i-- {
		if t.incidents[i].ToMs > at {
			index = append(index, i)
		}
	}
	slices.Reverse(index)
	for _, i := range index {
		in := t.incidents[i]
		fail := failure(in.Code, in.Status)
		fail.ProviderRetryAfterMs = in.RetryAfterMs
		outages = append(outages, sim.Outage{FromMs: max(0, in.FromMs-at), ToMs: in.ToMs - at, Fail: *fail})
	}
	return outages, index
}

// startingBefore is the number of incidents that start before ms.
func startingBefore(incidents []Incident, ms float64) int {
	n, _ := slices.BinarySearchFunc(incidents, ms, func(in Incident, ms float64) int { return compareFloat(in.FromMs, ms) })
	return n
}

// drawArrivals draws the turns' start times: Poisson at the rate in
// force, the wait for the next arrival restarted at each change of rate
// (exact, as waits are memoryless).
func drawArrivals(env *Environment, r *rand.Rand) []float64 {
	rates := env.Arrivals.Schedule
	if len(rates) == 0 {
		rates = []Rate{{FromMs: 0, PerMinute: env.Arrivals.PerMinute}}
	}
	var out []float64
	for i, rate := range rates {
		end := env.HorizonMs
		if i+1 < len(rates) {
			end = rates[i+1].FromMs
		}
		if rate.PerMinute == 0 {
			continue
		}
		for at := rate.FromMs + r.ExpFloat64()*60e3/rate.PerMinute; at < end; at += r.ExpFloat64() * 60e3 / rate.PerMinute {
			out = append(out, at)
		}
	}
	return out
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

// Clock writes a time on the horizon as a clock reading from its start,
// hh:mm:ss, with the day after the first: "03:12:05", "day 2 00:00:10".
func Clock(ms float64) string {
	s := int64(math.Floor(ms / 1e3))
	sign := ""
	if s < 0 {
		sign, s = "-", -s
	}
	day, s := s/86400, s%86400
	hms := fmt.Sprintf("%s%02d:%02d:%02d", sign, s/3600, s/60%60, s%60)
	if day > 0 {
		return fmt.Sprintf("day %d %s", day+1, hms)
	}
	return hms
}
