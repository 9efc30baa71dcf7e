package explore

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/sim"
)

func letter(t *testing.T, name string) int {
	t.Helper()
	for i, e := range alphabet {
		if e.name == name {
			return i
		}
	}
	t.Fatalf("no alphabet entry %q", name)
	return -1
}

func policy(t *testing.T, name string) Policy {
	t.Helper()
	for _, p := range DefaultPolicies() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no default policy %q", name)
	return Policy{}
}

// TestCorrectLoopOneFault: every one-fault plan under every default
// policy passes the oracle, and the report does not depend on the number
// of workers.
func TestCorrectLoopOneFault(t *testing.T) {
	for _, p := range DefaultPolicies() {
		one := Explore(t.Context(), p, Options{MaxFaults: 1, Workers: 1})
		if one.Violating > 0 {
			t.Errorf("%s: %d violating plans; first: %s %v", p.Name, one.Violating, one.Failures[0].Violation, one.Failures[0].Plan.Lines())
		}
		root := sim.RunWith(Workload(p), sim.Options{})
		if len(one.Levels) != 2 || one.Levels[0].Plans != 1 || one.Levels[1].Plans != len(extensions(root, nil)) {
			t.Errorf("%s: levels %+v, want the empty plan and one plan per extension of its run (%d)", p.Name, one.Levels, len(extensions(root, nil)))
		}
		if one.Plans < 300 || one.Distinct < 100 || one.Distinct > one.Plans {
			t.Errorf("%s: %d plans, %d distinct: the workload has fewer choice points than it should", p.Name, one.Plans, one.Distinct)
		}
		three := Explore(t.Context(), p, Options{MaxFaults: 1, Workers: 3})
		if diff := cmp.Diff(one.Levels, three.Levels); diff != "" {
			t.Errorf("%s: levels differ between 1 and 3 workers (-1 +3):\n%s", p.Name, diff)
		}
	}
}

// TestMutantsFound: exploration finds each mutant of the zoo within two
// faults, under the default policy that exposes it. The rows say why that
// policy and that many faults.
func TestMutantsFound(t *testing.T) {
	rows := []struct {
		mutant, policy string
		faults         int
		why            string
	}{
		{"budget-off-by-one", "dsh-default", 1, "a persistent failure exhausts the budget; the mutant retries once more"},
		{"retry-auth", "dsh-default", 1, "AUTH is not retryable under the default policy"},
		{"wait-ignores-cancel", "dsh-default", 2, "a failure, then a cancel inside its backoff wait"},
		{"retry-before-delay", "dsh-default", 1, "any retried failure shows the short wait"},
		{"jitter-out-of-bounds", "dsh-default", 1, "any retried failure draws the jitter"},
		{"compact-retry-after-failure", "dsh-default", 1, "an overflow whose compaction cannot shrink the small history"},
		{"compact-unbounded", "dsh-default-no-overflow-retries", 2, "a budget of zero compactions; a late input gives compaction something to condense"},
		{"view-suppress-on-retry", "dsh-default", 1, "an exhausted turn has retries, and the view hides its error"},
		{"tail-window-drift", "dsh-default", 1, "a failed turn's error node needs its turn/start in the tail window"},
		{"throw-becomes-retry", "dsh-default", 1, "a listener throws handling a failure"},
		{"loop-no-recheck", "dsh-default", 2, "a failure, then a cancel after llm/retry-started"},
		{"listener-wait-ignores-cancel", "dsh-default", 2, "a SERVER failure the plugged-in listener (placed first) waits on, then a cancel inside that wait"},
		{"recover-after-turn", "dsh-default", 1, "any failure: llm-retry answers it after the turn ended"},
		{"steer-lost-on-retry", "dsh-default", 2, "a message claimed by the step, then a failure it retries"},
		{"loop-retry-window", "dsh-default", 1, "any retry re-queues the turn's input"},
	}
	if len(rows) != len(mutants.Zoo) {
		t.Fatalf("%d rows for %d mutants: a new mutant needs its row", len(rows), len(mutants.Zoo))
	}
	for _, row := range rows {
		t.Run(row.mutant, func(t *testing.T) {
			t.Parallel()
			if raceEnabled && slowUnderRace[row.mutant] {
				t.Skip("10 to 15 s under -race, with nothing for the race detector to find in one goroutine: make explore runs it without")
			}
			m, ok := mutants.Find(row.mutant)
			if !ok {
				t.Fatalf("no mutant %q", row.mutant)
			}
			r := Explore(t.Context(), policy(t, row.policy), Options{MaxFaults: row.faults, Sim: m.Options, StopAt: m.Trips})
			if !r.Found {
				t.Fatalf("not found in %d plans of at most %d faults (%s)", r.Plans, row.faults, row.why)
			}
			// The plan that reached StopAt may break other invariants
			// too; its failure under the mutant's is the one asked for.
			i := slices.IndexFunc(r.Failures, func(f Failure) bool { return f.Violation.Invariant == m.Trips })
			if i < 0 {
				t.Fatalf("found, but no failure of %s among %d", m.Trips, len(r.Failures))
			}
			f := r.Failures[i]
			if f.Violation.Invariant != m.Trips || len(f.Plan) != row.faults {
				t.Errorf("found %s with %d faults %v, want %s with %d (%s)", f.Violation.Invariant, len(f.Plan), f.Plan.Lines(), m.Trips, row.faults, row.why)
			}
			// The plan replays from its scenario alone.
			if !judge.Violates(f.Scenario, m.Trips, m.Options) {
				t.Errorf("the failing scenario does not replay to %s", m.Trips)
			}
		})
	}
}

