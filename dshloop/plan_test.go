package dshloop

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// plain is a one-turn scenario DSH's composition takes as it is.
func plain() *sim.Scenario {
	text := "ok"
	return &sim.Scenario{Recovery: sim.Recovery{ListenerOrder: []string{sim.ListenerRetry, sim.ListenerCompaction}}, Name: "plain", Provider: "deepseek", Model: "deepseek-chat", ContextWindow: 128000, MaxEvents: 400,
		Requests: []sim.Outcome{{Fail: &session.LlmFailure{Code: "SERVER", Message: "busy"}}, {Text: &text}},
		Inputs:   []sim.Input{{Kind: "send", Text: "hi", Trigger: sim.Trigger{Nth: 1}}}}
}

// TestFromScenarioRefusesWhatDSHCannotBeAsked: each field the in-process
// composition cannot enact is refused by name, and nothing else is.
func TestFromScenarioRefusesWhatDSHCannotBeAsked(t *testing.T) {
	for _, tt := range []struct {
		why    string
		change func(s *sim.Scenario)
		want   []string // the refused fields, in order; none: a plan
	}{
		{"a scenario of built-in listeners and wire codes is a plan", func(*sim.Scenario) {}, nil},
		{"DSH's composition always registers its adapter", func(s *sim.Scenario) { s.NoAdapter = true }, []string{"adapter"}},
		{"DSH counts its own tokens", func(s *sim.Scenario) { s.EnforceContextWindow = true }, []string{"enforceContextWindow"}},
		{"the bare loop has no runtime context", func(s *sim.Scenario) { s.RuntimeContext = &loop.RuntimeContext{} }, []string{"runtimeContext"}},
		{"a listener of one's own runs in the model only", func(s *sim.Scenario) { s.ListenerOrder = append(s.ListenerOrder, "mine") }, []string{"listenerOrder[2]"}},
		{"no listener of DSH's throws on cue", func(s *sim.Scenario) { s.Requests[0].ListenerThrows = true }, []string{"requests[0].listenerThrows"}},
		{"a code DSH's adapter never derives", func(s *sim.Scenario) { s.Requests[0].Fail.Code = "NO_ADAPTER" }, []string{"requests[0].fail.code"}},
		{"an outage of a code with no wire form", func(s *sim.Scenario) {
			s.Outages = []sim.Outage{{FromMs: 0, ToMs: 10, Fail: session.LlmFailure{Code: "ABORTED"}}}
		}, []string{"outages[0].fail.code"}},
		{"an action DSH's agent does not take", func(s *sim.Scenario) {
			s.World = []sim.Action{{Do: "explode", Trigger: sim.Trigger{AtMs: 1}}}
		}, []string{"world[0].do"}},
		{"every refusal is named, not only the first", func(s *sim.Scenario) { s.NoAdapter, s.Requests[0].ListenerThrows = true, true },
			[]string{"adapter", "requests[0].listenerThrows"}},
	} {
		s := plain()
		tt.change(s)
		p, err := FromScenario(s)
		var got []string
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				got = append(got, strings.SplitN(line, ":", 2)[0])
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: refused fields (-want +got):\n%s", tt.why, diff)
		}
		if err == nil && (p == nil || len(p.Answers) != len(s.Requests)) {
			t.Errorf("%s: a plan of %v, want one answer a request", tt.why, p)
		}
	}
}

// TestFromScenarioIsAFunctionOfTheScenario: the same scenario gives the
// same plan (a driver fed two plans of one scenario would part).
func TestFromScenarioIsAFunctionOfTheScenario(t *testing.T) {
	seeded := func() *sim.Scenario {
		s := plain()
		s.Seed = new(uint64(7))
		return s
	}
	a, err := FromScenario(seeded())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := FromScenario(seeded())
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two plans of one scenario (-first +second):\n%s", diff)
	}
	if len(a.Random) < jitterSamples {
		t.Errorf("%d jitter samples of a seeded scenario, want at least %d", len(a.Random), jitterSamples)
	}
}

// TestAimIsAFunctionOfTheSeed: the actions aimed at DSH's choice points
// are the seed's; the scenario it is given is not changed.
func TestAimIsAFunctionOfTheSeed(t *testing.T) {
	kinds := Kinds()
	differ := false
	for seed := uint64(1); seed <= 50; seed++ {
		in := plain()
		before := len(in.World)
		a, b := Aim(seed, in, kinds), Aim(seed, plain(), kinds)
		if diff := cmp.Diff(a.World, b.World); diff != "" {
			t.Fatalf("seed %d: two aims (-first +second):\n%s", seed, diff)
		}
		if len(in.World) != before {
			t.Fatalf("seed %d: Aim changed the scenario it was given", seed)
		}
		differ = differ || len(a.World) != before
	}
	if !differ {
		t.Error("no seed of 50 aimed an action: Aim does nothing")
	}
}
