package explore

import (
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// extensions are the faults that may follow a plan's last fault in the
// run res: every alphabet entry at every choice point of the run at or
// after the last fault, in canonical order (by place, then by letter).
//
// The run of the extended plan is the same as res up to the new fault's
// place (the world is deterministic and nothing of the new fault acts
// earlier), so the new fault takes effect where it was placed.
func extensions(res *sim.Result, last *Fault) []Fault {
	var out []Fault
	add := func(f Fault) {
		if last == nil || f.after(*last) {
			out = append(out, f)
		}
	}
	counts := map[string]int{}
	requests := res.Facts.Requests
	summary := 0
	for i := range res.Events {
		e := &res.Events[i]
		typ := e.Type()
		counts[typ]++
		seq := i
		// Right after the append: world actions and inputs.
		for letter := range alphabet {
			if alphabet[letter].on == onPoint {
				add(Fault{letter: letter, Trigger: sim.Trigger{After: typ, Nth: counts[typ]}, at: position{seq, 0}})
			}
		}
		// The requests dispatched before the next append.
		for len(requests) > 0 && int(requests[0].Seq) <= seq+1 {
			n := len(res.Facts.Requests) - len(requests) + 1
			for letter := range alphabet {
				if alphabet[letter].on == onRequest {
					add(Fault{letter: letter, Request: n, at: position{seq, 1}})
				}
			}
			requests = requests[1:]
		}
		// The summarizer is called after compaction/start.
		if typ == session.TypeCompactionStart && summary < res.Summaries {
			summary++
			for letter := range alphabet {
				if alphabet[letter].on == onSummary {
					add(Fault{letter: letter, Summary: summary, at: position{seq, 1}})
				}
			}
		}
		// Inside the virtual time before the next append (a backoff wait,
		// a summarization, the idle watchdog): at its middle.
		if i+1 < len(res.Facts.TimeNs) {
			if gap := res.Facts.TimeNs[i+1] - res.Facts.TimeNs[i]; gap > 0 {
				plus := float64(gap/2) / 1e6
				for letter := range alphabet {
					if alphabet[letter].on == onPoint {
						add(Fault{letter: letter, Trigger: sim.Trigger{After: typ, Nth: counts[typ], PlusMs: plus}, at: position{seq, 2}})
					}
				}
			}
		}
	}
	return out
}
