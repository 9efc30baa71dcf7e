package faults

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
	PointAfterEvent     = "after an event"
	PointRetryDecided   = "after the waterfall decided retry" // llm/retry-started: the loop has not consumed the decision
	PointModelCall      = "at an adapter call's entry"
	PointAwaitingAnswer = "while a request awaits its answer"
	PointAfterChunk     = "after a stream's k-th chunk"
	PointInsideStream   = "inside a stream"
	PointWaitBegins     = "as a listener's wait begins"
	PointInsideWait     = "at an offset inside a wait"
	PointDuringSummary  = "during a summary"
	PointDuringTool     = "during a tool"
	PointAtTime         = "at a virtual time"
)

// PointKinds are the kinds, in the order a report lists them.
var PointKinds = []string{PointAfterEvent, PointRetryDecided, PointModelCall, PointAwaitingAnswer, PointAfterChunk,
	PointInsideStream, PointWaitBegins, PointInsideWait, PointDuringSummary, PointDuringTool, PointAtTime}

// PointKind is the kind of choice point a trigger places at.
func PointKind(t sim.Trigger) string {
	later := t.PlusMs > 0
	switch {
	case t.After == "":
		return PointAtTime
	case t.After == sim.AfterModelCall && later:
		return PointAwaitingAnswer
	case t.After == sim.AfterModelCall:
		return PointModelCall
	case t.After == sim.AfterListenerWait && later:
		return PointInsideWait
	case t.After == sim.AfterListenerWait:
		return PointWaitBegins
	case t.After == session.TypeAssistantChunk && later:
		return PointInsideStream
	case t.After == session.TypeAssistantChunk:
		return PointAfterChunk
	case t.After == session.TypeLLMRetry && later:
		return PointInsideWait
	case t.After == session.TypeCompactionStart && later:
		return PointDuringSummary
	case t.After == session.TypeToolCall && later:
		return PointDuringTool
	case t.After == session.TypeLLMRetryStarted && !later:
		return PointRetryDecided
	}
	return PointAfterEvent
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
			out = append(out, Landing{in.Kind, PointKind(in.Trigger)})
		case a.World > 0 && a.World <= len(s.World):
			w := s.World[a.World-1]
			if w.Do != "observe" {
				out = append(out, Landing{w.Do, PointKind(w.Trigger)})
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
	for _, p := range PointKinds {
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
	for _, p := range PointKinds {
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
func (r Report) CancelsNote() string {
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
