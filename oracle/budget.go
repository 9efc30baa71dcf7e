package oracle

import (
	"github.com/turnsim/turnsim/loop/session"

	"github.com/turnsim/turnsim/internal/arena"
)

// budgetKey scopes a retry count (docs/dsh.md#retry-budget): a new step,
// another provider or another policy starts again at 1.
type budgetKey struct {
	turn, step          int
	provider, policyKey string
}

type budgetChain struct {
	id       string
	last     int
	firstSeq int64
}

// retryBudget follows every retry chain's numbering and identity.
type retryBudget struct {
	reporter
	chains map[budgetKey]*budgetChain
	owner  map[string]budgetKey // retryId → the chain that used it first
	// names keeps one copy of each provider and policy key: every chain's
	// owner entry names one, and a log has few.
	names map[string]string
	// The maps made at the first retry, kept to be made again, and where
	// the chains live.
	spareChains map[budgetKey]*budgetChain
	spareOwner  map[string]budgetKey
	spareNames  map[string]string
	chainMemory *arena.Arena[budgetChain] // nil: each on its own
}

func newRetryBudget() *retryBudget {
	b := &retryBudget{}
	b.reset()
	return b
}

func (b *retryBudget) reset() {
	*b = retryBudget{reporter: b.reporter.reused(RetryBudget), spareChains: b.spareChains, spareOwner: b.spareOwner, spareNames: b.spareNames,
		chainMemory: b.chainMemory}
}

func (b *retryBudget) event(e *session.Event) {
	p, ok := e.Data.(*session.LLMRetry)
	if !ok {
		return
	}
	if b.chains == nil {
		// Made at the first retry: most runs have none.
		b.chains, b.owner, b.names = arena.Fresh(&b.spareChains), arena.Fresh(&b.spareOwner), arena.Fresh(&b.spareNames)
	}
	seq := e.Seq
	key := budgetKey{p.Turn, p.Step, b.name(p.Provider), b.name(p.PolicyKey)}
	c := b.chains[key]
	prev := 0
	if c != nil {
		prev = c.last
	}
	if want, ok := successor(prev); !ok {
		b.add(p.Turn, p.Step, witness(c, seq), "llm/retry number %d follows same-key retry %d, the largest number a retry can have", p.Retry, prev)
	} else if p.Retry != want {
		b.add(p.Turn, p.Step, witness(c, seq), "llm/retry number %d must equal provider policy retry %d (the previous same-key retry was %d)", p.Retry, want, prev)
	}
	if p.Mode == "normal" && p.MaxRetries != nil && p.Retry > *p.MaxRetries {
		b.add(p.Turn, p.Step, []int64{seq}, "retry %d exceeds maxRetries %d", p.Retry, *p.MaxRetries)
	}
	if c != nil {
		if p.RetryID != c.id {
			b.add(p.Turn, p.Step, []int64{c.firstSeq, seq}, "retry %d changes the chain's retryId from %s to %s", p.Retry, c.id, p.RetryID)
		}
		c.last = p.Retry
		return
	}
	if k, used := b.owner[p.RetryID]; used && k != key {
		b.add(p.Turn, p.Step, []int64{seq}, "a new chain reuses retryId %s of an earlier chain (turn %d step %d)", p.RetryID, k.turn, k.step)
	}
	b.owner[p.RetryID] = key
	c = b.chainMemory.New()
	*c = budgetChain{id: p.RetryID, last: p.Retry, firstSeq: seq}
	b.chains[key] = c
}

func (b *retryBudget) name(s string) string {
	if kept, ok := b.names[s]; ok {
		return kept
	}
	b.names[s] = s
	return s
}

func witness(c *budgetChain, seq int64) []int64 {
	if c == nil {
		return []int64{seq}
	}
	return []int64{c.firstSeq, seq}
}

// turnEnded forgets the ended turn's chains: a later retry of that turn
// stands outside its step, which log-well-formed reports. Retry ids stay
// known, since a later chain must not reuse one.
func (b *retryBudget) turnEnded(turn int) {
	for key := range b.chains {
		if key.turn == turn {
			delete(b.chains, key)
		}
	}
}
