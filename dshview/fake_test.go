package dshview

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/sim"
)

// These helpers stand in for DSH's view code where a test needs an answer
// without Node: an answer that derives exactly what turnsim's view does,
// in DSH's shapes, for the tests to break one piece at a time.

// scenarioLog is the model's log of a scenario file under scenarios/.
func scenarioLog(t testing.TB, name string) []session.Event {
	t.Helper()
	s, err := sim.LoadScenario(filepath.Join("..", "scenarios", name))
	if err != nil {
		t.Fatal(err)
	}
	return sim.Run(s).Events
}

// dshNodes are turnsim's nodes as DSH's Definitions shape them.
func dshNodes(n view.Nodes) []Node {
	var out []Node
	for _, m := range n.ModelRetries {
		var d struct {
			Attempts []map[string]any `json:"attempts"`
		}
		for _, a := range m.Attempts {
			attempt := map[string]any{"seq": a.Seq, "time": a.Time, "retryState": string(a.State), "turn": m.Turn, "step": m.Step,
				"retryId": m.RetryID, "retry": a.Retry, "mode": a.Mode, "delayMs": a.DelayMs, "failure": a.Failure}
			if a.MaxRetries != nil {
				attempt["maxRetries"] = *a.MaxRetries
			}
			d.Attempts = append(d.Attempts, attempt)
		}
		data, _ := json.Marshal(d)
		out = append(out, Node{Kind: KindModelRetry, Key: "11:model-retry" + m.RetryID, ID: m.RetryID, AnchorSeq: float64(m.Seq), Visibility: "visible", Data: data})
	}
	for _, t := range n.TurnErrors {
		d := map[string]any{"kind": "turn-error", "seq": t.Seq, "time": t.Time, "turn": t.Turn, "step": t.Step, "message": t.Message}
		if t.Code != "" {
			d["code"] = t.Code
		}
		data, _ := json.Marshal(d)
		out = append(out, Node{Kind: KindTurnError, Key: "10:turn-error", ID: "1", AnchorSeq: float64(t.Seq), Visibility: "visible", Data: data})
	}
	return out
}

// faithful answers a query as turnsim's view derives it, under rc.8's
// rule: the answer of a DSH whose view code is what turnsim models.
func faithful(events []session.Event, q Query) *Answer {
	opts := view.Options{TurnErrors: view.HiddenByRetry}
	a := &Answer{}
	for _, v := range q.Views {
		var ans ViewAnswer
		for k := range v.Steps {
			from, to := v.Window(k)
			nodes := view.DeriveWith(events[from:to], opts)
			ans.Steps = append(ans.Steps, Snapshot{Total: len(events[from:to]), Nodes: dshNodes(nodes)})
			if v.Rows && k == len(v.Steps)-1 {
				ans.Rows = view.Rows(nodes, false)
			}
		}
		a.Views = append(a.Views, ans)
	}
	for _, end := range q.Live {
		nodes := view.DeriveWith(events[:end], opts)
		a.Live = append(a.Live, Snapshot{Total: end, Nodes: dshNodes(nodes), Rows: view.Rows(nodes, true)})
	}
	return a
}
