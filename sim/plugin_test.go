package sim

import (
	"bytes"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
)

// plugScenario is one send whose answer fails with SERVER, then text,
// with a plug-in first in the waterfall.
func plugScenario(name string) *Scenario {
	text := "ok"
	return &Scenario{Name: "plug", Provider: "mock", Model: "m", ContextWindow: 128000, MaxEvents: 200,
		Recovery: Recovery{ListenerOrder: []string{name, ListenerRetry}}, Random: []float64{0.5}, StreamIdleTimeoutMs: 300_000,
		Requests: []Outcome{{Fail: &session.LlmFailure{Code: "SERVER", Message: "busy"}}, {Text: &text}},
		Inputs:   []Input{{Kind: "send", Text: "hi", Trigger: Trigger{Nth: 1}}}}
}

// TestAPanickingConstructorIsTheSystemUnderTests: a plug-in's New that
// panics is a finding (sut-panic) with its message, never a crash of
// turnsim, and so is a plug-in without New.
func TestAPanickingConstructorIsTheSystemUnderTests(t *testing.T) {
	for _, l := range []Listener{
		{Name: "mine", New: func(Env) loop.RequestErrorListener { panic("my constructor's bug") }},
		{Name: "mine"},
	} {
		res := RunWith(plugScenario("mine"), Options{Listeners: []Listener{l}})
		vs := oracle.Check(res.Events, Options{}.Oracle(res))
		if len(vs) == 0 || vs[len(vs)-1].Invariant != oracle.SUTPanic {
			t.Errorf("violations %v, want sut-panic", vs)
		}
		if !strings.Contains(res.Facts.Panic, "my constructor's bug") && !strings.Contains(res.Facts.Panic, `listener "mine" has no constructor`) {
			t.Errorf("the panic reads %q", strings.SplitN(res.Facts.Panic, "\n", 2)[0])
		}
	}
}

// TestAPlugInIsJudgedByItsBudget: a plug-in is installed where the
// listenerOrder names it and held to its own MaxRetries, whatever it logs.
func TestAPlugInIsJudgedByItsBudget(t *testing.T) {
	always := func(Env) loop.RequestErrorListener {
		return func(*loop.RequestError, loop.Next) (loop.Action, error) { return loop.Retry, nil }
	}
	s := plugScenario("mine")
	s.Requests = append([]Outcome{s.Requests[0]}, s.Requests...) // two failures, then text
	for _, tt := range []struct {
		budget int
		want   bool
	}{{1, true}, {2, false}, {Unbounded, false}} {
		res := RunWith(s, Options{Listeners: []Listener{{Name: "mine", MaxRetries: tt.budget, New: always}}})
		fired := false
		for _, v := range oracle.Check(res.Events, Options{}.Oracle(res)) {
			fired = fired || v.Invariant == oracle.AttemptsWithinPolicy
		}
		if fired != tt.want {
			t.Errorf("MaxRetries %d, two retries: attempts-within-policy fired %v, want %v", tt.budget, fired, tt.want)
		}
	}
}

// TestNoChunkCitesNothing: an answer that streams no chunk writes a
// message without sourceEventSeqs, as before the attempt's seqs lived in
// a buffer of its own.
func TestNoChunkCitesNothing(t *testing.T) {
	s := plugScenario(ListenerRetry)
	s.ListenerOrder = []string{ListenerRetry}
	s.Requests = []Outcome{{}}
	res := Run(s)
	var b bytes.Buffer
	session.WriteLog(&b, res.Header, res.Events)
	if bytes.Contains(b.Bytes(), []byte(`"sourceEventSeqs":[]`)) {
		t.Errorf("a message cites an empty list:\n%s", b.String())
	}
}
