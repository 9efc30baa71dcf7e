package faults

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/sim"
)

// PlanLines prints a plan one line per entry.
func PlanLines(s *sim.Scenario) []string {
	var out []string
	for i, r := range s.Requests {
		out = append(out, fmt.Sprintf("request %d: %s", i+1, outcome(&r)))
	}
	for i, sm := range s.Summaries {
		if sm.Fail != nil {
			out = append(out, fmt.Sprintf("summary %d: fail %q", i+1, *sm.Fail))
		} else {
			out = append(out, fmt.Sprintf("summary %d: text", i+1))
		}
	}
	for i, in := range s.Inputs {
		out = append(out, fmt.Sprintf("input %d: %s %q %s", i+1, in.Kind, short(in.Text), trigger(in.Trigger)))
	}
	for _, a := range s.World {
		what := a.Do
		if a.Do == "cancel" {
			what += " " + a.Cause.Kind
			if a.KeepInbox {
				what += " keepInbox"
			}
		}
		out = append(out, fmt.Sprintf("world: %s %s", what, trigger(a.Trigger)))
	}
	for _, o := range s.Outages {
		out = append(out, fmt.Sprintf("outage: %s from %v to %v ms", o.Fail.Code, o.FromMs, o.ToMs))
	}
	return out
}

func outcome(o *sim.Outcome) string {
	var s string
	switch {
	case o.Fail != nil:
		s = "fail " + o.Fail.Code
		if o.Fail.Status != nil {
			s += " " + strconv.Itoa(*o.Fail.Status)
		}
		if o.Fail.ProviderRetryAfterMs != nil {
			s += fmt.Sprintf(" retry-after %vms", *o.Fail.ProviderRetryAfterMs)
		}
		if o.AfterChunks > 0 {
			s += fmt.Sprintf(" after %d chunks", o.AfterChunks)
		}
	case o.Hang:
		s = "hang"
	case o.MaxTokens != nil:
		s = "max tokens"
	case len(o.ToolCalls) > 0:
		var names []string
		for _, c := range o.ToolCalls {
			names = append(names, c.Name)
		}
		s = "tool calls " + strings.Join(names, ", ")
	default:
		s = "text"
	}
	if o.LatencyMs > 0 {
		s += fmt.Sprintf(" (latency %vms)", o.LatencyMs)
	}
	if o.ListenerThrows {
		s += ", and a listener throws handling it"
	}
	return s
}

func trigger(t sim.Trigger) string {
	if t.After != "" && t.PlusMs > 0 {
		return fmt.Sprintf("%vms after %s #%d", t.PlusMs, t.After, t.Nth)
	}
	if t.After != "" {
		return fmt.Sprintf("after %s #%d", t.After, t.Nth)
	}
	return fmt.Sprintf("at %vms", t.AtMs)
}

func short(s string) string {
	if r := []rune(s); len(r) > 30 {
		return string(r[:27]) + "..."
	}
	return s
}
