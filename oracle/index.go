package oracle

import (
	"sort"

	"github.com/turnsim/turnsim/loop/session"
)

// positions is where a log's turns and steps open and close, built once
// per log as it is fed: one mark per change of the open (turn, step), so
// a run-fact check finds the turn and step of any seq, or a turn's end,
// by binary search instead of rescanning the log from its start.
type positions struct {
	marks []mark
	ends  []ended
}

// ended is a turn/end.
type ended struct {
	seq  int64
	turn int
}

// mark: from the event after seq on, the open turn and step are turn and
// step (0 when none is open).
type mark struct {
	seq        int64
	turn, step int
}

// add follows one event.
func (p *positions) add(e *session.Event) {
	turn, step := p.open()
	switch d := e.Data.(type) {
	case *session.TurnStart:
		turn, step = d.Turn, 0
	case *session.StepStart:
		step = d.Step
	case *session.StepEnd:
		step = 0
	case *session.TurnEnd:
		turn, step = 0, 0
		p.ends = append(p.ends, ended{seq: e.Seq, turn: d.Turn})
	default:
		return
	}
	p.marks = append(p.marks, mark{seq: e.Seq, turn: turn, step: step})
}

func (p *positions) open() (turn, step int) {
	if n := len(p.marks); n > 0 {
		return p.marks[n-1].turn, p.marks[n-1].step
	}
	return 0, 0
}

// at is the open turn and step just before seq.
func (p *positions) at(seq int64) (turn, step int) {
	i := sort.Search(len(p.marks), func(i int) bool { return p.marks[i].seq >= seq })
	if i == 0 {
		return 0, 0
	}
	return p.marks[i-1].turn, p.marks[i-1].step
}

// turnEnd is the seq of turn's turn/end. Turns end in the order of their
// numbers in a log the loop wrote, so a binary search finds it; a log
// whose numbers do not increase is searched from its start.
func (p *positions) turnEnd(turn int) (int64, bool) {
	i := sort.Search(len(p.ends), func(i int) bool { return p.ends[i].turn >= turn })
	if i < len(p.ends) && p.ends[i].turn == turn {
		return p.ends[i].seq, true
	}
	for _, e := range p.ends {
		if e.turn == turn {
			return e.seq, true
		}
	}
	return 0, false
}
