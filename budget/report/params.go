package report

import (
	"fmt"
	"strings"

	"github.com/turnsim/turnsim/budget"
	"github.com/turnsim/turnsim/loop"
)

// setting is one named setting, as a reader of the page sees it.
type setting struct{ Name, Value string }

// policyParams are a configuration's settings: the retry policy's, then
// compaction's and the listener order when it installs compaction, then
// plugged-in listeners.
func policyParams(c budget.Config) []setting {
	p := c.RetryPolicy
	var out []setting
	switch {
	case p == nil && c.Compaction == nil && len(c.Listeners) == 0:
		return nil
	case p == nil:
		out = append(out, setting{"retry policy", "none"})
	case p.Mode == loop.ModeAlways:
		out = append(out, setting{"mode", "always (retries until a success)"}, setting{"retryable codes", "every code"})
	default:
		out = append(out, setting{"mode", "normal"}, setting{"max retries", fmt.Sprint(p.MaxRetries)},
			setting{"retryable codes", strings.Join(p.RetryableCodes, ", ")})
	}
	if p != nil {
		out = append(out, setting{"backoff", fmt.Sprintf("%s ms doubling, capped at %s ms, jitter ±%s", round(p.InitialDelayMs), round(p.MaxDelayMs), round(p.JitterRatio))})
		if lo, hi, ok := budget.RecoveryBounds(p); ok {
			out = append(out, setting{"waits of an exhausted step", fmt.Sprintf("%s … %s ms", round(lo), round(hi))})
		}
	}
	if c.Compaction != nil {
		out = append(out, setting{"compaction", fmt.Sprintf("%d overflow recoveries", c.Compaction.MaxOverflowRetries)},
			setting{"listener order", strings.Join(c.Order(), " → ")})
	}
	for _, l := range c.Listeners {
		out = append(out, setting{"listener", l.Name})
	}
	return out
}

// envParams are an environment's settings, one line for each failure,
// burst state, outage, incident kind, and the horizon's shape.
func envParams(e *budget.Environment) []setting {
	if e == nil {
		return nil
	}
	var out []setting
	if e.Timed() {
		out = append(out, setting{"horizon", Span(e.HorizonMs) + " of virtual time"})
		a := e.Arrivals
		if len(a.Schedule) == 0 {
			out = append(out, setting{"turns arrive", fmt.Sprintf("%s a minute (Poisson)", round(a.PerMinute))})
		}
		for _, r := range a.Schedule {
			out = append(out, setting{"turns arrive", fmt.Sprintf("from %s: %s a minute (Poisson)", Clock(r.FromMs), round(r.PerMinute))})
		}
		if a.RepeatEveryMs > 0 {
			out = append(out, setting{"schedule", "repeats every " + Span(a.RepeatEveryMs)})
		}
	}
	for _, f := range e.Failures {
		out = append(out, setting{"independent failure", failureText(f)})
	}
	if b := e.Bursts; b != nil {
		out = append(out, setting{"bursts", fmt.Sprintf("good → bad %s, bad → good %s a request", share(b.PGoodToBad), share(b.PBadToGood))})
		for _, f := range b.Failures {
			out = append(out, setting{"in a burst", failureText(f)})
		}
	}
	for _, o := range e.Outages {
		at := fmt.Sprintf("from %s ms of each turn", round(o.FromMs))
		if e.Timed() {
			at = "at " + Clock(o.FromMs)
		}
		text := fmt.Sprintf("%s %s for %s", codeText(o.Code, o.Status), at, Span(o.ForMs))
		if o.RetryAfterMs != nil {
			text += ", Retry-After " + distText(o.RetryAfterMs, "ms")
		}
		out = append(out, setting{"outage", text})
	}
	for _, k := range e.Incidents {
		text := fmt.Sprintf("%s, %s an hour, lasting %s", codeText(k.Code, k.Status), round(k.PerHour), distText(k.ForMs, "ms"))
		if k.RetryAfterMs != nil {
			text += ", Retry-After " + distText(k.RetryAfterMs, "ms")
		}
		out = append(out, setting{"incidents", text})
	}
	if e.LatencyMs != nil {
		out = append(out, setting{"latency", distText(e.LatencyMs, "ms")})
	}
	if w := e.Workload; w != nil {
		text := fmt.Sprintf("%d tool steps of %d characters", w.ToolSteps, w.ResultChars)
		if w.ContextWindow > 0 {
			text += fmt.Sprintf(", context window %d tokens", w.ContextWindow)
		}
		out = append(out, setting{"workload", text})
	}
	if len(out) == 0 {
		out = append(out, setting{"failures", "none: no request fails"})
	}
	return out
}

func failureText(f budget.Failure) string {
	text := fmt.Sprintf("%s with p %s", codeText(f.Code, f.Status), share(f.P))
	if f.RetryAfterMs != nil {
		text += ", Retry-After " + distText(f.RetryAfterMs, "ms")
	}
	return text
}

func codeText(code string, status int) string {
	if status == 0 {
		return code
	}
	return fmt.Sprintf("%s %d", code, status)
}

func distText(d *budget.Distribution, unit string) string {
	switch {
	case d.Fixed != nil:
		return round(*d.Fixed) + " " + unit
	case d.Uniform != nil:
		return fmt.Sprintf("uniform %s–%s %s", round(d.Uniform[0]), round(d.Uniform[1]), unit)
	}
	return fmt.Sprintf("exponential, mean %s %s", round(*d.Exponential), unit)
}
