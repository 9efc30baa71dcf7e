package budget

import (
	"fmt"
	"iter"
	"math"

	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/loop/session"
)

// An environment with a horizon is one stretch of virtual time rather than
// many worlds that each start at 0 ms: turns arrive over it, incidents come
// and go over it, and a turn meets whatever is happening while its
// requests run. Its independent failures, bursts, latency and workload
// apply to each turn as in a per-turn environment.

// Arrivals is when turns begin: Poisson arrivals at PerMinute, or at the
// rates of a Schedule (a day's traffic that rises and falls).
type Arrivals struct {
	PerMinute float64 `json:"perMinute"`
	Schedule  []Rate  `json:"schedule"`
	// RepeatEveryMs, when set, repeats the schedule with this period
	// (86400000: every day); its entries' fromMs are then within one
	// period.
	RepeatEveryMs float64 `json:"repeatEveryMs"`
}

// Rate is a schedule's rate from FromMs until the next entry's FromMs
// (the last one to the horizon's end); before the first entry no turn
// arrives.
type Rate struct {
	FromMs    float64 `json:"fromMs"`
	PerMinute float64 `json:"perMinute"`
}

// IncidentKind is a kind of incident that arrives as a Poisson process at
// PerHour over the horizon and lasts ForMs (drawn for each incident):
// while it lasts, every request fails with Code (and Status), carrying a
// Retry-After drawn once per incident when RetryAfterMs is set. Incidents
// are in progress at the horizon's start as often as at any other time
// (the process is stationary), and may overlap.
type IncidentKind struct {
	PerHour      float64       `json:"perHour"`
	ForMs        *Distribution `json:"forMs"`
	Code         string        `json:"code"`
	Status       int           `json:"status"`
	RetryAfterMs *Distribution `json:"retryAfterMs"`
}

// maxTurns bounds a horizon's expected turns, so that a rate in the wrong
// unit is refused rather than run for hours.
const maxTurns = 5_000_000

// maxIncidents bounds the expected incidents over the horizon, of one
// kind and of all kinds together (each is drawn and kept for the run).
const maxIncidents = 1_000_000

// maxRates bounds the arrival rates a horizon goes through: a schedule's
// entries times the periods it repeats over. Each begins a fresh draw of
// the wait for the next arrival, so a thousand rates repeated every
// minute over a year (527 million) took gigabytes, and then minutes,
// before any turn ran; they are counted before any is drawn.
const maxRates = 50_000_000

// maxHorizonMs is a horizon's ceiling, a year (366 days). It is a
// ceiling of its own, not limits.Current.DurationMs: that bounds the
// durations and times a turn meets in its own world, which begins at
// 0 ms wherever the turn arrives, while the horizon is the stretch the
// turns arrive over, which no timer waits on and no turn's virtual time
// reaches.
const maxHorizonMs = 366 * 24 * 3600e3

// Timed reports whether the environment is a stretch of virtual time.
func (e *Environment) Timed() bool { return e != nil && e.HorizonMs > 0 }

