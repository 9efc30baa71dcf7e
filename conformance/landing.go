package conformance

import (
	"fmt"
	"slices"

	"github.com/turnsim/turnsim/sim"
)

// Margin is how far an input or a cancel may land from its place in DSH
// without changing the session, for a scenario to be run against DSH. On
// this machine the driver's lag (an event reaching the driver, its call
// reaching the agent) is a few milliseconds; DSH also falls behind the
// model's virtual time by its own processing, a few milliseconds a request.
const Margin float64 = 250 // ms

// ObserveWindow is how long after its landing an observe action may read
// DSH's Web UI: opening the session in the page, waiting for it to catch
// up, reading its rows and taking a screenshot take up to a few seconds,
// and the session must not move meanwhile.
const ObserveWindow float64 = 6000 // ms

// Uncertain lists the inputs and world actions whose landing in DSH is not
// certain: moved by Margin either way their trigger allows, the model's
// session goes otherwise. The model lands an action exactly at its
// trigger; DSH's driver lands it a little later than its trigger event, or
// a little earlier relative to DSH's own (slower) events. An action aimed
// inside a wait of seconds is certain; one placed right after an event
// that DSH follows at once with another is not.
func Uncertain(s *sim.Scenario) []error {
	base, _ := ModelSide(s, SessionCwd, sim.Options{})
	want := base.Lines()
	var errs []error
	check := func(field string, a sim.Action, shift func(*sim.Scenario, sim.Trigger)) {
		later := Margin
		if a.Do == "observe" {
			later = ObserveWindow // the page is read over seconds
		}
		for _, moved := range shifted(a.Trigger, later) {
			c := *s
			c.Inputs, c.World = slices.Clone(s.Inputs), slices.Clone(s.World)
			shift(&c, moved.trigger)
			got, _ := ModelSide(&c, SessionCwd, sim.Options{})
			if line, ok := firstDifference(want, got.Lines()); ok {
				errs = append(errs, fmt.Errorf("%s: landing in DSH is not certain: %s, the session goes otherwise (%s); aim it inside a wait of seconds",
					field, moved.how, line))
				return
			}
		}
	}
	for i := range s.Inputs {
		check(fmt.Sprintf("inputs[%d]", i), sim.Action{Trigger: s.Inputs[i].Trigger}, func(c *sim.Scenario, t sim.Trigger) { c.Inputs[i].Trigger = t })
	}
	for i := range s.World {
		check(fmt.Sprintf("world[%d]", i), s.World[i], func(c *sim.Scenario, t sim.Trigger) { c.World[i].Trigger = t })
	}
	return errs
}

type shift struct {
	trigger sim.Trigger
	how     string
}

// shifted are the places a trigger may land in DSH at the edges of the
// margin: later always; earlier only when it is timed (DSH's events run
// late against the model's clock), never before its trigger event.
func shifted(t sim.Trigger, laterMs float64) []shift {
	later, earlier := t, t
	if t.After == "" {
		later.AtMs += laterMs
		earlier.AtMs = max(t.AtMs-Margin, 0)
		out := []shift{{later, fmt.Sprintf("%v ms later", laterMs)}}
		if earlier.AtMs != t.AtMs {
			out = append(out, shift{earlier, fmt.Sprintf("%v ms earlier", t.AtMs-earlier.AtMs)})
		}
		return out
	}
	later.PlusMs += laterMs
	earlier.PlusMs = max(t.PlusMs-Margin, 0)
	out := []shift{{later, fmt.Sprintf("%v ms later", laterMs)}}
	if earlier.PlusMs != t.PlusMs {
		out = append(out, shift{earlier, fmt.Sprintf("%v ms earlier", t.PlusMs-earlier.PlusMs)})
	}
	return out
}

// firstDifference is the first line where two skeletons part.
func firstDifference(want, got []string) (string, bool) {
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			return fmt.Sprintf("line %d: %q becomes %q", i+1, want[i], got[i]), true
		}
	}
	switch {
	case len(want) > len(got):
		return fmt.Sprintf("line %d: %q is missing", len(got)+1, want[len(got)]), true
	case len(got) > len(want):
		return fmt.Sprintf("line %d: %q is added", len(want)+1, got[len(want)]), true
	}
	return "", false
}
