package oracle

import (
	"fmt"
	"math"
)

// The checks on what callers observe: virtual time, the model port and
// the listeners' answers, which a listener that writes nothing to the log
// cannot hide. Only a run has these facts.

// checkCancelAtOnce is cancel-takes-effect-at-once: a turn that a cancel
// or disposal reached ends at the virtual time of that cancel. Every wait
// in a turn is on its signal, so none outlasts it; a wait that does (a
// listener sleeping on a context of its own) shows as time between the
// cancel and the turn's end, whatever the listener logs.
func checkCancelAtOnce(r *run, rep *reporter) {
	f := r.facts
	if len(f.TimeNs) != len(r.events) {
		return // no exact times: nothing to measure
	}
	lastTurn := 0
	for _, a := range f.Actions {
		if a.Turn == 0 || a.Turn == lastTurn {
			continue // the first cancel of a turn is the one that counts
		}
		lastTurn = a.Turn
		end, ok := r.at().turnEnd(a.Turn)
		if !ok || end >= int64(len(f.TimeNs)) {
			continue // a turn that never ended is turn-terminates'
		}
		if waited := f.TimeNs[end] - a.TimeNs; waited > 0 {
			_, step := r.at().at(a.Seq)
			rep.add(a.Turn, step, []int64{a.Seq, end}, "turn %d ended %s ms after the %s (%s) that landed in it before seq %d: a wait outlasted the turn signal",
				a.Turn, ms(waited), a.Kind, a.Cause, a.Seq)
		}
	}
	return
}

// ms prints virtual nanoseconds as milliseconds, exactly enough.
func ms(ns int64) string { return fmt.Sprintf("%g", float64(ns)/1e6) }

// checkAttemptsWithinPolicy is attempts-within-policy: each listener's own
// retries in a step within its budget, and the step's requests at the
// model port within one more than the sum of the budgets (each attempt
// after the first needs some listener's retry). Both are counted where
// the caller sees them, so a listener that logs no llm/retry is judged
// the same.
func checkAttemptsWithinPolicy(r *run, rep *reporter) {
	f := r.facts
	if len(f.Budgets) == 0 {
		return
	}
	// One pass over the answers: counts per budget, reset at each step
	// (on the stack for the few listeners a waterfall has).
	var countsBuf [8]int
	var overBuf [8]bool
	counts, over := countsBuf[:0], overBuf[:0]
	if n := len(f.Budgets); n <= len(countsBuf) {
		counts, over = countsBuf[:n], overBuf[:n]
	} else {
		counts, over = make([]int, n), make([]bool, n)
	}
	turn, step := -1, -1
	for _, d := range f.Decisions {
		if d.Turn != turn || d.Step != step {
			turn, step = d.Turn, d.Step
			clear(counts)
			clear(over)
		}
		if !d.Retry {
			continue
		}
		b := budgetOf(f.Budgets, d.Listener)
		if b < 0 || f.Budgets[b].MaxRetries < 0 {
			continue
		}
		counts[b]++
		if counts[b] > f.Budgets[b].MaxRetries && !over[b] {
			over[b] = true
			rep.add(d.Turn, d.Step, []int64{d.Seq}, "%s answered retry %s in turn %d step %d; its budget is %d",
				d.Listener, times(counts[b]), d.Turn, d.Step, f.Budgets[b].MaxRetries)
		}
	}
	bound := 1
	for _, b := range f.Budgets {
		if b.MaxRetries < 0 {
			return // an unbounded listener: no bound on the step
		}
		// Saturating: budgets near the largest int (a safe integer, a
		// plug-in's math.MaxInt) once wrapped the sum below 0.
		bound = min(bound, math.MaxInt-b.MaxRetries) + b.MaxRetries
	}
	for i := 0; i < len(f.Requests); {
		q := f.Requests[i]
		j := i
		for j < len(f.Requests) && f.Requests[j].Turn == q.Turn && f.Requests[j].Step == q.Step {
			j++
		}
		if n := j - i; n > bound {
			last := f.Requests[i+bound]
			rep.add(q.Turn, q.Step, []int64{last.Seq}, "turn %d step %d made %d requests; its listeners' budgets allow at most %d",
				q.Turn, q.Step, n, bound)
		}
		i = j
	}
	return
}

// budgetOf is the index of a listener's budget, or -1.
func budgetOf(bs []Budget, listener string) int {
	for i := range bs {
		if bs[i].Listener == listener {
			return i
		}
	}
	return -1
}

// checkListenerWithinTurn is listener-within-turn: a listener's answer to
// a failure comes before that failure's turn ended. The loop awaits the
// waterfall, so only a loop that ends a turn under a running listener (or
// a listener answering for a turn long gone) breaks it.
func checkListenerWithinTurn(r *run, rep *reporter) {
	reported := 0
	for _, d := range r.facts.Decisions {
		if d.Turn == 0 || d.Turn == reported {
			continue
		}
		if end, ok := r.at().turnEnd(d.Turn); ok && d.Seq > end {
			reported = d.Turn
			rep.add(d.Turn, d.Step, []int64{end, d.Seq}, "%s answered turn %d step %d's failure before seq %d, after the turn ended at seq %d",
				d.Listener, d.Turn, d.Step, d.Seq, end)
		}
	}
	return
}

// times is a count of times, in words a sentence can take.
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
