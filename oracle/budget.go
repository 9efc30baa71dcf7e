package oracle

import "github.com/turnsim/turnsim/loop/session"

// budgetKey scopes a retry count (SPEC 3.4): a new step, another provider or
// another policy starts again at 1.
type budgetKey struct {
	turn, step          int
	provider, policyKey string
}

type budgetChain struct {
	id       string
	last     int
	firstSeq int64
}

func checkRetryBudget(events []session.Event) []Violation {
	r := &reporter{id: RetryBudget}
	chains := map[budgetKey]*budgetChain{}
	owner := map[string]budgetKey{} // retryId → the chain that used it first
	for i := range events {
		p, ok := events[i].Data.(*session.LLMRetry)
		if !ok {
			continue
		}
		seq := events[i].Seq
		key := budgetKey{p.Turn, p.Step, p.Provider, p.PolicyKey}
		c := chains[key]
		prev := 0
		if c != nil {
			prev = c.last
		}
		if p.Retry != prev+1 {
			r.add(p.Turn, p.Step, witness(c, seq), "llm/retry number %d must equal provider policy retry %d (the previous same-key retry was %d)", p.Retry, prev+1, prev)
		}
		if p.Mode == "normal" && p.MaxRetries != nil && p.Retry > *p.MaxRetries {
			r.add(p.Turn, p.Step, []int64{seq}, "retry %d exceeds maxRetries %d", p.Retry, *p.MaxRetries)
		}
		if c != nil {
			if p.RetryID != c.id {
				r.add(p.Turn, p.Step, []int64{c.firstSeq, seq}, "retry %d changes the chain's retryId from %s to %s", p.Retry, c.id, p.RetryID)
			}
			c.last = p.Retry
			continue
		}
		if k, used := owner[p.RetryID]; used && k != key {
			r.add(p.Turn, p.Step, []int64{seq}, "a new chain reuses retryId %s of an earlier chain (turn %d step %d)", p.RetryID, k.turn, k.step)
		}
		owner[p.RetryID] = key
		chains[key] = &budgetChain{id: p.RetryID, last: p.Retry, firstSeq: seq}
	}
	return r.out
}

func witness(c *budgetChain, seq int64) []int64 {
	if c == nil {
		return []int64{seq}
	}
	return []int64{c.firstSeq, seq}
}
