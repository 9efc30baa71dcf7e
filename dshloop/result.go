package dshloop

import (
	"fmt"
	"strings"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// result is a driver's output as the model's world gives a run: DSH's log
// (read as any DSH log is), and the facts the oracle needs beyond it, from
// what the driver saw: each adapter call, where each world action and
// input landed, the budgets of the listeners installed.
func result(s *sim.Scenario, out *Output) (*sim.Result, error) {
	header, events, err := session.ReadAll(strings.NewReader(out.Log), session.ReadOptions{Name: "DSH's log"})
	if err != nil {
		return nil, fmt.Errorf("DSH's log of %s does not read: %v", s.Name, err)
	}
	res := &sim.Result{Header: header, Events: events, Stopped: out.Stopped, Unfired: out.Unfired, System: SystemDSH,
		Summaries: out.Facts.Summaries, Warnings: out.Facts.Warnings, Disposed: out.Facts.Disposed}
	epoch := sim.Epoch.UnixMilli()
	f := &res.Facts
	f.TimeNs = make([]int64, len(events))
	for i := range events {
		if len(out.Facts.EventTimesUs) >= len(events) { // the last may follow the log (the final disposal)
			f.TimeNs[i] = out.Facts.EventTimesUs[i] * 1e3
		} else {
			f.TimeNs[i] = (events[i].Time - epoch) * 1e6
		}
	}
	for _, q := range out.Facts.Requests {
		f.Requests = append(f.Requests, oracle.Request{Seq: q.Seq, Order: q.Order, Turn: q.Turn, Step: q.Step, Attempt: q.Attempt, Messages: q.Messages})
		res.Requests = append(res.Requests, sim.RequestRecord{TimeMs: q.TimeMs, Turn: q.Turn, Step: q.Step, Attempt: q.Attempt, Provider: "deepseek", Messages: q.Messages})
	}
	for _, a := range out.Facts.Actions {
		applied := sim.AppliedAction{Seq: a.Seq, TimeMs: a.TimeMs, Order: a.Order}
		var i int
		switch {
		case parseField(a.Field, "inputs[%d]", &i, len(s.Inputs)):
			applied.What, applied.Input = s.Inputs[i].What(), i+1
			if a.Refused != "" {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s %q refused: %s", s.Inputs[i].Kind, s.Inputs[i].Text, a.Refused))
			}
		case parseField(a.Field, "world[%d]", &i, len(s.World)):
			w := s.World[i]
			applied.What, applied.World = w.What(), i+1
			kind, cause := w.Do, w.Cause.Kind
			if kind == "dispose" {
				cause = session.CauseDisposed
			}
			if (kind == "cancel" || kind == "dispose") && a.Turn != 0 {
				// As the model counts them: while a turn is open.
				f.Actions = append(f.Actions, oracle.Action{Seq: a.Seq, Order: a.Order, TimeNs: a.TimeUs * 1e3, Turn: a.Turn, Kind: kind, Cause: cause})
			}
		default:
			return nil, fmt.Errorf("DSH's loop driver applied %q, which is no field of %s", a.Field, s.Name)
		}
		res.Actions = append(res.Actions, applied)
	}
	for _, in := range out.Facts.Inputs {
		f.Inputs = append(f.Inputs, oracle.Input{ID: in.ID, Refused: in.Refused})
	}
	for _, d := range out.Facts.Decisions {
		f.Decisions = append(f.Decisions, oracle.Decision{Seq: d.Seq, Turn: d.Turn, Step: d.Step, Listener: d.Listener, Retry: d.Retry, Threw: d.Threw})
	}
	for _, w := range out.Facts.Waterfalls {
		f.Waterfalls = append(f.Waterfalls, oracle.Waterfall{Seq: w.Seq, Order: w.Order, Retry: w.Retry, Threw: w.Threw})
	}
	for _, st := range out.Facts.Statuses {
		res.Statuses = append(res.Statuses, loop.Status(st))
	}
	f.MaxOverflowRetries, f.IdleAfterDisposal = -1, out.Facts.IdleAfterDisposal
	for _, name := range s.ListenerOrder {
		switch name {
		case sim.ListenerRetry:
			b := oracle.Budget{Listener: sim.AgentName(name), MaxRetries: sim.Unbounded}
			switch p := s.RetryPolicy; {
			case p == nil:
				b.MaxRetries = 0
			case p.Mode == loop.ModeNormal:
				b.MaxRetries = p.MaxRetries
			}
			f.Budgets = append(f.Budgets, b)
		case sim.ListenerCompaction:
			if c := s.Compaction; c != nil {
				f.Budgets = append(f.Budgets, oracle.Budget{Listener: sim.AgentName(name), MaxRetries: c.MaxOverflowRetries})
				f.MaxOverflowRetries = c.MaxOverflowRetries
			}
		}
	}
	f.Stopped, f.Panic = res.Stopped, out.Facts.Panic
	// The driver's timers count whole microseconds (driver.mjs).
	f.TimerResolutionNs = 1e3
	return res, nil
}

// parseField reads a plan field's index, in [0, n).
func parseField(field, format string, i *int, n int) bool {
	_, err := fmt.Sscanf(field, format, i)
	return err == nil && *i >= 0 && *i < n && fmt.Sprintf(format, *i) == field
}
