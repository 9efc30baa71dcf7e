package baseline

import (
	"cmp"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/realtime"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

var errThrew = errors.New("request-error listener threw")

// world applies a scenario's inputs and world actions from its own
// goroutine: timed ones when the mock clock reaches them, the others when
// the agent's observer reports their event.
type world struct {
	s     *sim.Scenario
	d     *realtime.Driver
	mock  *clock.Mock
	mu    sync.Mutex
	count map[string]int
	// waiting are the event-triggered actions not yet applied.
	waiting   []pending
	events    chan string
	quit      chan struct{}
	done      sync.WaitGroup
	lastTimed time.Duration
	timed     []pending
	ids       *ids
}

type pending struct {
	sim.Trigger
	apply func()
}

func newWorld(s *sim.Scenario, d *realtime.Driver, mock *clock.Mock, ids *ids) *world {
	w := &world{s: s, d: d, mock: mock, ids: ids, count: map[string]int{}, events: make(chan string, 1<<14), quit: make(chan struct{})}
	add := func(t sim.Trigger, apply func()) {
		p := pending{Trigger: t, apply: apply}
		if t.After != "" {
			w.waiting = append(w.waiting, p)
			return
		}
		w.timed = append(w.timed, p)
		w.lastTimed = max(w.lastTimed, duration(t.AtMs))
	}
	for i, in := range s.Inputs {
		add(in.Trigger, w.input(i, in))
	}
	for _, a := range s.World {
		add(a.Trigger, w.action(a))
	}
	slices.SortStableFunc(w.timed, func(a, b pending) int { return cmp.Compare(a.AtMs, b.AtMs) })
	return w
}

// observe runs inside the agent's append (under the driver's lock): it
// only hands the event type to the world goroutine, as a test's observer
// would, so the action lands whenever that goroutine gets the lock.
func (w *world) observe(e *session.Event) {
	select {
	case w.events <- e.Type():
	default: // a full channel drops the event: a harness's buffer
	}
}

// start starts the world goroutine; the returned channel closes when
// every timed input and action has been applied.
func (w *world) start() <-chan struct{} {
	timedDone := make(chan struct{})
	w.done.Add(2)
	go func() {
		defer w.done.Done()
		defer close(timedDone)
		for _, p := range w.timed {
			// Never a negative wait: the Mock moves its clock back to a
			// timer set in the past.
			t := w.mock.Timer(max(0, duration(p.AtMs)-w.mock.Now().Sub(sim.Epoch)))
			select {
			case <-t.C:
			case <-w.quit:
				t.Stop()
				return
			}
			p.apply()
		}
	}()
	go func() {
		defer w.done.Done()
		for {
			select {
			case typ := <-w.events:
				w.mu.Lock()
				w.count[typ]++
				var due []pending
				w.waiting = slices.DeleteFunc(w.waiting, func(p pending) bool {
					if p.After == typ && p.Nth == w.count[typ] {
						due = append(due, p)
						return true
					}
					return false
				})
				w.mu.Unlock()
				for _, p := range due {
					if p.PlusMs > 0 {
						w.mock.AfterFunc(duration(p.PlusMs), p.apply)
						continue
					}
					p.apply()
				}
			case <-w.quit:
				return
			}
		}
	}()
	return timedDone
}

// stop ends the world goroutines and says how many event-triggered
// actions never ran.
func (w *world) stop() int {
	close(w.quit)
	w.done.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.waiting)
}

func (w *world) input(i int, in sim.Input) func() {
	return func() {
		content := append(session.AppendString([]byte(`[{"type":"text","text":`), in.Text), "}]"...)
		m := session.UserMessage{Content: content, Source: session.Source{Kind: "user"}, Role: "user", ID: w.ids.NewID(loop.IDMessage)}
		switch in.Kind {
		case "send", "followup":
			w.d.Followup(m)
		case "steer":
			w.d.Steer(m)
		case "inject":
			w.d.Inject(m)
		}
	}
}

func (w *world) action(a sim.Action) func() {
	return func() {
		switch a.Do {
		case "cancel":
			w.d.Cancel(a.Cause, a.KeepInbox)
		case "dispose", "dispose-retry":
			// The harness has no handle on llm-retry's executor: both
			// dispose the agent. Not Driver.Dispose, which waits for the
			// agent: this may run on the clock goroutine.
			w.d.Do(func(a *loop.Agent) { a.Dispose() })
		}
	}
}
