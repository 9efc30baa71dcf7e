package webui

import (
	"fmt"
	"strings"
)

// Row is one recovery row as DSH's Web UI renders it.
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
