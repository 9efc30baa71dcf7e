package simrun

import (
	"fmt"
	"sort"
	"strings"

	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
)

// nodeLine is one derived Web node as simrun prints it.
type nodeLine struct {
	Kind    string   `json:"kind"` // "turn-error" or "model-retry"
	Seq     int64    `json:"seq"`
	Turn    int      `json:"turn"`
	Step    int      `json:"step"`
	Text    string   `json:"text"`
	Code    string   `json:"code,omitempty"`
	Message string   `json:"message,omitempty"`
	RetryID string   `json:"retryId,omitempty"`
	States  []string `json:"states,omitempty"`
	Details []string `json:"details,omitempty"`
}

func nodeLines(n view.Nodes) []nodeLine {
	var out []nodeLine
	for _, t := range n.TurnErrors {
		out = append(out, nodeLine{Kind: "turn-error", Seq: t.Seq, Turn: t.Turn, Step: t.Step, Text: t.Text(), Code: t.Code, Message: t.Message})
	}
	for _, m := range n.ModelRetries {
		var states []string
		for _, a := range m.Attempts {
			states = append(states, string(a.State))
		}
		out = append(out, nodeLine{Kind: "model-retry", Seq: m.Seq, Turn: m.Turn, Step: m.Step, Text: m.Label(), RetryID: m.RetryID, States: states, Details: m.Details()})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// text is the node's line. A node's label quotes the log (a failure's
// message and code), so the line is made printable: an ESC in a code once
// reached the terminal through --view. (--json escapes it as JSON does.)
func (n nodeLine) text() string {
	s := fmt.Sprintf("%-11s seq %d turn %d step %d: %s", n.Kind, n.Seq, n.Turn, n.Step, n.Text)
	if len(n.States) > 0 {
		s += " [" + strings.Join(n.States, ", ") + "]"
	}
	return strictjson.Printable(s)
}

// viewFindingLine is a recorded finding about DSH's view code, as replay
// and scenario print it.
func viewFindingLine(f oracle.Finding) string {
	return strictjson.Printable(fmt.Sprintf("recorded finding about DSH's view code: %s (%s, not a new failure): %s", f.Class, f.Invariant, f.Message))
}
