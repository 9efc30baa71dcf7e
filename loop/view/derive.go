package view

import (
	"encoding/json"
	"slices"

	"github.com/turnsim/turnsim/loop/session"
)

// chain is a model-retry context under construction.
type chain struct {
	node   ModelRetry
	closed bool // the step or turn of its first llm/retry has closed
}

// settled stands in for a chain a Deriver let go of: its id stays known,
// so that a later llm/retry of it still joins no new node.
var settled = &chain{closed: true}

type turnStep struct{ turn, step int }

// Derive derives the nodes of the given events, which may be a whole log or
// any tail window of one.
func Derive(events []session.Event) Nodes {
	d := NewDeriver()
	for i := range events {
		d.Add(&events[i])
	}
	return d.Nodes()
}

// Deriver derives nodes one event at a time: Derive over a log read as a
// stream. Every node is complete when the event that makes it is added,
// except a chain's view state, which its step's or turn's end settles.
type Deriver struct {
	turnErrors []TurnError
	// steps holds, per turn, the steps its events locate it at, in the
	// order each first appears. DSH's turn-error node reads the last of
	// them (the turn in its Location timeline lists its steps by their
	// first event): a copy of an older step's tool result that compaction
	// appends after a newer step began makes the older step the last one
	// in a window that begins after the older step's own events.
	steps  map[int][]int
	chains []*chain
	byID   map[string]*chain
}

// NewDeriver is a Deriver that has seen no event.
func NewDeriver() *Deriver {
	return &Deriver{steps: map[int][]int{}, byID: map[string]*chain{}}
}

// Add derives what one event adds, and returns the turn-error node it
// makes, if any.
func (d *Deriver) Add(e *session.Event) *TurnError {
	if turn, step, ok := location(e.Data); ok && !slices.Contains(d.steps[turn], step) {
		d.steps[turn] = append(d.steps[turn], step)
	}
	switch p := e.Data.(type) {
	case *session.StepEnd:
		d.closeChains(func(ts turnStep) bool { return ts == turnStep{p.Turn, p.Step} })
	case *session.TurnEnd:
		d.closeChains(func(ts turnStep) bool { return ts.turn == p.Turn })
		if p.Reason.Kind == session.EndError && p.Reason.Error != nil {
			f := p.Reason.Error
			d.turnErrors = append(d.turnErrors, TurnError{
				Seq: e.Seq, Time: e.Time, Turn: p.Turn, Step: d.lastStep(p.Turn),
				Message: DisplayFailureMessage(f), Code: f.Code,
			})
			return &d.turnErrors[len(d.turnErrors)-1]
		}
	case *session.LLMRetry:
		if p.RetryID == "" {
			return nil // legacy retries without an id have no node
		}
		a := RetryAttempt{Seq: e.Seq, Time: e.Time, Retry: p.Retry, MaxRetries: p.MaxRetries,
			Mode: p.Mode, DelayMs: p.DelayMs, Failure: p.Failure, State: Scheduled}
		if p.Retry == 1 {
			c := &chain{node: ModelRetry{Seq: e.Seq, Time: e.Time, RetryID: p.RetryID, Turn: p.Turn, Step: p.Step}}
			c.node.Attempts = append(c.node.Attempts, a)
			d.chains = append(d.chains, c)
			d.byID[p.RetryID] = c
		} else if c := d.byID[p.RetryID]; c != nil && c != settled {
			c.node.Attempts = append(c.node.Attempts, a)
		}
	case *session.LLMRetryStarted:
		if c := d.byID[p.RetryID]; c != nil && c != settled {
			for j := range c.node.Attempts {
				if c.node.Attempts[j].Retry == p.Retry {
					c.node.Attempts[j].State = Started
				}
			}
		}
	}
	return nil
}

// lastStep is the step of the turn that appeared last, or 0.
func (d *Deriver) lastStep(turn int) int {
	if steps := d.steps[turn]; len(steps) > 0 {
		return steps[len(steps)-1]
	}
	return 0
}

func (d *Deriver) closeChains(match func(turnStep) bool) {
	for _, c := range d.chains {
		if !c.closed && match(turnStep{c.node.Turn, c.node.Step}) {
			c.closed = true
		}
	}
}

// Reset makes the Deriver one that has seen no event, keeping its memory
// for the next log: a checker deriving many short windows allocates once.
// Nodes returned before a Reset share memory with the Deriver and must be
// read before it.
func (d *Deriver) Reset() {
	d.turnErrors = d.turnErrors[:0]
	clear(d.chains)
	d.chains = d.chains[:0]
	clear(d.steps)
	clear(d.byID)
}

// HasChain reports whether a chain with this retryId has a node (or had
// one before Settle).
func (d *Deriver) HasChain(retryID string) bool { return d.byID[retryID] != nil }

// Nodes are the nodes of the events added so far. A turn-error node's
// step is settled here: DSH reads the turn's steps in all the events it
// has, and an event after the turn's end can name the turn (compaction's
// pruned copy of an old step's tool result, appended in a later turn),
// which makes that step the turn's last in a window without the step's
// own events. (Add returns the node with the step known at the turn's
// end.)
func (d *Deriver) Nodes() Nodes {
	for i := range d.turnErrors {
		d.turnErrors[i].Step = d.lastStep(d.turnErrors[i].Turn)
	}
	nodes := Nodes{TurnErrors: d.turnErrors[:len(d.turnErrors):len(d.turnErrors)]}
	for _, c := range d.chains {
		node := c.node
		if last := node.Attempts[len(node.Attempts)-1]; last.State == Scheduled && c.closed {
			node.Attempts = append(node.Attempts[:len(node.Attempts)-1:len(node.Attempts)-1], last)
			node.Attempts[len(node.Attempts)-1].State = Cancelled
		}
		nodes.ModelRetries = append(nodes.ModelRetries, node)
	}
	return nodes
}

// Settle lets go of what no later event can change: the turn-error nodes
// and the closed chains, whose ids stay known. A reader of a long log
// that looks at each node as it is made keeps then only the open turn's.
func (d *Deriver) Settle(endedTurn int) {
	d.turnErrors = d.turnErrors[:0]
	open := d.chains[:0]
	for _, c := range d.chains {
		if c.closed {
			d.byID[c.node.RetryID] = settled
			continue
		}
		open = append(open, c)
	}
	clear(d.chains[len(open):])
	d.chains = open
	delete(d.steps, endedTurn)
}

// location is the turn and step an event names, if it names both, as
// DSH's Location index reads them: the data's own turn and step, of any
// event type (a plugin's event that names them too).
func location(p session.Payload) (turn, step int, ok bool) {
	switch p := p.(type) {
	case *session.Opaque:
		var at struct{ Turn, Step *int }
		if json.Unmarshal(p.Data, &at) != nil || at.Turn == nil || at.Step == nil || *at.Turn < 0 || *at.Step < 0 {
			return 0, 0, false
		}
		return *at.Turn, *at.Step, true
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
