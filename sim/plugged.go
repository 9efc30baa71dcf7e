package sim

import (
	"fmt"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/oracle"
)

// plug makes a plug-in's listener for this run and registers it where the
// listenerOrder names it, with the budget the oracle holds it to.
func (w *World) plug(p Listener, random loop.Random) {
	s := w.scenario
	env := w.guardedEnv(Env{Agent: w.agent, Clock: &w.clock, IDs: &w.ids, Random: random, Log: w.agent.Log(), Policy: s.RetryPolicy,
		Compaction: s.Compaction, Summarizer: &scriptedSummarizer{w: w}, Warn: w.warn})
	budget := w.builtInBudget(p.Name)
	if !BuiltIn(p.Name) {
		budget = oracle.Budget{Listener: p.Name, MaxRetries: p.MaxRetries}
	}
	w.facts.Budgets = append(w.facts.Budgets, budget)
	if p.New == nil {
		panic(fmt.Sprintf("listener %q has no constructor (New)", p.Name))
	}
	w.enter(p.Name)
	l := p.New(env)
	w.leave()
	if l != nil {
		w.agent.AddRequestErrorListener(AgentName(p.Name), w.guarded(p.Name, l))
	}
}

// builtInBudget is the most retries a built-in listener may answer in one
// step: llm-retry's policy (always mode has no bound), compaction's
// maxOverflowRetries (per activity, so at most that per step), none for
// the test listeners that never retry, no bound for those that always do.
func (w *World) builtInBudget(name string) oracle.Budget {
	b := oracle.Budget{Listener: AgentName(name), MaxRetries: Unbounded}
	switch name {
	case ListenerRetry:
		switch p := w.scenario.RetryPolicy; {
		case p == nil:
			b.MaxRetries = 0
		case p.Mode == loop.ModeNormal:
			b.MaxRetries = p.MaxRetries
		}
	case ListenerCompaction:
		b.MaxRetries = 0
		if c := w.scenario.Compaction; c != nil {
			b.MaxRetries = c.MaxOverflowRetries
		}
	case ListenerThrow, ListenerCancelThenNext, ListenerThrowOnCue:
		b.MaxRetries = 0
	}
	return b
}

// sleeping is the choice point of a wait a listener begins: the actions
// placed after the nth such wait apply now (before the wait looks at the
// turn signal) or plusMs into it.
func (w *World) sleeping() {
	if w.agent.Listening() == 0 {
		return
	}
	w.point(AfterListenerWait)
}

// point is a choice point that is no event (AfterListenerWait,
// AfterModelCall): the actions placed after its nth occurrence apply now,
// or plusMs later.
func (w *World) point(name string) {
	w.counts[name]++
	n := w.counts[name]
	for i := range w.triggered {
		t := &w.triggered[i]
		if t.done || t.After != name || t.Nth != n {
			continue
		}
		t.done = true
		if t.PlusMs > 0 {
			w.clock.at(w.clock.Elapsed()+duration(t.PlusMs), t.act)
			continue
		}
		w.apply(t.act)
	}
}
