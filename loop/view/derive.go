package view

import "github.com/turnsim/turnsim/loop/session"

// chain is a model-retry context under construction.
type chain struct {
	node   ModelRetry
	closed bool // the step or turn of its first llm/retry has closed
}

type turnStep struct{ turn, step int }

// Derive derives the nodes of the given events, which may be a whole log or
// any tail window of one.
func Derive(events []session.Event) Nodes {
	var (
		nodes    Nodes
		lastStep = map[int]int{} // turn → the step it was last located at
		chains   []*chain
		byID     = map[string]*chain{}
	)
	closeChains := func(match func(turnStep) bool) {
		for _, c := range chains {
			if !c.closed && match(turnStep{c.node.Turn, c.node.Step}) {
				c.closed = true
			}
		}
	}
	for i := range events {
		e := &events[i]
		if turn, step, ok := location(e.Data); ok {
			lastStep[turn] = step
		}
		switch p := e.Data.(type) {
		case *session.StepEnd:
			closeChains(func(ts turnStep) bool { return ts == turnStep{p.Turn, p.Step} })
		case *session.TurnEnd:
			closeChains(func(ts turnStep) bool { return ts.turn == p.Turn })
			if p.Reason.Kind == session.EndError && p.Reason.Error != nil {
				f := p.Reason.Error
				nodes.TurnErrors = append(nodes.TurnErrors, TurnError{
					Seq: e.Seq, Time: e.Time, Turn: p.Turn, Step: lastStep[p.Turn],
					Message: DisplayFailureMessage(f), Code: f.Code,
				})
			}
		case *session.LLMRetry:
			if p.RetryID == "" {
				continue // legacy retries without an id have no node
			}
			a := RetryAttempt{Seq: e.Seq, Time: e.Time, Retry: p.Retry, MaxRetries: p.MaxRetries,
				Mode: p.Mode, DelayMs: p.DelayMs, Failure: p.Failure, State: Scheduled}
			if p.Retry == 1 {
				c := &chain{node: ModelRetry{Seq: e.Seq, Time: e.Time, RetryID: p.RetryID, Turn: p.Turn, Step: p.Step}}
				c.node.Attempts = append(c.node.Attempts, a)
				chains = append(chains, c)
				byID[p.RetryID] = c
			} else if c := byID[p.RetryID]; c != nil {
				c.node.Attempts = append(c.node.Attempts, a)
			}
		case *session.LLMRetryStarted:
			if c := byID[p.RetryID]; c != nil {
				for j := range c.node.Attempts {
					if c.node.Attempts[j].Retry == p.Retry {
						c.node.Attempts[j].State = Started
					}
				}
			}
		}
	}
	for _, c := range chains {
		last := &c.node.Attempts[len(c.node.Attempts)-1]
		if last.State == Scheduled && c.closed {
			last.State = Cancelled
		}
		nodes.ModelRetries = append(nodes.ModelRetries, c.node)
	}
	return nodes
}

// location is the turn and step an event names, if it names both.
func location(p session.Payload) (turn, step int, ok bool) {
	switch p := p.(type) {
	case *session.StepStart:
		return p.Turn, p.Step, true
	case *session.StepEnd:
		return p.Turn, p.Step, true
	case *session.AssistantChunk:
		return p.Turn, p.Step, true
	case *session.AssistantMessage:
		return p.Turn, p.Step, true
	case *session.ToolCall:
		return p.Turn, p.Step, true
	case *session.ToolResult:
		return p.Turn, p.Step, true
	case *session.LLMRetry:
		return p.Turn, p.Step, true
	case *session.LLMRetryStarted:
		return p.Turn, p.Step, true
	}
	return 0, 0, false
}
