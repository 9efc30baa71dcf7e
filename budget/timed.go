package budget

import (
	"math"
	"slices"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// firstWindow is how much of the horizon after its start a turn's world is
// first given incidents for; a turn still making requests past it is run
// again with twice the window (the result is the same either way for one
// that is not: a request never meets an incident that starts after it).
const firstWindow = 10 * 60e3

// timedTurn runs the turn that begins at ms at of tl's horizon: its world's
// outages are the incidents in progress while it runs.
func (c Config) timedTurn(tl *timeline, at float64, seed uint64) Turn {
	t, _ := c.timedRun(tl, at, seed)
	return t
}

// timedWorld is the world timedTurn ran, for a trace.
func (c Config) timedWorld(tl *timeline, at float64, seed uint64) (*sim.Scenario, sim.Options) {
	_, window := c.timedRun(tl, at, seed)
	outages, _ := tl.outagesFor(at, window)
	return c.world(seed, outages)
}

func (c Config) timedRun(tl *timeline, at float64, seed uint64) (Turn, float64) {
	for window := firstWindow; ; window *= 2 {
		outages, ids := tl.outagesFor(at, window)
		t, res := c.runTurn(seed, outages)
		if n := len(res.Requests); n > 0 && res.Requests[n-1].TimeMs >= window && window < 1e12 {
			continue
		}
		t.StartMs = at
		for k, req := range res.Requests {
			i := slices.IndexFunc(outages, func(o sim.Outage) bool { return req.TimeMs >= o.FromMs && req.TimeMs < o.ToMs })
			if i < 0 {
				continue
			}
			if k == 0 {
				t.FirstInIncident = true
			}
			if !slices.Contains(t.hitBy, ids[i]) {
				t.hitBy = append(t.hitBy, ids[i])
			}
		}
		return t, window
	}
}

// TimelineReport is what a policy met over a horizon.
type TimelineReport struct {
	HorizonMs float64 `json:"horizonMs"`
	// Incidents are every incident that began before the horizon's end
	// (or hit a turn that ran past it), in order of start, with what each
	// did to the turns it hit.
	Incidents []IncidentReport `json:"incidents"`
	// Arrived and Failed count turns by minute of virtual time: those
	// that began in it, and those that ended in it without completing.
	Arrived []int `json:"arrivedPerMinute"`
	Failed  []int `json:"failedPerMinute"`
	// FailedHit counts the turns that did not complete and that an
	// incident hit.
	FailedHit int `json:"failedHit"`
	// DesignEffect is the variance of the exhausted share over that of
	// as many independent turns (see designEffect): the interval is taken
	// over Turns / DesignEffect turns, about its square root wider; 1 when
	// no drawn incident hit a turn (a scheduled outage is no draw).
	DesignEffect float64 `json:"designEffect"`
	// Checks compare observed shares with what follows analytically from
	// the environment, where that is exact.
	Checks []CrossCheck `json:"checks"`
}

// IncidentReport is one incident and the turns it hit: those with an
// attempt it failed. Carried are those that completed anyway; Failed
// those that did not; LongestRecoveryMs is the longest recovery among them.
type IncidentReport struct {
	Incident
	TurnsHit          int     `json:"turnsHit"`
	Carried           int     `json:"carried"`
	Failed            int     `json:"failed"`
	LongestRecoveryMs float64 `json:"longestRecoveryMs"`
	// FailedTurns are the first few failed turns' numbers in the run
	// (simrun budget --trace FILE --turn N writes one's log).
	FailedTurns []int `json:"failedTurns,omitempty"`
}

// CrossCheck is an observed share, its 95% interval, and the share the
// environment implies; Holds says the interval contains it.
type CrossCheck struct {
	What     string  `json:"what"`
	K        int     `json:"k"`
	N        int     `json:"n"`
	Observed float64 `json:"observed"`
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	Analytic float64 `json:"analytic"`
	Holds    bool    `json:"holds"`
}

// runHorizon runs every turn that arrives over the environment's horizon
// drawn from seed, in order of arrival, turn i on seed seed+i. What the
// report needs of each turn is added up as it ends, not kept: a week of
// turns under several policies at once would otherwise hold hundreds of
// megabytes.
func (c Config) runHorizon(seed uint64, stopped func() bool) (Report, error) {
	var tally tally
	tl, ok := newTimelineUntil(c.Env, seed, stopped)
	if !ok { // stopped while drawing: no turn to run, nothing drawn to report
		tl, tally.interrupted = &timeline{env: c.Env}, true
	}
	h := newHorizonTally(c.Env.HorizonMs, len(tl.arrivals))
	var blocked error
	for i, at := range tl.arrivals {
		if stopped != nil && stopped() {
			tally.interrupted = true
			break
		}
		t := c.timedTurn(tl, at, seed+uint64(i))
		t.Index = i
		if blocked = t.blockedError(true); blocked != nil {
			tally.interrupted = true // the turns before it stand, as after an interrupt
			break
		}
		tally.add(t)
		h.add(t, tl)
	}
	r := tally.report(c)
	tr := &TimelineReport{HorizonMs: c.Env.HorizonMs, Arrived: h.arrived, Failed: h.failed, FailedHit: h.failedHit,
		Incidents: []IncidentReport{}, Checks: []CrossCheck{}} // [] in --json when there are none
	if !tally.interrupted {
		tl.until(c.Env.HorizonMs) // the incidents of a quiet end, which no turn's window drew
	}
	tr.Incidents = append(tr.Incidents, h.incidents(tl)...)
	tr.DesignEffect = designEffect(h.failedTurn, h.cluster)
	errors := r.Exhausted + r.FailedAtOnce
	r.ExhaustionLo, r.ExhaustionHi = wilson(float64(errors)/tr.DesignEffect, float64(r.Turns)/tr.DesignEffect, 1.96)
	tr.Checks = append(tr.Checks, h.crossChecks(c.Env)...)
	r.Timeline = tr
	return r, blocked
}

// horizonTally adds up what a horizon's report says of its turns.
type horizonTally struct {
	horizon float64
	// arrived and failed count turns by minute: of their start, and of
	// the end of those that did not complete (which may be past the
	// horizon).
	arrived, failed []int
	// perIncident is what each incident (by id) did to the turns it hit.
	perIncident []IncidentReport
	failedHit   int
	// Per turn: whether it ended in error, whether its first request ran
	// inside an incident, and its cluster (the first drawn incident that
	// hit it, -1 none), for the design effects.
	failedTurn, firstInTurn []bool
	cluster                 []int32
	// For the cross-checks: turns whose first request ran inside an
	// incident; first requests outside incidents, and of those, failed.
	firstIn, firstOut, firstOutFailed int
}

func newHorizonTally(horizon float64, turns int) *horizonTally {
	minutes := int(math.Ceil(horizon / 60e3))
	return &horizonTally{horizon: horizon, arrived: make([]int, minutes), failed: make([]int, minutes),
		failedTurn: make([]bool, 0, turns), firstInTurn: make([]bool, 0, turns), cluster: make([]int32, 0, turns)}
}

// failedTurnsKept is how many failed turns an incident's report names,
// for --trace --turn.
const failedTurnsKept = 5

func (h *horizonTally) add(t Turn, tl *timeline) {
	minute := func(ms float64) int {
		m := int(ms / 60e3)
		for len(h.arrived) <= m {
			h.arrived, h.failed = append(h.arrived, 0), append(h.failed, 0)
		}
		return m
	}
	h.arrived[minute(t.StartMs)]++
	if t.End != session.EndCompleted {
		h.failed[minute(t.StartMs+t.DurationMs)]++
	}
	cluster := int32(-1)
	for _, id := range t.hitBy {
		for len(h.perIncident) <= id {
			h.perIncident = append(h.perIncident, IncidentReport{})
		}
		r := &h.perIncident[id]
		r.TurnsHit++
		if t.End == session.EndCompleted {
			r.Carried++
		} else {
			r.Failed++
			if len(r.FailedTurns) < failedTurnsKept {
				r.FailedTurns = append(r.FailedTurns, t.Index)
			}
		}
		r.LongestRecoveryMs = max(r.LongestRecoveryMs, t.RecoveryMs)
		// Turns the same drawn incident hit fail together; a scheduled
		// outage is no draw (it is there on every seed), and the turns it
		// hits vary only as their arrivals do.
		if cluster < 0 && !tl.scheduled(id) {
			cluster = int32(id)
		}
	}
	if len(t.hitBy) > 0 && t.End != session.EndCompleted {
		h.failedHit++
	}
	h.failedTurn = append(h.failedTurn, t.End == session.EndError)
	h.cluster = append(h.cluster, cluster)
	h.firstInTurn = append(h.firstInTurn, t.FirstInIncident)
	switch {
	case t.FirstInIncident:
		h.firstIn++
	case t.Attempts > 0:
		h.firstOut++
		if t.FirstFailed {
			h.firstOutFailed++
		}
	}
}

// incidents are every incident that began before the horizon's end, and
// any later one that hit a turn running past it, in order of start.
func (h *horizonTally) incidents(tl *timeline) []IncidentReport {
	var out []IncidentReport
	for _, id := range tl.byStart {
		r := IncidentReport{Incident: tl.all[id]}
		if id < len(h.perIncident) {
			got := h.perIncident[id]
			got.Incident = r.Incident
			r = got
		}
		if r.FromMs < h.horizon || r.TurnsHit > 0 {
			out = append(out, r)
		}
	}
	return out
}

// crossChecks are the shares that follow exactly from the environment:
// with stationary incidents and no scheduled outage, the share of turns
// whose first request ran inside an incident (a Poisson arrival sees the
// time-average, 1 − exp(−Σ rate × mean duration)); with independent
// failures and no bursts (nor a context window, which fails requests of
// its own), the share of first requests outside incidents that failed
// (1 − Π(1 − p)).
func (h *horizonTally) crossChecks(env *Environment) []CrossCheck {
	var out []CrossCheck
	n := len(h.cluster)
	if len(env.Incidents) > 0 && len(env.Outages) == 0 && n > 0 {
		// Turns that begin in the same incident are not independent.
		deff := designEffect(h.firstInTurn, h.cluster)
		lo, hi := wilson(float64(h.firstIn)/deff, float64(n)/deff, 1.96)
		out = append(out, check("turns whose first request ran inside an incident", h.firstIn, n, lo, hi, coveredShare(env.Incidents)))
	}
	// A context window can fail a first request on its own (overflow).
	contextWindow := env.Workload != nil && env.Workload.ContextWindow > 0
	if len(env.Failures) > 0 && env.Bursts == nil && !contextWindow && h.firstOut > 0 {
		pass := 1.0
		for _, f := range env.Failures {
			pass *= 1 - f.P
		}
		lo, hi := wilson(float64(h.firstOutFailed), float64(h.firstOut), 1.96)
		out = append(out, check("first requests outside incidents that failed", h.firstOutFailed, h.firstOut, lo, hi, 1-pass))
	}
	return out
}

func check(what string, k, n int, lo, hi, analytic float64) CrossCheck {
	return CrossCheck{What: what, K: k, N: n, Observed: float64(k) / float64(n), Lo: lo, Hi: hi, Analytic: analytic,
		Holds: analytic >= lo && analytic <= hi}
}

// designEffect is the variance of a share over turns grouped in clusters
// (turns a same incident hit: cluster ≥ 0; -1 a turn on its own), over
// the variance the share would have were the turns independent — Kish's
// design effect, with the cluster-robust variance Σ_c (x_c − p·m_c)². An
// incident fails many turns at once, so a day's exhaustion rests on fewer
// independent draws than its turn count, and the Wilson interval is taken
// over n / deff turns. 1 when nothing clusters, the share is 0 or 1, or
// the clusters happen to vary less than independent turns would.
func designEffect(xs []bool, cluster []int32) float64 {
	n := len(xs)
	k := 0
	for _, x := range xs {
		if x {
			k++
		}
	}
	if n == 0 || k == 0 || k == n {
		return 1
	}
	p := float64(k) / float64(n)
	var sums [][2]float64 // by cluster (an incident's id): failed, turns
	ss := 0.0
	for i, x := range xs {
		v := 0.0
		if x {
			v = 1
		}
		c := int(cluster[i])
		if c < 0 {
			ss += (v - p) * (v - p)
			continue
		}
		for len(sums) <= c {
			sums = append(sums, [2]float64{})
		}
		sums[c][0] += v
		sums[c][1]++
	}
	for _, s := range sums { // in the order of ids: a float sum's bits depend on its order
		d := s[0] - p*s[1]
		ss += d * d
	}
	return max(1, ss/(float64(n)*p*(1-p)))
}
