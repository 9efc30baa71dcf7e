package campaign

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// The kinds of choice point an input or a world action is placed at, by
// its trigger: where recovery races live, each a place a seed's world can
// reach (and, on DSH's loop, each reached at DSH's own code).
const (
	pointAfterEvent     = "after an event"
	pointRetryDecided   = "after the waterfall decided retry" // llm/retry-started: the loop has not consumed the decision
	pointModelCall      = "at an adapter call's entry"
	pointAwaitingAnswer = "while a request awaits its answer"
	pointAfterChunk     = "after a stream's k-th chunk"
	pointInsideStream   = "inside a stream"
	pointWaitBegins     = "as a listener's wait begins"
	pointInsideWait     = "at an offset inside a wait"
	pointDuringSummary  = "during a summary"
	pointDuringTool     = "during a tool"
	pointAtTime         = "at a virtual time"
)

// pointKinds are the kinds, in the order a report lists them.
var pointKinds = []string{pointAfterEvent, pointRetryDecided, pointModelCall, pointAwaitingAnswer, pointAfterChunk,
	pointInsideStream, pointWaitBegins, pointInsideWait, pointDuringSummary, pointDuringTool, pointAtTime}

// pointKind is the kind of choice point a trigger places at.
func pointKind(t sim.Trigger) string {
	later := t.PlusMs > 0
	switch {
	case t.After == "":
		return pointAtTime
	case t.After == sim.AfterModelCall && later:
		return pointAwaitingAnswer
	case t.After == sim.AfterModelCall:
		return pointModelCall
	case t.After == sim.AfterListenerWait && later:
		return pointInsideWait
	case t.After == sim.AfterListenerWait:
		return pointWaitBegins
	case t.After == session.TypeAssistantChunk && later:
		return pointInsideStream
	case t.After == session.TypeAssistantChunk:
		return pointAfterChunk
	case t.After == session.TypeLLMRetry && later:
		return pointInsideWait
	case t.After == session.TypeCompactionStart && later:
		return pointDuringSummary
	case t.After == session.TypeToolCall && later:
		return pointDuringTool
	case t.After == session.TypeLLMRetryStarted && !later:
		return pointRetryDecided
	}
	return pointAfterEvent
}

// Landing is one input or world action that landed, by what it did and
// the kind of point it was placed at.
type Landing struct {
	Action, Point string
}

// landings are the inputs and world actions of a run that landed (the
// workload's own prompts apart), by kind.
func landings(s *sim.Scenario, res *sim.Result, workload int) []Landing {
	var out []Landing
	for _, a := range res.Actions {
		switch {
		case a.Input > workload && a.Input <= len(s.Inputs):
			in := s.Inputs[a.Input-1]
			out = append(out, Landing{in.Kind, pointKind(in.Trigger)})
		case a.World > 0 && a.World <= len(s.World):
			w := s.World[a.World-1]
			if w.Do != "observe" {
				out = append(out, Landing{w.Do, pointKind(w.Trigger)})
			}
		}
	}
	return out
}

// LandingRow is how many of an action landed at a kind of point.
type LandingRow struct {
	Action string `json:"action"`
	Point  string `json:"point"`
	Count  int    `json:"count"`
}

// landingActions are the actions a landing table has columns for.
var landingActions = []string{"cancel", "steer", "followup", "send", "inject", "dispose", "dispose-retry"}

// landingRows is the table of counts, every point and action, zeros
// included, in a fixed order.
func landingRows(counts map[Landing]int) []LandingRow {
	var out []LandingRow
	for _, p := range pointKinds {
		for _, a := range landingActions {
			out = append(out, LandingRow{a, p, counts[Landing{a, p}]})
		}
	}
	return out
}

// writeLandings prints the table: a row per kind of point, a column per
// action.
func writeLandings(w io.Writer, rows []LandingRow) {
	fmt.Fprintf(w, "landings (inputs and world actions that landed, by the kind of point they were placed at):\n")
	width := 0
	for _, p := range pointKinds {
		width = max(width, len(p))
	}
	fmt.Fprintf(w, "  %-*s", width, "")
	for _, a := range landingActions {
		fmt.Fprintf(w, " %13s", a)
	}
	fmt.Fprintln(w)
	for i := 0; i < len(rows); i += len(landingActions) {
		fmt.Fprintf(w, "  %-*s", width, rows[i].Point)
		for _, r := range rows[i : i+len(landingActions)] {
			fmt.Fprintf(w, " %13d", r.Count)
		}
		fmt.Fprintln(w)
	}
}

// sortedLandings is a run's landings in a fixed order.
func sortedLandings(ls []Landing) []Landing {
	return slices.SortedFunc(slices.Values(ls), func(a, b Landing) int {
		if c := strings.Compare(a.Point, b.Point); c != 0 {
			return c
		}
		return strings.Compare(a.Action, b.Action)
	})
}

// CancelsNote says where the cancels of a campaign landed, by the kind of
// point they were placed at, the most first: "182 at a virtual time, 43
// after an event, …" ("none" when none landed).
func (r CoverageReport) CancelsNote() string {
	var rows []LandingRow
	for _, l := range r.Landings {
		if l.Action == "cancel" && l.Count > 0 {
			rows = append(rows, l)
		}
	}
	if len(rows) == 0 {
		return "none"
	}
	slices.SortStableFunc(rows, func(a, b LandingRow) int { return b.Count - a.Count })
	parts := make([]string, len(rows))
	for i, l := range rows {
		parts[i] = fmt.Sprintf("%d %s", l.Count, l.Point)
	}
	return strings.Join(parts, ", ")
}
