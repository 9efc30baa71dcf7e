// Package mutants holds deliberately wrong variants of the system under
// test, each a realistic bug, to show that turnsim's search and oracle find
// them. A mutant is built from the real pieces through the extension points
// a policy author has (request-error listeners); nothing here is reachable
// from loop/.
package mutants

import (
	"slices"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/sim"
)

// Mutant is one bug and the invariant it must trip.
type Mutant struct {
	Name  string
	Bug   string
	Trips string
	// Options install the bug into the world.
	Options sim.Options
}

// Zoo is every mutant, by name.
var Zoo = []Mutant{
	{
		Name:  "budget-off-by-one",
		Bug:   "a normal-mode retry listener that allows maxRetries + 1 retries (previous > maxRetries instead of >=)",
		Trips: "retry-budget",
		Options: sim.Options{Install: map[string]func(*loop.Agent){
			sim.ListenerRetry: func(a *loop.Agent) { a.AddRequestErrorListener("llm-retry", (&buggyRetry{offByOne: true}).handle) },
		}},
	},
	{
		Name:  "retry-auth",
		Bug:   "a normal-mode retry listener that also retries AUTH, whatever its policy's retryable codes say",
		Trips: "non-retryable-stays-terminal",
		Options: sim.Options{Install: map[string]func(*loop.Agent){
			sim.ListenerRetry: func(a *loop.Agent) {
				a.AddRequestErrorListener("llm-retry", (&buggyRetry{extraCodes: []string{"AUTH"}}).handle)
			},
		}},
	},
}

// Find returns the mutant with a name.
func Find(name string) (Mutant, bool) {
	i := slices.IndexFunc(Zoo, func(m Mutant) bool { return m.Name == name })
	if i < 0 {
		return Mutant{}, false
	}
	return Zoo[i], true
}

// Names lists the zoo.
func Names() []string {
	var out []string
	for _, m := range Zoo {
		out = append(out, m.Name)
	}
	return out
}
