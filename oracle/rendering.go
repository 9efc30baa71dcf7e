package oracle

import (
	"strconv"

	"github.com/turnsim/turnsim/internal/arena"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
)

// rendering derives the view of the full log and of the tail windows that
// contain each error turn/end, and checks the turn-error node of each.
//
// A tail window is a suffix of the log as it stood when the turn/end was
// appended (what a client that loaded the session's tail saw then), so it
// ends at that turn/end; the full log covers everything after it.
// Windows begin at every event of the failed turn except its chunks (and at
// the turn/end itself): a turn-error node reads only the turn's start, its
// end and the turn's last located step, and a chunk is always followed
// inside the turn by a step/end or message that locates the turn again, so
// windows that begin at chunks derive what their neighbours derive.
//
// The full log's nodes come from a view.Deriver fed as the log is read:
// a turn-error node and a chain's row are made by events up to the
// turn/end, so the full log's node of a turn/end is known at it. A view
// under test (Options.Derive) derives the whole log instead, once, at the
// first error turn/end.
//
// Only a view under test has its windows derived. The default view makes
// a turn-error node from the turn/end alone (view.Deriver), and a window
// holds exactly one turn/end, its last event (a turn/end closes the turn,
// and the window of a turn/end outside an open turn is that turn/end), so
// every window of the default view derives the node the full log does.
// Deriving them anyway cost a Stream a copy of every event of the open
// turn — 20 million events in one turn were 1.5 GB — and Check a
// derivation per window.
type rendering struct {
	reporter
	// derive is the view under test's derivation of a window; nil for the
	// default view, whose windows are not derived.
	derive func([]session.Event) view.Nodes
	// Either full, the view under test's nodes of the whole log (derived
	// at the first call), or deriver, following the log.
	full    func() *view.Nodes
	deriver *view.Deriver
	// turn holds the open turn's events, from its turn/start, for a view
	// under test: the tail windows of its end. When the whole log is at
	// hand (all), turn is a window of it instead of a copy.
	turn         []session.Event
	all          []session.Event
	open         bool
	turnBase     int64            // the index of turn[0]
	chainsOfTurn map[int][]string // turn → retryIds of its chains, in order
	spareChains  map[int][]string // chainsOfTurn, kept to be made again
}

func newRendering(derive func([]session.Event) view.Nodes, full func() *view.Nodes) *rendering {
	r := &rendering{}
	r.reset(derive, full)
	return r
}

func (r *rendering) reset(derive func([]session.Event) view.Nodes, full func() *view.Nodes) {
	clear(r.turn)
	*r = rendering{reporter: r.reporter.reused(ExhaustedTurnRendersError), derive: derive, full: full, turn: r.turn[:0], spareChains: r.spareChains}
	if full == nil {
		r.deriver = view.NewDeriver()
	}
}

// event follows the event at index i.
func (r *rendering) event(i int64, e *session.Event) {
	var made *view.TurnError
	if r.deriver != nil {
		made = r.deriver.Add(e)
	}
	switch p := e.Data.(type) {
	case *session.TurnStart:
		r.turnBase, r.open = i, true
		if r.all == nil && r.derive != nil {
			clear(r.turn)
			r.turn = append(r.turn[:0], *e)
		}
		return
	case *session.LLMRetry:
		if p.Retry == 1 && p.RetryID != "" {
			if r.chainsOfTurn == nil {
				r.chainsOfTurn = arena.Fresh(&r.spareChains)
			}
			r.chainsOfTurn[p.Turn] = append(r.chainsOfTurn[p.Turn], p.RetryID)
		}
	case *session.TurnEnd:
		if !r.open {
			r.turnBase = i
		}
		switch {
		case r.derive == nil:
		case r.all != nil:
			r.turn = r.all[r.turnBase : i+1]
		default:
			r.turn = append(r.turn, *e)
		}
		r.turnEnd(e, p, made)
		if r.all == nil {
			clear(r.turn)
			r.turn = r.turn[:0]
		} else {
			r.turn = nil
		}
		r.open = false
		delete(r.chainsOfTurn, p.Turn)
		if r.deriver != nil {
			r.deriver.Settle(p.Turn)
		}
		return
	}
	if r.open && r.all == nil && r.derive != nil {
		r.turn = append(r.turn, *e)
	}
}

func (r *rendering) turnEnd(e *session.Event, p *session.TurnEnd, made *view.TurnError) {
	if p.Reason.Kind != session.EndError || p.Reason.Error == nil {
		return
	}
	want := view.TurnError{Seq: e.Seq, Turn: p.Turn, Message: view.DisplayFailureMessage(p.Reason.Error), Code: p.Reason.Error.Code}
	// The full log's turn-error nodes: the view under test's, or the one
	// the deriver made at this turn/end.
	var full []view.TurnError
	switch {
	case r.full != nil:
		full = r.full().TurnErrors
	case made != nil:
		full = []view.TurnError{*made}
	}
	if !hasTurnError(&r.reporter, full, want, "the full log") {
		return
	}
	for _, id := range r.chainsOfTurn[p.Turn] {
		if !r.hasChain(id) {
			r.add(p.Turn, 0, []int64{e.Seq}, "turn %d retried (chain %s) but the view derives no model-retry row beside its error", p.Turn, id)
		}
	}
	// The windows of a view under test: r.turn begins at the turn's
	// start when it is open (else it holds the turn/end alone), and the
	// first event of a log is the full log, checked above. (The default
	// view keeps none: see rendering.)
	last := len(r.turn) - 1
	for w := 0; w <= last; w++ {
		if w != last && w != 0 {
			if _, chunk := r.turn[w].Data.(*session.AssistantChunk); chunk {
				continue
			}
		}
		if r.turnBase+int64(w) == 0 {
			continue
		}
		nodes := r.derive(r.turn[w:])
		if !hasTurnError(&r.reporter, nodes.TurnErrors, want, "the tail window from seq "+strconv.FormatInt(r.turn[w].Seq, 10)) {
			break // one report per turn is enough
		}
	}
}

func (r *rendering) hasChain(id string) bool {
	if r.full == nil {
		return r.deriver.HasChain(id)
	}
	for _, n := range r.full().ModelRetries {
		if n.RetryID == id {
			return true
		}
	}
	return false
}

// hasTurnError reports a missing or wrong node.
func hasTurnError(r *reporter, nodes []view.TurnError, want view.TurnError, where string) bool {
	for _, n := range nodes {
		if n.Seq != want.Seq {
			continue
		}
		if n.Turn != want.Turn || n.Message != want.Message || n.Code != want.Code {
			r.add(want.Turn, n.Step, []int64{want.Seq}, "in %s the turn-error node reads turn %d %q/%s, want turn %d %q/%s", where, n.Turn, n.Message, n.Code, want.Turn, want.Message, want.Code)
			return false
		}
		return true
	}
	r.add(want.Turn, 0, []int64{want.Seq}, "turn %d ended with error %s, but %s derives no turn-error node for it", want.Turn, want.Code, where)
	return false
}
