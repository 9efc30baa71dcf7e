// Package mutants holds deliberately wrong variants of the system under
// test, each a realistic bug, to show that turnsim's search and oracle find
// them. A mutant is built from the real pieces through the extension points
// a policy author has (request-error listeners); nothing here is reachable
// from loop/.
package mutants

import (
	"slices"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// Mutant is one bug and the invariant it must trip.
type Mutant struct {
	Name  string
	Bug   string
	Trips oracle.ID
	// Options install the bug into the world.
	Options sim.Options
}

// Zoo is every mutant, by name.
var Zoo = []Mutant{
	{
		Name:    "budget-off-by-one",
		Bug:     "a normal-mode retry listener that allows maxRetries + 1 retries (previous > maxRetries instead of >=)",
		Trips:   "retry-budget",
		Options: retryMutant(buggyRetry{offByOne: true}),
	},
	{
		Name:    "retry-auth",
		Bug:     "a normal-mode retry listener that also retries AUTH, whatever its policy's retryable codes say",
		Trips:   "non-retryable-stays-terminal",
		Options: retryMutant(buggyRetry{extraCodes: []string{"AUTH"}}),
	},
	{
		Name: "wait-ignores-cancel",
		Bug: "the backoff wait is not cancellable: a cancel during the wait still leads to llm/retry-started and a retry " +
			"action (the loop's re-check then stops the attempt, but the listener already claimed it)",
		Trips:   "cancelled-turn-never-retries",
		Options: retryMutant(buggyRetry{waitIgnoresCancel: true}),
	},
	{
		Name:    "retry-before-delay",
		Bug:     "the delay is computed and logged, but the wait uses half of it",
		Trips:   "backoff-honoured",
		Options: retryMutant(buggyRetry{waitFraction: 0.5}),
	},
	{
		Name:    "jitter-out-of-bounds",
		Bug:     "jitter drawn in [1, 1+2j] (the ratio never subtracted) instead of [1-j, 1+j]",
		Trips:   "backoff-honoured",
		Options: retryMutant(buggyRetry{jitterUpOnly: true}),
	},
	{
		Name:    "compact-retry-after-failure",
		Bug:     "the overflow listener returns retry when compaction threw and the surface did not change",
		Trips:   "overflow-recovery-bounded",
		Options: replace(sim.ListenerCompaction, retryAfterFailedCompaction),
	},
	{
		Name:    "compact-unbounded",
		Bug:     "the overflow counter is never checked against maxOverflowRetries",
		Trips:   "overflow-recovery-bounded",
		Options: replace(sim.ListenerCompaction, unboundedCompaction),
	},
	{
		Name:    "view-suppress-on-retry",
		Bug:     "the retired turn-error rule: the Web view hides a turn's error node when the turn has any llm/retry",
		Trips:   "exhausted-turn-renders-error",
		Options: sim.Options{Derive: suppressOnRetry},
	},
	{
		Name:    "tail-window-drift",
		Bug:     "the turn-error derivation needs the turn/start inside the rendered tail window",
		Trips:   "exhausted-turn-renders-error",
		Options: sim.Options{Derive: tailWindowDrift},
	},
	{
		Name:    "throw-becomes-retry",
		Bug:     "the loop settles a thrown request-error waterfall as a retry instead of ending the turn with the thrown error",
		Trips:   "retry-after-handled-failure",
		Options: sim.Options{Settle: throwBecomesRetry},
	},
	{
		Name: "loop-no-recheck",
		Bug: "the loop consumes a retry action without re-checking the turn signal after the waterfall, " +
			"and resends the request at once: a cancel that landed during recovery does not stop the retry",
		Trips:   "cancelled-turn-never-retries",
		Options: sim.Options{Attempts: resendWithoutRecheck},
	},
	{
		Name: "listener-wait-ignores-cancel",
		Bug: "a listener of one's own (SERVER twice, 100 ms apart, nothing logged) waits on a background context: " +
			"a cancel during its wait ends the turn only when the wait is over",
		Trips:   "cancel-takes-effect-at-once",
		Options: sim.Options{Listeners: []sim.Listener{backgroundWait()}},
	},
	{
		Name: "recover-after-turn",
		Bug: "a loop variant: the request-error waterfall is not awaited — a failed attempt ends its turn with the failure at once, " +
			"and the listeners run once the turn's end is written",
		Trips:   "listener-within-turn",
		Options: sim.Options{Attempts: recoverAfterTurn},
	},
	{
		Name:    "steer-lost-on-retry",
		Bug:     "a retry rebuilds its request from the history but leaves out the steering messages its step claimed",
		Trips:   "no-lost-input",
		Options: sim.Options{Attempts: dropClaimsOnRetry},
	},
	{
		Name: "loop-retry-window",
		Bug: "the retired Agent.retry() design: a failed attempt closes its turn with the error, and a retry is carried out " +
			"by queueing the turn's input again for a new numbered turn (the same message inserted twice)",
		Trips:   "no-lost-input",
		Options: sim.Options{Attempts: retryWindow},
	},
}

// retryMutant puts a buggy retry listener in llm-retry's place; each run
// gets its own copy.
func retryMutant(bug buggyRetry) sim.Options {
	return replace(sim.ListenerRetry, func(sim.Env) loop.RequestErrorListener {
		b := bug
		return b.handle
	})
}

// replace is the options that plug a listener in a built-in's place.
func replace(builtIn string, build func(sim.Env) loop.RequestErrorListener) sim.Options {
	return sim.Options{Listeners: []sim.Listener{{Name: builtIn, New: build}}}
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
