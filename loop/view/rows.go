package view

import (
	"fmt"
	"slices"
	"strings"
)

// Row is one recovery row as DSH's Web UI draws it: what turnsim reads
// off the page in Chromium (conformance/webui), what DSH's own renderers
// draw in Node (dshview), and what turnsim's view draws (Rows).
type Row struct {
	// Kind is model-retry, turn-error or turn-max-tokens.
	Kind string `json:"kind"`
	// Status is a retry row's text: "{label} ({retry}/{max}) · {s}s".
	Status string `json:"status,omitempty"`
	// Active: the row is live, counting down a wait.
	Active bool `json:"active,omitempty"`
	// Details are a retry row's expandable lines: the delay, the failure.
	Details []string `json:"details,omitempty"`
	// Title, Message and Code are a turn-error row's.
	Title   string `json:"title,omitempty"`
	Message string `json:"message,omitempty"`
	Code    string `json:"code,omitempty"`
	// Seq is the anchor of the node the row was drawn from, where it is
	// known (a row drawn from nodes; 0 for one read off a page): the
	// rendering invariants match a turn-error row to its turn/end by it.
	// Line leaves it out.
	Seq int64 `json:"seq,omitempty"`
}

// Line renders a row for a comparison. A live row's seconds count down
// from when the page first drew it, so they are left out ("· …s"); the
// countdown is checked against the delay separately.
func (r Row) Line() string {
	switch r.Kind {
	case "model-retry":
		status := r.Status
		if r.Active {
			if i := strings.LastIndex(status, " · "); i >= 0 {
				status = status[:i] + " · …s"
			}
			status += " (live)"
		}
		return fmt.Sprintf("model-retry %q [%s]", status, strings.Join(r.Details, "; "))
	case "turn-error":
		return fmt.Sprintf("turn-error %q %q %s", r.Title, r.Message, r.Code)
	}
	return fmt.Sprintf("%s %q", r.Kind, r.Title)
}

// Rows are the rows of the nodes, as DSH's Web UI draws them, in the
// page's order (by anchor seq). live: the log is the log as it stood, so
// a scheduled last attempt is an active row.
func Rows(nodes Nodes, live bool) []Row {
	rows := make([]Row, 0, len(nodes.ModelRetries)+len(nodes.TurnErrors))
	for _, m := range nodes.ModelRetries {
		rows = append(rows, Row{Kind: "model-retry", Status: m.Label(), Details: m.Details(),
			Active: live && m.Current().State == Scheduled, Seq: m.Seq})
	}
	for _, t := range nodes.TurnErrors {
		rows = append(rows, Row{Kind: "turn-error", Title: "This turn failed", Message: t.Message, Code: t.Code, Seq: t.Seq})
	}
	slices.SortStableFunc(rows, func(a, b Row) int { return int(a.Seq - b.Seq) })
	return rows
}

// RowLines renders rows for a comparison: the recovery rows only (the
// Web UI's max-tokens notice has no node in turnsim's view).
func RowLines(rows []Row) []string {
	var out []string
	for _, r := range rows {
		if r.Kind == "model-retry" || r.Kind == "turn-error" {
			out = append(out, r.Line())
		}
	}
	return out
}
