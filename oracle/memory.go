package oracle

// The oracle's memory, kept from log to log: a Checker checks a worker's
// runs one after the other, and what a check makes as it goes (its maps,
// its records of attempts, recoveries, chains and marks) is made once per
// worker, then emptied and filled again. Every checker's reset makes it
// exactly the one its constructor makes: the fields that say what the log
// showed start as they would, and only the containers are kept.

// reused is a reporter of id with no violation, in r's memory.
func (r *reporter) reused(id ID) reporter {
	clear(r.out)
	return reporter{id: id, out: r.out[:0]}
}
