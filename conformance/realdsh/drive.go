package realdsh

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/conformance/dshweb"
	"github.com/turnsim/turnsim/sim"
)

// DriveOptions bound a drive.
type DriveOptions struct {
	// Quiet is how long the session must stay idle, with nothing left to
	// apply, before the drive ends (default 400 ms).
	Quiet time.Duration
	// Observe is called for each observe action of the scenario's world
	// when its trigger fires, with the seq of the first event not yet
	// seen: a look at the Web UI while the session is where the trigger
	// put it.
	Observe func(field string, beforeSeq int64) error
	// Stuck is how long an idle session with a turn still open must stay
	// quiet before the drive gives the turn up as never ending (default
	// 3 s): DSH's host reports idle a moment before the last turn/end.
	Stuck time.Duration
}

// planned is one input or action waiting for its trigger.
type planned struct {
	field   string
	what    string
	trigger sim.Trigger
	apply   func(ctx context.Context) error
	due     time.Duration // when it is scheduled (from the start); -1 until then
	done    bool
}

// RunDrive applies a scenario's inputs and world actions to a fresh
// session of a DSH web host, each at its trigger as the session's event
// stream shows it, and returns when the session has gone idle with
// nothing left to apply. The host's session stream and host stream must
// have been opened before the session was created (they have no replay).
func RunDrive(ctx context.Context, h *dshweb.Host, sessions, hostEvents *dshweb.Stream, sessionID string, s *sim.Scenario, o DriveOptions) (*conformance.Drive, error) {
	if o.Quiet == 0 {
		o.Quiet = 400 * time.Millisecond
	}
	if o.Stuck == 0 {
		o.Stuck = 3 * time.Second
	}
	var plan []*planned
	for i, in := range s.Inputs {
		mode := dshweb.ModeQueue
		if in.Kind == "steer" {
			mode = dshweb.ModeSteer
		}
		text := in.Text
		plan = append(plan, &planned{field: fmt.Sprintf("inputs[%d]", i), what: fmt.Sprintf("%s %q", in.Kind, text), trigger: in.Trigger, due: -1,
			apply: func(ctx context.Context) error { return h.Prompt(ctx, sessionID, mode, text) }})
	}
	var nextSeq int64 // the seq of the next event to arrive
	for i, a := range s.World {
		field := fmt.Sprintf("world[%d]", i)
		p := &planned{field: field, what: "cancel user keepInbox", trigger: a.Trigger, due: -1,
			apply: func(ctx context.Context) error { return h.Cancel(ctx, sessionID) }}
		if a.Do == "observe" {
			p.what = "observe"
			p.apply = func(context.Context) error {
				if o.Observe == nil {
					return nil
				}
				return o.Observe(field, nextSeq)
			}
		}
		plan = append(plan, p)
	}
	for _, p := range plan {
		if p.trigger.After == "" {
			p.due = msDuration(p.trigger.AtMs)
		}
	}
	d := &conformance.Drive{SessionID: sessionID}
	start := time.Now()
	counts := map[string]int{}
	running, openTurns := false, 0
	lastFrame := start
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		// Apply everything due, in the scenario's order (inputs first, as
		// the model's world places them).
		now := time.Since(start)
		for _, p := range plan {
			if p.done || p.due < 0 || p.due > now {
				continue
			}
			p.done = true
			rec := conformance.Applied{Field: p.field, What: p.what, BeforeSeq: nextSeq, AtMs: ms(time.Since(start))}
			if err := p.apply(ctx); err != nil {
				if ctx.Err() != nil {
					return d, err
				}
				rec.Error = err.Error()
			}
			d.Applied = append(d.Applied, rec)
			// The call is activity: what it starts has not reached the
			// stream yet.
			lastFrame = time.Now()
		}
		// Done: nothing scheduled, the session idle and quiet.
		pending := false
		next := time.Duration(-1)
		for _, p := range plan {
			if !p.done && p.due >= 0 {
				pending = true
				if next < 0 || p.due < next {
					next = p.due
				}
			}
		}
		quietFor := time.Since(lastFrame)
		if !pending && !running && quietFor >= o.Quiet && (openTurns == 0 || quietFor >= o.Stuck) {
			d.OpenTurns = openTurns
			break
		}
		wait := o.Quiet - quietFor
		if openTurns > 0 && !running {
			wait = o.Stuck - quietFor
		}
		if next >= 0 {
			wait = min(wait, next-time.Since(start))
		}
		if !pending && running {
			wait = o.Quiet
		}
		timer.Reset(max(wait, time.Millisecond))
		select {
		case <-ctx.Done():
			return d, fmt.Errorf("the drive did not end: %w", context.Cause(ctx))
		case <-h.Exited():
			return d, fmt.Errorf("dsh web exited during the drive")
		case <-timer.C:
		case f, ok := <-hostEvents.Frames():
			if !ok {
				return d, fmt.Errorf("the host event stream closed: %v", hostEvents.Err())
			}
			switch {
			case f.Method == "host/session-status" && f.SessionID == sessionID:
				var st struct {
					Running bool `json:"running"`
				}
				json.Unmarshal(f.Payload, &st)
				running = st.Running
				d.Running = running
				lastFrame = time.Now()
			case f.Method == "host/agent-error" && (f.SessionID == sessionID || f.SessionID == ""):
				var ae struct {
					Message string `json:"message"`
				}
				json.Unmarshal(f.Payload, &ae)
				d.AgentErrors = append(d.AgentErrors, ae.Message)
			}
		case f, ok := <-sessions.Frames():
			if !ok {
				return d, fmt.Errorf("the session event stream closed: %v", sessions.Err())
			}
			if f.SessionID != sessionID || f.Method != "session/event" {
				continue
			}
			var e struct {
				Type string `json:"type"`
				Seq  int64  `json:"seq"`
			}
			if err := json.Unmarshal(f.Event, &e); err != nil {
				return d, fmt.Errorf("an event frame that is not an event: %.200s", f.Event)
			}
			d.Events++
			lastFrame = time.Now()
			nextSeq = max(nextSeq, e.Seq+1)
			switch e.Type {
			case "turn/start":
				openTurns++
			case "turn/end":
				openTurns--
			}
			counts[e.Type]++
			for _, p := range plan {
				if !p.done && p.due < 0 && p.trigger.After == e.Type && p.trigger.Nth == counts[e.Type] {
					p.due = time.Since(start) + msDuration(p.trigger.PlusMs)
				}
			}
		}
	}
	for _, p := range plan {
		if !p.done {
			d.Unfired = append(d.Unfired, p.field)
		}
	}
	d.ElapsedMs = ms(time.Since(start))
	return d, nil
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