// slowUnderRace are the mutants whose search (two faults, one a cancel,
// searched after every one-fault plan) takes most of make test's time
// under -race; make explore runs TestMutantsFound whole without it.
var slowUnderRace = map[string]bool{
	"wait-ignores-cancel":          true,
	"loop-no-recheck":              true,
	"listener-wait-ignores-cancel": true,
}

// TestPlansAreCanonical: growing every one-fault plan by one fault makes
// no plan twice, keeps each plan's faults in canonical order, and every
// fault of every plan takes effect (no world action is left unapplied).
func TestPlansAreCanonical(t *testing.T) {
	p := policy(t, "dsh-default")
	base := Workload(p)
	seen := map[string]bool{}
	root := sim.RunWith(base, sim.Options{})
	ones := extensions(root, nil)
	for _, f := range ones {
		plan := Plan{f}
		res := sim.RunWith(apply(base, plan), sim.Options{})
		for _, w := range res.Warnings {
			if strings.Contains(w, "never ran") {
				t.Errorf("%v: %s", plan.Lines(), w)
			}
		}
		for _, g := range extensions(res, &plan[0]) {
			two := Plan{f, g}
			if !g.after(f) {
				t.Errorf("%v is not in canonical order", two.Lines())
			}
			key := fmt.Sprint(two.Lines())
			if seen[key] {
				t.Errorf("%v is made twice", two.Lines())
			}
			seen[key] = true
		}
	}
	if len(seen) < 10000 {
		t.Errorf("%d two-fault plans, want the tens of thousands a two-step turn has", len(seen))
	}
}

// TestApply: a plan's request faults take the places of the requests they
// replace, and the workload's answers keep their order around them.
func TestApply(t *testing.T) {
	p := policy(t, "dsh-default")
	base := Workload(p)
	server, persistent := letter(t, "fail SERVER 503"), letter(t, "fail SERVER 503 from here on")
	summary := letter(t, "summary fails")
	rows := []struct {
		name string
		plan Plan
		want []string
	}{
		{"no fault: the workload", nil, []string{"request 1: tool calls read", "request 2: text"}},
		{"the first request fails: the tool call comes second", Plan{{letter: server, Request: 1}},
			[]string{"request 1: fail SERVER 503", "request 2: tool calls read", "request 3: text"}},
		{"two failures around the tool call", Plan{{letter: server, Request: 1}, {letter: server, Request: 3}},
			[]string{"request 1: fail SERVER 503", "request 2: tool calls read", "request 3: fail SERVER 503", "request 4: text"}},
		{"a persistent failure takes a run of requests", Plan{{letter: persistent, Request: 2}},
			append(append([]string{"request 1: tool calls read"}, repeat(2, persistentRun, "fail SERVER 503")...), fmt.Sprintf("request %d: text", persistentRun+2))},
		{"a request past the answers: the world's default answer before it", Plan{{letter: server, Request: 4}},
			[]string{"request 1: tool calls read", "request 2: text", "request 3: text", "request 4: fail SERVER 503"}},
		{"the second summary fails; the first answers", Plan{{letter: summary, Summary: 2}},
			[]string{"request 1: tool calls read", "request 2: text", "summary 1: text", `summary 2: fail "summary unavailable"`}},
	}
	for _, row := range rows {
		got := faults.PlanLines(apply(base, row.plan))
		got = slices.DeleteFunc(got, func(l string) bool { return strings.HasPrefix(l, "input 1:") })
		if diff := cmp.Diff(row.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", row.name, diff)
		}
	}
}

func repeat(from, n int, what string) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("request %d: %s", from+i, what))
	}
	return out
}

// TestDedupeLosesNoState: growing one plan per reached state reaches every
// log and every state that growing every plan reaches, at K = 2 under
// every default policy. (With the log and requests alone as the state it
// did not: a disposed agent and a cancel with cause "disposed" log the
// same.) Too slow under -race for make test; make explore runs it.
func TestDedupeLosesNoState(t *testing.T) {
	if raceEnabled {
		t.Skip("about a minute under -race: make explore runs it without")
	}
	for _, p := range DefaultPolicies() {
		deduped := Explore(t.Context(), p, Options{MaxFaults: 2})
		every := Explore(t.Context(), p, Options{MaxFaults: 2, NoDedupe: true})
		if deduped.Distinct != every.Distinct || deduped.States != every.States {
			t.Errorf("%s: %d logs and %d states with de-duplication, %d and %d without", p.Name,
				deduped.Distinct, deduped.States, every.Distinct, every.States)
		}
		if deduped.Plans >= every.Plans {
			t.Errorf("%s: de-duplication ran %d plans, growing every plan %d", p.Name, deduped.Plans, every.Plans)
		}
	}
}

// TestAListenerThatBlocksEndsTheExploration: a plug-in that waits on the
// real world ends the exploration at the first plan that reaches it, with
// that plan's failure, instead of waiting out the watchdog on every plan
// after it (it would have waited on hundreds).
func TestAListenerThatBlocksEndsTheExploration(t *testing.T) {
	waits := sim.Listener{Name: "waits", New: func(sim.Env) loop.RequestErrorListener {
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			<-ev.Signal.Done()
			return next()
		}
	}}
	r := Explore(t.Context(), DefaultPolicies()[0], Options{MaxFaults: 2, Workers: 2, Sim: sim.Options{Listeners: []sim.Listener{waits}, BlockedAfter: 20 * time.Millisecond}})
	if r.Blocked != "waits" || len(r.Failures) == 0 || !strings.Contains(r.Failures[len(r.Failures)-1].Violation.Message, `listener "waits" blocked outside virtual time`) {
		t.Fatalf("blocked %q, failures %v", r.Blocked, r.Failures)
	}
	if r.Plans > 512 {
		t.Errorf("%d plans ran: the exploration went on past the batch that blocked", r.Plans)
	}
}
