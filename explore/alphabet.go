package explore

import (
	"fmt"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// target says where an alphabet entry is placed.
type target int

const (
	onRequest target = iota // replaces a request's answer
	onSummary               // replaces a summarizer's answer
	onPoint                 // a world action or input after an append
)

// entry is one letter of the fault alphabet.
type entry struct {
	name string
	on   target
	// outcome is a request fault's answer; run is how many consecutive
	// requests it answers (persistent faults outlast any budget of the
	// default policies: DSH's default is five retries).
	outcome sim.Outcome
	run     int
	summary sim.SummaryOutcome
	action  *sim.Action
	input   string // followup, steer or inject
}

// persistentRun is how many requests a persistent fault fails: more than
// DSH's default budget (5 retries) plus the step's first attempt, and a
// dozen attempts of always mode.
const persistentRun = 12

func failure(code string, status int, message string) *session.LlmFailure {
	f := &session.LlmFailure{Code: code, Message: message}
	if status > 0 {
		f.Status = &status
	}
	return f
}

func withRetryAfter(f *session.LlmFailure, ms float64) *session.LlmFailure {
	f.ProviderRetryAfterMs = &ms
	return f
}

func text(s string) *string { return &s }

// alphabet is every fault explore places, in the order it tries them. It
// covers each error class of docs/dsh.md#codes once (retryable, terminal,
// overflow, Retry-After within and over the cap, partial streams, the idle
// watchdog), the summarizer's two failures, every cancel cause with and
// without the inbox, both disposals and the three late inputs.
var alphabet = func() []entry {
	var a []entry
	req := func(name string, o sim.Outcome, run int) {
		a = append(a, entry{name: name, on: onRequest, outcome: o, run: run})
	}
	req("fail SERVER 503", sim.Outcome{Fail: failure("SERVER", 503, "upstream 503")}, 1)
	req("fail RATE_LIMIT 429", sim.Outcome{Fail: failure("RATE_LIMIT", 429, "rate limited")}, 1)
	req("fail RATE_LIMIT 429 retry-after 2000ms", sim.Outcome{Fail: withRetryAfter(failure("RATE_LIMIT", 429, "rate limited"), 2000)}, 1)
	req("fail RATE_LIMIT 429 retry-after over the cap", sim.Outcome{Fail: withRetryAfter(failure("RATE_LIMIT", 429, "rate limited"), 3_600_000)}, 1)
	req("fail AUTH 401", sim.Outcome{Fail: failure("AUTH", 401, "invalid api key sk-test")}, 1)
	req("fail CONTEXT_WINDOW_EXCEEDED 400", sim.Outcome{Fail: failure("CONTEXT_WINDOW_EXCEEDED", 400, "maximum context length exceeded")}, 1)
	req("fail TIMEOUT", sim.Outcome{Fail: failure("TIMEOUT", 0, "stream idle timeout")}, 1)
	req("fail TRANSPORT after 2 chunks", sim.Outcome{Fail: failure("TRANSPORT", 0, "connection reset"), AfterChunks: 2}, 1)
	req("fail EMPTY_RESPONSE", sim.Outcome{Fail: failure("EMPTY_RESPONSE", 0, "model returned a completed response with no content")}, 1)
	req("fail STREAM_CLOSED", sim.Outcome{Fail: failure("STREAM_CLOSED", 0, "SSE stream ended without [DONE]")}, 1)
	req("fail INVALID_REQUEST 400", sim.Outcome{Fail: failure("INVALID_REQUEST", 400, "invalid request")}, 1)
	req("fail QUOTA 429", sim.Outcome{Fail: failure("QUOTA", 429, "insufficient quota")}, 1)
	req("fail PROVIDER_MAINTENANCE", sim.Outcome{Fail: failure("PROVIDER_MAINTENANCE", 0, "the provider is under maintenance")}, 1)
	req("hang", sim.Outcome{Hang: true}, 1)
	req("fail SERVER 503, and a listener throws handling it", sim.Outcome{Fail: failure("SERVER", 503, "upstream 503"), ListenerThrows: true}, 1)
	req("fail SERVER 503 from here on", sim.Outcome{Fail: failure("SERVER", 503, "upstream 503")}, persistentRun)
	req("fail CONTEXT_WINDOW_EXCEEDED 400 from here on", sim.Outcome{Fail: failure("CONTEXT_WINDOW_EXCEEDED", 400, "maximum context length exceeded")}, persistentRun)

	a = append(a,
		entry{name: "summary fails", on: onSummary, summary: sim.SummaryOutcome{Fail: text("summary unavailable")}},
		entry{name: "summary overflows", on: onSummary, summary: sim.SummaryOutcome{Text: text(overflowingSummary)}})

	for _, cause := range []string{session.CauseUser, session.CauseParent, session.CauseHook, session.CauseDisposed} {
		for _, keep := range []bool{false, true} {
			act := &sim.Action{Do: "cancel", Cause: session.Cause{Kind: cause}, KeepInbox: keep}
			if cause == session.CauseHook {
				act.Cause.Reason = "a pre-step hook stopped the turn"
			}
			name := "cancel " + cause
			if keep {
				name += " keepInbox"
			}
			a = append(a, entry{name: name, on: onPoint, action: act})
		}
	}
	a = append(a,
		entry{name: "dispose", on: onPoint, action: &sim.Action{Do: "dispose"}},
		entry{name: "dispose llm-retry", on: onPoint, action: &sim.Action{Do: "dispose-retry"}})
	for _, kind := range []string{"followup", "steer", "inject"} {
		a = append(a, entry{name: kind, on: onPoint, input: kind})
	}
	return a
}()

// overflowingSummary is larger than anything a one-turn workload
// compacts: compaction-basic rejects it (docs/dsh.md#overflow-compaction).
var overflowingSummary = func() string {
	b := make([]byte, 0, 8000)
	for len(b) < 8000 {
		b = append(b, "the summary repeats the history instead of condensing it. "...)
	}
	return string(b)
}()

// Fault is one fault of a plan: an alphabet entry at a place of the run
// it extends.
type Fault struct {
	letter int
	// Request or Summary (from 1) is the answer it replaces; Trigger
	// places a world action or input.
	Request int
	Summary int
	Trigger sim.Trigger
	at      position
}

// position orders faults by where they take effect in a run: after the
// append of event seq (sub 0), at the request or summary that follows it
// (sub 1), inside the virtual time that follows it (sub 2).
type position struct{ seq, sub int }

func (p position) less(q position) bool {
	return p.seq < q.seq || p.seq == q.seq && p.sub < q.sub
}

// after reports whether f comes strictly after g in a plan's canonical
// order: later in the run, or at the same place later in the alphabet.
func (f Fault) after(g Fault) bool { return g.rank().before(f.rank()) }

// rank is where a fault stands in the canonical order: all of a Fault that
// the order reads, small enough to keep one per reached state.
type rank struct {
	at     position
	letter int
}

func (f Fault) rank() rank { return rank{f.at, f.letter} }

func (r rank) before(s rank) bool {
	return r.at.less(s.at) || r.at == s.at && r.letter < s.letter
}

// Name is the alphabet entry's name.
func (f Fault) Name() string { return alphabet[f.letter].name }

// String is the fault as a plan line.
func (f Fault) String() string {
	switch {
	case f.Request > 0:
		return fmt.Sprintf("request %d: %s", f.Request, f.Name())
	case f.Summary > 0:
		return fmt.Sprintf("summary %d: %s", f.Summary, f.Name())
	case f.Trigger.PlusMs > 0:
		return fmt.Sprintf("%s %vms after %s #%d", f.Name(), f.Trigger.PlusMs, f.Trigger.After, f.Trigger.Nth)
	}
	return fmt.Sprintf("%s after %s #%d", f.Name(), f.Trigger.After, f.Trigger.Nth)
}

// Plan is a list of faults in canonical order.
type Plan []Fault

// Lines are the plan's faults, one a line.
func (p Plan) Lines() []string {
	out := make([]string, len(p))
	for i, f := range p {
		out[i] = f.String()
	}
	return out
}

// apply is the workload with the plan's faults in it.
func apply(base *sim.Scenario, p Plan) *sim.Scenario {
	s := *base
	s.Inputs = append([]sim.Input(nil), base.Inputs...)
	s.World = nil
	replaced := map[int]sim.Outcome{}
	last := 0
	summaries := map[int]sim.SummaryOutcome{}
	lastSummary := 0
	for _, f := range p {
		e := &alphabet[f.letter]
		switch e.on {
		case onRequest:
			for i := f.Request; i < f.Request+e.run; i++ {
				replaced[i] = e.outcome
			}
			last = max(last, f.Request+e.run-1)
		case onSummary:
			summaries[f.Summary] = e.summary
			lastSummary = max(lastSummary, f.Summary)
		case onPoint:
			if e.action != nil {
				a := *e.action
				a.Trigger = f.Trigger
				s.World = append(s.World, a)
			} else {
				s.Inputs = append(s.Inputs, sim.Input{Kind: e.input, Text: fmt.Sprintf("a late %s (%d)", e.input, len(s.Inputs)+1), Trigger: f.Trigger})
			}
		}
	}
	if len(replaced) > 0 {
		// The workload's answers in order, each failure in the place of
		// the request it replaces.
		s.Requests = nil
		answers := base.Requests
		for i := 1; i <= last || len(answers) > 0; i++ {
			if o, ok := replaced[i]; ok {
				s.Requests = append(s.Requests, o)
				continue
			}
			if len(answers) == 0 {
				// What the world answers past its list.
				s.Requests = append(s.Requests, sim.Outcome{Text: text("ok")})
				continue
			}
			s.Requests = append(s.Requests, answers[0])
			answers = answers[1:]
		}
	}
	if lastSummary > 0 {
		s.Summaries = nil
		for i := 1; i <= lastSummary; i++ {
			o, ok := summaries[i]
			if !ok {
				o = sim.SummaryOutcome{Text: text("The notes were condensed.")}
			}
			s.Summaries = append(s.Summaries, o)
		}
	}
	return &s
}
