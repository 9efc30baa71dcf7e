package oracle

import "github.com/turnsim/turnsim/loop/view"

// The oracle's memory, kept from log to log: a Checker checks a worker's
// runs one after the other, and what a check makes as it goes (its maps,
// its records of attempts, recoveries, chains and marks) is made once per
// worker, then emptied and filled again. Every checker's reset makes it
// exactly the one its constructor makes: the fields that say what the log
// showed start as they would, and only the containers are kept.

// release lets go of the log a Checker checked last and of what the
// options handed it, which a Checker kept for Check's next log must not
// hold on to; the memory it keeps is reset by the next check.
func (c *Checker) release() {
	c.events, c.derive, c.nodes = nil, nil, view.Nodes{}
	c.checks.rendering.all = nil
	c.run.events, c.run.facts = nil, nil
}

// reused is a reporter of id with no violation, in r's memory.
func (r *reporter) reused(id ID) reporter {
	clear(r.out)
	return reporter{id: id, out: r.out[:0]}
}
