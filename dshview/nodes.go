package dshview

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
)

// Chat node kinds of DSH's that turnsim's view has nodes for.
const (
	KindModelRetry = "model-retry"
	KindTurnError  = "turn-error"
)

// turnErrorData is a turn-error node's data (conversation-nodes/
// turn-error.ts): the turn/end's seq and time, the turn, the last step
// of its location, the display message and the code.
type turnErrorData struct {
	Seq     int64  `json:"seq"`
	Time    int64  `json:"time"`
	Turn    int    `json:"turn"`
	Step    int    `json:"step"`
	Message string `json:"message"`
	Code    string `json:"code"`
}

// retryData is a model-retry node's data (conversation-nodes/retry.ts):
// each attempt is its llm/retry's data with its seq, time and state.
type retryData struct {
	Attempts []struct {
		session.LLMRetry
		Seq        int64  `json:"seq"`
		Time       int64  `json:"time"`
		RetryState string `json:"retryState"`
	} `json:"attempts"`
}

// ViewNodes are a snapshot's nodes as turnsim's view has them: its visible
// turn-error and model-retry nodes, each list in seq order. A node of
// another shape than rc.8's is an error, naming it.
func (s Snapshot) ViewNodes() (view.Nodes, error) {
	var out view.Nodes
	for _, n := range s.Nodes {
		if n.Visibility != "visible" {
			continue // the Chat view's order holds visible nodes only
		}
		switch n.Kind {
		case KindTurnError:
			var d turnErrorData
			if err := json.Unmarshal(n.Data, &d); err != nil {
				return out, fmt.Errorf("DSH's turn-error node %s: %v", n.Key, err)
			}
			if float64(d.Seq) != n.AnchorSeq {
				return out, fmt.Errorf("DSH's turn-error node %s is anchored at %v, not at its turn/end's seq %d", n.Key, n.AnchorSeq, d.Seq)
			}
			out.TurnErrors = append(out.TurnErrors, view.TurnError{Seq: d.Seq, Time: d.Time, Turn: d.Turn, Step: d.Step, Message: d.Message, Code: d.Code})
		case KindModelRetry:
			var d retryData
			if err := json.Unmarshal(n.Data, &d); err != nil {
				return out, fmt.Errorf("DSH's model-retry node %s: %v", n.Key, err)
			}
			if len(d.Attempts) == 0 || n.AnchorSeq != math.Trunc(n.AnchorSeq) {
				return out, fmt.Errorf("DSH's model-retry node %s has no attempt, or an anchor %v between events", n.Key, n.AnchorSeq)
			}
			first := d.Attempts[0]
			node := view.ModelRetry{Seq: int64(n.AnchorSeq), Time: first.Time, RetryID: n.ID, Turn: first.Turn, Step: first.Step}
			for _, a := range d.Attempts {
				node.Attempts = append(node.Attempts, view.RetryAttempt{Seq: a.Seq, Time: a.Time, Retry: a.Retry, MaxRetries: a.MaxRetries,
					Mode: a.Mode, DelayMs: a.DelayMs, Failure: a.Failure, State: view.AttemptState(a.RetryState)})
			}
			out.ModelRetries = append(out.ModelRetries, node)
		}
	}
	slices.SortStableFunc(out.TurnErrors, func(a, b view.TurnError) int { return int(a.Seq - b.Seq) })
	slices.SortStableFunc(out.ModelRetries, func(a, b view.ModelRetry) int { return int(a.Seq - b.Seq) })
	return out, nil
}
