package baseline

import (
	"slices"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/realtime"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// Options shape the harness.
type Options struct {
	// Step is how far the clock goroutine moves the mock clock at a time.
	// benbjohnson's Mock.Add sleeps a millisecond of real time after each
	// move so that other goroutines run: a smaller step is finer and
	// slower.
	Step time.Duration
	// Horizon bounds a run in virtual time after its last timed input or
	// action, for runs whose sleeps nothing ends (default 10 minutes).
	Horizon time.Duration
	// Sim is the system under test: listener installers, a settle rule, an
	// attempt path and a view, as for the deterministic world.
	Sim sim.Options
	// WallLimit bounds a run in real time (default DefaultWallLimit). A
	// harness like this one can hang: benbjohnson's Mock ticks a timer
	// that two goroutines found due at once twice, and the second send
	// blocks with the clock's lock held. A run past the limit is abandoned
	// (its goroutines stay blocked) and reported Hung.
	WallLimit time.Duration
}

// DefaultWallLimit is far above any run's real time (a run is a few
// hundred mock-clock steps of a millisecond each): only a hung run
// reaches it, even on a loaded machine.
const DefaultWallLimit = 30 * time.Second

// Result is one run: its log and what the oracle said of it.
type Result struct {
	Events     []session.Event
	Violations []oracle.Violation
	// Unapplied counts the plan's event-triggered actions whose event
	// never came before the run ended.
	Unapplied int
	// Bounded says the run reached its horizon.
	Bounded bool
	// Hung says the run did not end within Options.WallLimit: it has no
	// log and no verdict, and counts as that run's failure.
	Hung bool
}

// Verdict is the set of invariants a run violated, sorted: what a test
// would assert on.
func (r Result) Verdict() []string { return Invariants(r.Violations) }

// Invariants is the sorted set of the violations' invariants.
func Invariants(vs []oracle.Violation) []string {
	var ids []string
	for _, v := range vs {
		if id := string(v.Invariant); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// Run runs a scenario the way a hand-written concurrent harness would and
// checks its log with the oracle (log-level invariants, strictly: a
// harness like this has no run facts). A run that hangs is given up after
// o.WallLimit of real time: the caller carries on.
func Run(s *sim.Scenario, o Options) Result {
	if o.Step <= 0 {
		o.Step = 100 * time.Millisecond
	}
	if o.Horizon <= 0 {
		o.Horizon = 10 * time.Minute
	}
	if o.WallLimit <= 0 {
		o.WallLimit = DefaultWallLimit
	}
	done := make(chan Result, 1) // buffered: an abandoned run's late result is dropped
	go func() { done <- run(s, o) }()
	// Real time, on purpose: the point is to bound what the mock clock
	// cannot (and a pending real timer also keeps the runtime from calling
	// a hung run a deadlock of the whole process).
	limit := time.NewTimer(o.WallLimit)
	defer limit.Stop()
	select {
	case r := <-done:
		return r
	case <-limit.C:
		return Result{Hung: true}
	}
}

func run(s *sim.Scenario, o Options) Result {
	mock := clock.NewMock()
	mock.Set(sim.Epoch)
	c := realtime.Clock{C: mock}
	log := session.NewLog(session.Header{ID: "scenario-" + s.Name, CreatedAt: sim.Epoch.UnixMilli()}, c)
	var random loop.Random = &cycle{samples: s.Random}
	if s.Seed != nil {
		random = &lockedRandom{r: sim.Stream(*s.Seed, "jitter")}
	}
	if len(s.Random) == 0 && s.Seed == nil {
		random = &cycle{samples: []float64{0.5}}
	}
	m := &model{s: s, clock: c}
	idGen := &ids{}
	routes := map[string]*loop.Route{s.Provider: {RetryPolicy: s.RetryPolicy, ContextWindow: s.ContextWindow}}
	d := realtime.New(log, loop.Config{Target: loop.Target{Provider: s.Provider, Model: s.Model}, Routes: routes,
		Settle: o.Sim.Settle, Attempts: o.Sim.Attempts},
		loop.Ports{Model: m, Clock: c, Random: random, IDs: idGen, Tools: tools{s: s, clock: c}})
	w := newWorld(s, d, mock, idGen)
	d.Do(func(a *loop.Agent) {
		install(a, s, o.Sim, d.Summarizer(&summarizer{s: s, clock: c}), m)
		a.OnAppend(w.observe)
	})

	// The clock goroutine: move the mock clock until the run is over.
	stopClock := make(chan struct{})
	var clockDone sync.WaitGroup
	clockDone.Add(1)
	go func() {
		defer clockDone.Done()
		for {
			select {
			case <-stopClock:
				return
			default:
				mock.Add(o.Step)
			}
		}
	}()
	// The world goroutine applies timed inputs and actions as the clock
	// reaches them, and event-triggered ones when their event is appended.
	timedDone := w.start()
	horizon := sim.Epoch.Add(w.lastTimed + o.Horizon)
	idle := make(chan struct{})
	go func() {
		<-timedDone
		d.Wait()
		close(idle)
	}()
	bound := mock.Timer(max(0, horizon.Sub(mock.Now())))
	bounded := false
	select {
	case <-idle:
	case <-bound.C:
		// A sleep nothing ends: dispose the agent so that its goroutine
		// returns (this writes the disposal into the log).
		bounded = true
		d.Do(func(a *loop.Agent) { a.Dispose() })
	}
	bound.Stop()
	unapplied := w.stop()
	close(stopClock)
	clockDone.Wait()
	d.Wait()

	var events []session.Event
	d.Do(func(a *loop.Agent) { events = slices.Clone(a.Log().Events()) })
	derive := o.Sim.View()
	return Result{Events: events, Violations: oracle.Check(events, oracle.Options{Strict: true, Derive: derive}), Unapplied: unapplied, Bounded: bounded}
}

// install installs the scenario's listeners, outermost first, as the
// world does.
func install(a *loop.Agent, s *sim.Scenario, opts sim.Options, z compact.Summarizer, m *model) {
	if slices.ContainsFunc(s.Requests, func(o sim.Outcome) bool { return o.ListenerThrows }) {
		a.AddRequestErrorListener(sim.ListenerThrowOnCue, func(_ *loop.RequestError, next loop.Next) (loop.Action, error) {
			if m.throwing() {
				return loop.NoAction, errThrew
			}
			return next()
		})
	}
	for _, name := range s.ListenerOrder {
		if p, ok := plugged(opts.Listeners, name); ok {
			env := sim.Env{Agent: a, Clock: a.Clock(), IDs: a.IDs(), Random: a.Random(), Log: a.Log(), Policy: s.RetryPolicy,
				Compaction: s.Compaction, Summarizer: z}
			if l := p.New(env); l != nil {
				a.AddRequestErrorListener(sim.AgentName(name), l)
			}
			continue
		}
		switch name {
		case sim.ListenerRetry:
			retry.Install(a)
		case sim.ListenerCompaction:
			if s.Compaction != nil {
				compact.Install(a, *s.Compaction, z)
			}
		case sim.ListenerThrow:
			a.AddRequestErrorListener(name, func(*loop.RequestError, loop.Next) (loop.Action, error) { return loop.NoAction, errThrew })
		case sim.ListenerAlwaysRetry:
			a.AddRequestErrorListener(name, func(*loop.RequestError, loop.Next) (loop.Action, error) { return loop.Retry, nil })
		case sim.ListenerCancelThenNext:
			a.AddRequestErrorListener(name, func(_ *loop.RequestError, next loop.Next) (loop.Action, error) {
				a.Cancel(session.Cause{Kind: session.CauseUser}, false)
				return next()
			})
		case sim.ListenerCancelThenRetry:
			a.AddRequestErrorListener(name, func(*loop.RequestError, loop.Next) (loop.Action, error) {
				a.Cancel(session.Cause{Kind: session.CauseUser}, false)
				return loop.Retry, nil
			})
		}
	}
}

// plugged is the plug-in of a listenerOrder name.
func plugged(ls []sim.Listener, name string) (sim.Listener, bool) {
	for _, l := range ls {
		if l.Name == name {
			return l, true
		}
	}
	return sim.Listener{}, false
}