// validateHorizon checks the fields of a timed environment, and that an
// untimed one sets none of them.
func (e *Environment) validateHorizon() error {
	if e.HorizonMs == 0 {
		switch {
		case e.Arrivals != nil:
			return fmt.Errorf("arrivals: needs horizonMs > 0, the stretch of virtual time turns arrive over")
		case len(e.Incidents) > 0:
			return fmt.Errorf("incidents: needs horizonMs > 0, the stretch of virtual time incidents arrive over")
		}
		return nil
	}
	if !(e.HorizonMs > 0) || e.HorizonMs > maxHorizonMs {
		return fmt.Errorf("horizonMs: must be > 0 and at most a year, %s ms (a ceiling of its own: --max-duration-ms bounds the times each turn meets from its arrival, not the stretch turns arrive over), got %s",
			number(maxHorizonMs), number(e.HorizonMs))
	}
	a := e.Arrivals
	if a == nil {
		return fmt.Errorf("arrivals: missing: a horizon needs turns arriving over it ({\"perMinute\": 30})")
	}
	switch {
	case len(a.Schedule) == 0 && !(a.PerMinute > 0):
		return fmt.Errorf("arrivals: needs perMinute > 0 or a schedule")
	case len(a.Schedule) > 0 && a.PerMinute != 0:
		return fmt.Errorf("arrivals: give perMinute or schedule, not both")
	case !(a.PerMinute >= 0):
		return fmt.Errorf("arrivals.perMinute: must be > 0, got %s", number(a.PerMinute))
	}
	end, endName := e.HorizonMs, "horizonMs"
	switch {
	case a.RepeatEveryMs != 0 && len(a.Schedule) == 0:
		return fmt.Errorf("arrivals.repeatEveryMs: repeats a schedule: give one")
	case a.RepeatEveryMs != 0 && !(a.RepeatEveryMs >= 60e3):
		return fmt.Errorf("arrivals.repeatEveryMs: must be at least a minute (60000), got %s", number(a.RepeatEveryMs))
	case math.IsInf(a.RepeatEveryMs, 1):
		// No file's, and it would leave expectedTurns NaN: unbounded.
		return fmt.Errorf("arrivals.repeatEveryMs: must be finite, got %s", number(a.RepeatEveryMs))
	case a.RepeatEveryMs != 0:
		end, endName = a.RepeatEveryMs, "repeatEveryMs"
	}
	for i, r := range a.Schedule {
		switch {
		case !(r.FromMs >= 0) || r.FromMs >= end:
			return fmt.Errorf("arrivals.schedule[%d].fromMs: must be in [0, %s), got %s", i, endName, number(r.FromMs))
		case i > 0 && !(r.FromMs > a.Schedule[i-1].FromMs):
			return fmt.Errorf("arrivals.schedule[%d].fromMs: must be after schedule[%d]'s %s, got %s", i, i-1, number(a.Schedule[i-1].FromMs), number(r.FromMs))
		case !(r.PerMinute >= 0):
			return fmt.Errorf("arrivals.schedule[%d].perMinute: must be ≥ 0, got %s", i, number(r.PerMinute))
		case math.IsInf(r.PerMinute, 1): // no file's; ∞ × a span of 0 is NaN
			return fmt.Errorf("arrivals.schedule[%d].perMinute: must be finite, got %s", i, number(r.PerMinute))
		}
	}
	if n := e.rateCount(); n > maxRates {
		return fmt.Errorf("arrivals: a schedule of %d rates repeated every %s ms goes through %s rates over the horizon, more than the %d a run draws (each change of rate is a draw): repeat it less often, give fewer rates or a shorter horizon",
			len(a.Schedule), number(a.RepeatEveryMs), number(n), maxRates)
	}
	if n := e.expectedTurns(); n == 0 {
		return fmt.Errorf("arrivals: every rate of the schedule is 0: no turn can arrive")
	} else if !(n <= maxTurns) {
		return fmt.Errorf("arrivals: %.0f turns expected over the horizon, more than the %d a run takes: is the rate per minute?", n, maxTurns)
	}
	for i, o := range e.Outages {
		if o.FromMs >= e.HorizonMs {
			return fmt.Errorf("outages[%d].fromMs: with a horizon, a time on it: must be under horizonMs (%s), got %s", i, number(e.HorizonMs), number(o.FromMs))
		}
	}
	incidents := 0.0 // expected, of the kinds so far
	for i, k := range e.Incidents {
		at := fmt.Sprintf("incidents[%d]", i)
		switch {
		case !(k.PerHour > 0) || k.PerHour > 3600:
			return fmt.Errorf("%s.perHour: must be in (0, 3600], got %s", at, number(k.PerHour))
		case k.ForMs == nil:
			return fmt.Errorf("%s.forMs: missing: how long an incident lasts ({\"fixed\": 30000})", at)
		case k.Code == "":
			return fmt.Errorf("%s.code: missing", at)
		case k.Status != 0 && !session.ValidStatus(k.Status):
			return fmt.Errorf("%s.status: must be an HTTP status in 100..599, got %d", at, k.Status)
		}
		// An incident in progress at the horizon's start has a
		// length-biased length: two exponential draws for an exponential.
		if err := k.ForMs.validate(at+".forMs", 2); err != nil {
			return err
		}
		if m := k.ForMs.mean(); m > e.HorizonMs {
			return fmt.Errorf("%s.forMs: a mean of %s ms is longer than the horizon", at, number(m))
		}
		n := k.PerHour / 3600e3 * (e.HorizonMs + k.ForMs.mean())
		if n > maxIncidents {
			return fmt.Errorf("%s.perHour: %s an hour is %.0f incidents over the horizon, more than the %d a run takes", at, number(k.PerHour), n, maxIncidents)
		}
		if incidents += n; incidents > maxIncidents {
			return fmt.Errorf("%s.perHour: %s an hour brings the incidents expected over the horizon, with the kinds before it, to %.0f, more than the %d a run takes", at, number(k.PerHour), incidents, maxIncidents)
		}
		if k.RetryAfterMs != nil {
			if err := k.RetryAfterMs.validate(at+".retryAfterMs", 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// expectedTurns is the mean number of arrivals over the horizon, summed
// over one period of the schedule rather than over every period: a
// schedule repeated every minute over a year is half a million of them.
func (e *Environment) expectedTurns() float64 {
	a := e.Arrivals
	if len(a.Schedule) == 0 {
		return a.PerMinute * e.HorizonMs / 60e3
	}
	period := a.RepeatEveryMs
	if period == 0 {
		period = e.HorizonMs // once, the last rate to the horizon's end
	}
	whole := math.Floor(e.HorizonMs / period)
	rest := e.HorizonMs - whole*period // of the last period, cut by the horizon's end
	n := 0.0
	for i, r := range a.Schedule {
		to := period
		if i+1 < len(a.Schedule) {
			to = a.Schedule[i+1].FromMs
		}
		n += r.PerMinute * (whole*(to-r.FromMs) + max(0, min(to, rest)-r.FromMs)) / 60e3
	}
	return n
}

// rateCount is the most rates that rates gives, counted without going
// through them: the schedule's entries in every period begun.
func (e *Environment) rateCount() float64 {
	a := e.Arrivals
	if len(a.Schedule) == 0 || a.RepeatEveryMs == 0 {
		return float64(max(1, len(a.Schedule)))
	}
	return math.Ceil(e.HorizonMs/a.RepeatEveryMs) * float64(len(a.Schedule))
}

// span is a rate with its end.
type spanRate struct {
	Rate
	toMs float64
}

// rates are the arrival rates over the horizon, in order, each with its
// end: the one rate, or the schedule's, repeated when it repeats. They
// are given one at a time, never held: rateCount bounds them, and there
// may be millions.
func (e *Environment) rates() iter.Seq[spanRate] {
	return func(yield func(spanRate) bool) {
		a := e.Arrivals
		if len(a.Schedule) == 0 {
			yield(spanRate{Rate{0, a.PerMinute}, e.HorizonMs})
			return
		}
		period := a.RepeatEveryMs
		if period == 0 {
			period = math.Inf(1)
		}
		for base := 0.0; base < e.HorizonMs; base += period {
			for i, r := range a.Schedule {
				from, to := base+r.FromMs, base+period
				if i+1 < len(a.Schedule) {
					to = base + a.Schedule[i+1].FromMs
				}
				if from < e.HorizonMs && !yield(spanRate{Rate{from, r.PerMinute}, min(to, e.HorizonMs)}) {
					return
				}
			}
		}
	}
}

// mean is the distribution's expected value.
func (d *Distribution) mean() float64 {
	switch {
	case d.Fixed != nil:
		return *d.Fixed
	case d.Uniform != nil:
		return (d.Uniform[0] + d.Uniform[1]) / 2
	}
	return *d.Exponential
}

// drawLengthBiased samples a value with density proportional to x·f(x),
// from two uniforms: the length of the incident a random instant falls in
// (longer ones are likelier to be in progress).
func (d *Distribution) drawLengthBiased(u1, u2 float64) float64 {
	switch {
	case d.Fixed != nil:
		return *d.Fixed
	case d.Uniform != nil:
		lo, hi := d.Uniform[0], d.Uniform[1]
		return math.Sqrt(lo*lo + u1*(hi*hi-lo*lo))
	}
	// Length-biasing an exponential gives a Gamma(2) of the same scale.
	return *d.Exponential * (-math.Log1p(-u1) - math.Log1p(-u2))
}

// number writes a figure as written in a file: 4000000, not 4e+06; but
// 1e+308, not a 309-digit number, from 1e21 up and below 1e-6 (where
// JavaScript, which DSH's files are written for, switches too).
func number(v float64) string { return limits.Number(v) }
