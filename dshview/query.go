package dshview

import (
	"encoding/json"

	"github.com/turnsim/turnsim/loop/view"
)

// View is one way DSH's Web UI loads a log: a window of it installed as
// the loaded history, then older pages prepended to it, as the user
// scrolls up.
type View struct {
	// Where says which, for messages ("the tail window from seq 12").
	Where string
	// Steps are index ranges [from, to) of the log: the first is
	// installed (older history remains when from > 0), each later one
	// prepended before the window so far.
	Steps [][2]int
	// Rows: DSH's renderers draw the recovery rows after the last step.
	Rows bool
}

// Window is the events the view has loaded after step k.
func (v View) Window(k int) (from, to int) {
	return v.Steps[k][0], v.Steps[0][1]
}

// Query is what DSH's view code is asked of one log.
type Query struct {
	Views []View
	// Live are checkpoints, ascending exclusive ends: the log appended
	// one event at a time to a page that has the session open, read at
	// each.
	Live []int
}

// Answer is what DSH's view code derived: Views in the query's order,
// Live one snapshot a checkpoint (or LiveError, what it threw while the
// log was appended).
type Answer struct {
	Views []ViewAnswer
	Live  []Snapshot
	// Throws are the flushes of the live page that threw, each at the
	// event just appended (the page's snapshot stays as it was until a
	// later flush succeeds).
	Throws    []Throw
	LiveError string
}

// Throw is what DSH's view code threw as an event was appended live.
type Throw struct {
	Seq     int64  `json:"seq"`
	Type    string `json:"type"`
	Message string `json:"message"`
}

// ViewAnswer is one view's snapshots, one a step, and its rows; or the
// error DSH's view code threw.
type ViewAnswer struct {
	Steps []Snapshot `json:"steps"`
	Rows  []view.Row `json:"rows"`
	Error string     `json:"error"`
}

// Snapshot is DSH's Chat view at one point: its recovery nodes, visible
// ones in the page's order, and how many nodes it has in all.
type Snapshot struct {
	Total int        `json:"total"`
	Nodes []Node     `json:"nodes"`
	Rows  []view.Row `json:"rows"`
	// Stale: the last flush before the snapshot threw, so it is the page
	// as it stood before (live only).
	Stale bool `json:"stale"`
}

// Node is one Chat node of DSH's, as its Definitions build it.
type Node struct {
	Kind       string          `json:"kind"`
	Key        string          `json:"key"`
	ID         string          `json:"id"`
	AnchorSeq  float64         `json:"anchorSeq"`
	Visibility string          `json:"visibility"`
	Data       json.RawMessage `json:"data"`
}
