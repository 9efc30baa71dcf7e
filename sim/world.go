package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/turnsim/turnsim/internal/arena"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
)

// AppliedAction is a world action or input as it was applied: before the
// event with seq Seq, at virtual time TimeMs.
type AppliedAction struct {
	Seq    int64   `json:"seq"`
	TimeMs float64 `json:"timeMs"`
	What   string  `json:"what"`
	// Order places it among the run facts' requests and waterfalls.
	Order int64 `json:"-"`
	// Input is 1 + the index in Scenario.Inputs of the input it applied;
	// 0 for a world action.
	Input int `json:"-"`
	// World is 1 + the index in Scenario.World of the world action it
	// applied; 0 for an input.
	World int `json:"-"`
}

// Result is everything a run produced: data, never printed here.
type Result struct {
	Header   session.Header
	Events   []session.Event
	Actions  []AppliedAction
	Requests []RequestRecord
	// Summaries counts summarizer calls.
	Summaries int
	Statuses  []loop.Status
	Warnings  []string
	// Stopped says why the world stopped the run early (a bound, a sleep
	// nothing could end, a plug-in that blocked outside virtual time);
	// empty when the agent went idle.
	Stopped string
	// Blocked names the plug-in that blocked outside virtual time, when
	// one did: the run would never have ended, and running it again
	// blocks again (guard.go).
	Blocked string
	// Facts are what the run knows beyond its log, for the oracle.
	Facts oracle.Facts
	// Unfired are the scenario fields (inputs[i], world[i]) whose trigger
	// never fired.
	Unfired []string
	// Disposed and RetryDisposed say how the run left the agent and
	// llm-retry's executor: state the log does not show (a disposal logs
	// what a cancel with cause "disposed" logs), for explore.
	Disposed, RetryDisposed bool
	// System names the system under test that made the run ("" for the
	// model); Model is the model's run of the same plan beside it, and
	// Difference the (-dsh +model) diff of the two runs' recovery
	// skeletons, empty when they agree, when both ran (--sut both).
	System     string
	Model      *Result
	Difference string
	// Findings name the recorded findings about the system under test
	// that this run reproduced (judge.Check fills them in): the
	// violations they explain are not among the run's.
	Findings []string
	// ViewFindings are the recorded findings about a view checker's code
	// (Options.ViewCheck: DSH's own view) that this run's logs show, and
	// ViewChecked says the logs were derived by it (judge.Check fills
	// both in).
	ViewFindings []oracle.Finding
	ViewChecked  bool
	// Refused says why the system under test could not enact the
	// scenario at all (a field it has no counterpart for): no run was
	// made, and nothing else here is filled in.
	Refused string
}

// System is a system under test other than turnsim's model: DSH's own
// loop (package dshloop), or the model and DSH side by side. It runs a
// scenario and returns the run as the model's world does, its log and the
// facts the oracle needs; the engine (draw, check, shrink, corpus, report)
// does not know which ran. A scenario it cannot enact is a Result with
// Refused saying which field, never a silently different run.
type System interface {
	Name() string
	Run(s *Scenario, opts Options) *Result
}

// A ViewChecker derives a run's log with Web view code other than
// turnsim's (DSH's own, package dshview) and holds it to turnsim's view
// and to the rendering invariants. It judges logs, not runs: the engine
// hands it each log a run wrote (the model's too, beside another system).
type ViewChecker interface {
	// Name names the view's code in corpus entries ("dsh").
	Name() string
	// CheckView returns the violations of the log's derivation (a
	// difference from turnsim's view, a rendering invariant no recorded
	// finding explains) and the recorded findings about the view's code
	// that it shows.
	CheckView(events []session.Event) ([]oracle.Violation, []oracle.Finding)
}

// World runs one scenario.
type World struct {
	scenario  *Scenario
	clock     Clock
	ids       counterIDs
	agent     *loop.Agent
	executor  *retry.Executor
	requests  []RequestRecord
	summaries int
	actions   []AppliedAction
	statuses  []loop.Status
	warnings  []string
	counts    map[string]int
	triggered []triggered
	// order numbers facts (nextOrder).
	order    int64
	inCommit []actionRef // actions waiting for the end of a commit
	// landing are the actions due after the events being landed, a frame
	// an event, outermost first (land, yield).
	landing [][]actionRef
	// answeringThrows: the latest request's scripted outcome (the one
	// whose failure the request-error waterfall is handling) has
	// listenerThrows.
	answeringThrows bool
	retryDisposed   bool
	facts           oracle.Facts
	// mem is the worker's storage the run reuses, or nil (RunIn).
	mem *Storage
	// room is where the scripted model makes its chunks, in the storage's
	// run of them or in chunks.
	room   chunkRoom
	chunks arena.Slices[session.StreamChunk]
	// The ports the world plays, in the world's own memory.
	model   scriptedModel
	tools   scriptedTools
	samples cycle
	// watch is the plug-ins' watchdog's view of the run, nil when no
	// watchdog runs; abandoned says the watchdog gave up on the run
	// (guard.go).
	watch     *watch
	abandoned atomic.Bool
}

// triggered is an action placed after the nth append of an event type.
type triggered struct {
	Trigger
	act  actionRef
	done bool
}

// actionRef is a world action or input of the scenario: the world's
// queue and triggers hold it as a value, and World.apply applies it.
type actionRef struct {
	// input is 1 + the index in Scenario.Inputs, world 1 + the index in
	// Scenario.World; one of them is 0.
	input, world int
}

// field is the scenario field of the action, for the warning when it
// never fired.
func (r actionRef) field() string {
	if r.input > 0 {
		return fmt.Sprintf("inputs[%d]", r.input-1)
	}
	return fmt.Sprintf("world[%d]", r.world-1)
}

// apply applies the action r names.
func (w *World) apply(r actionRef) {
	if r.input > 0 {
		w.applyInput(r.input-1, &w.scenario.Inputs[r.input-1])
		return
	}
	w.applyWorld(r.world-1, &w.scenario.World[r.world-1])
}

// bounded stops a run that exceeded its event bound.
type bounded struct{ events int }

// Options change how a world is built, for variants of the system under
// test (the mutant zoo) and listeners of one's own.
type Options struct {
	// Listeners are plugged into the waterfall where the scenario's
	// listenerOrder names them; one with a built-in's name replaces it.
	Listeners []Listener
	// Settle replaces the loop's rule after the request-error waterfall
	// (loop.Config.Settle): a loop variant.
	Settle loop.SettleRule
	// Attempts replaces the step's attempt path (loop.Config.Attempts).
	Attempts loop.AttemptPath
	// Derive is the Web view under test; nil means view.Derive.
	Derive func([]session.Event) view.Nodes
	// BlockedAfter is how long in real time a plug-in's call may take
	// before the run is stopped as blocked outside virtual time (0:
	// DefaultBlockedAfter; below 0: no watchdog, the calls run on the
	// world's goroutine, for a listener stopped in a debugger).
	BlockedAfter time.Duration
	// Disposal is the model's rule for a disposal (loop.DisposalSPEC by
	// default); beside DSH 0.1.0-rc.8's loop it runs rc.8's.
	Disposal loop.DisposalRule
	// System, when set, is the system under test in the model's place
	// (--sut dsh, --sut both); nil is the model.
	System System
	// ViewCheck, when set, also derives every log of a run with another
	// Web view's code (--dsh-view: DSH's own).
	ViewCheck ViewChecker
}

// SystemName names the system under test the options run: "" for the
// model.
func (o Options) SystemName() string {
	if o.System == nil {
		return ""
	}
	return o.System.Name()
}

// ViewName names the view checker the options derive every log with
// ("" for none).
func (o Options) ViewName() string {
	if o.ViewCheck == nil {
		return ""
	}
	return o.ViewCheck.Name()
}

// View is the Web view under test.
func (o Options) View() func([]session.Event) view.Nodes {
	if o.Derive != nil {
		return o.Derive
	}
	return view.Derive
}

// Oracle is how a run of this system under test is checked: strictly,
// with the run's facts, against its view (nil: the default view, which
// the oracle derives its own way).
func (o Options) Oracle(res *Result) oracle.Options {
	return oracle.Options{Strict: true, Facts: &res.Facts, Derive: o.Derive}
}

// Run runs a scenario to the end: every input and world action applied and
// the agent idle, or a bound reached.
func Run(s *Scenario) *Result { return RunWith(s, Options{}) }

// RunWith is Run with options. A run with listeners of one's own plugged
// in runs under the watchdog (guard.go).
func RunWith(s *Scenario, opts Options) *Result { return RunIn(nil, s, opts) }

// RunIn is RunWith in a worker's storage (nil: memory of the run's own):
// the run reuses the memory of the last run in st, whose result must no
// longer be read. A run the watchdog supervises, or of another system,
// uses memory of its own: an abandoned run could still be writing.
func RunIn(st *Storage, s *Scenario, opts Options) *Result {
	if sys := opts.System; sys != nil {
		opts.System = nil // the system runs the model itself where it needs to
		return sys.Run(s, opts)
	}
	if opts.BlockedAfter >= 0 && slices.ContainsFunc(s.ListenerOrder, func(name string) bool { _, ok := find(opts.Listeners, name); return ok }) {
		return newWorld(s).supervise(opts, cmp.Or(opts.BlockedAfter, DefaultBlockedAfter))
	}
	if st == nil {
		return newWorld(s).run(opts)
	}
	return st.newWorld(s).run(opts)
}

// newWorld is a world to run s in memory of its own.
func newWorld(s *Scenario) *World {
	w := &World{}
	w.reset(s)
	return w
}

// reset makes w a new world for s.
func (w *World) reset(s *Scenario) {
	*w = World{scenario: s, facts: oracle.Facts{MaxOverflowRetries: -1, IdleAfterDisposal: -1}}
}

// run runs the world on the calling goroutine.
func (w *World) run(opts Options) (res *Result) {
	s := w.scenario
	if s.Compaction != nil {
		w.facts.MaxOverflowRetries = s.Compaction.MaxOverflowRetries
	}
	header := session.Header{ID: "scenario-" + s.Name, CreatedAt: Epoch.UnixMilli()}
	var log *session.Log
	hooks := w.mem.hooksOf(w)
	res = w.mem.result()
	if m := w.mem; m != nil {
		log = session.NewLogIn(&m.log, header, &w.clock)
		// Made as a run in memory of its own makes them (never nil), the
		// first time.
		w.facts.TimeNs, w.facts.Requests, w.facts.Decisions = roomOf(m.timeNs, 64), roomOf(m.facts, 8), roomOf(m.decisions, 8)
		w.requests = roomOf(m.requests, 8)
		m.chunks.Reset()
		w.room.run = &m.chunks
		w.ids.names, w.room.names = &m.names, &m.names
		w.counts = arena.Fresh(&m.counts)
		m.streams.Reset()
		w.room.streams = &m.streams
		w.clock.queue, w.actions = m.queue[:0], m.actions[:0]
		w.facts.Waterfalls = m.waterfalls[:0]
		w.facts.Budgets = roomOf(m.budgets, len(s.ListenerOrder)+1)
		w.facts.Inputs, w.statuses, w.triggered, w.ids.counts = m.inputs[:0], m.statuses[:0], m.triggered[:0], m.ids[:0]
		defer m.keep(w)
	} else {
		log = session.NewLog(header, &w.clock)
		log.Grow(64) // most runs fit
		w.facts.TimeNs = make([]int64, 0, 64)
		// Room for a typical run's facts at once.
		w.facts.Requests = make([]oracle.Request, 0, 8)
		w.facts.Decisions = make([]oracle.Decision, 0, 8)
		w.requests = make([]RequestRecord, 0, 8)
		w.counts = map[string]int{}
		w.room.run = &w.chunks
	}
	w.room.log = log
	var routes map[string]*loop.Route
	if !s.NoAdapter {
		routes = w.mem.routes(s.Provider, loop.Route{RetryPolicy: s.RetryPolicy, ContextWindow: s.ContextWindow})
	}
	w.model, w.tools = scriptedModel{w: w}, scriptedTools{w: w}
	w.samples = cycle{samples: s.Random}
	var random loop.Random = &w.samples
	if s.Seed != nil {
		random = w.mem.jitter(*s.Seed)
	}
	w.agent = loop.New(log, loop.Config{Target: loop.Target{Provider: s.Provider, Model: s.Model}, Routes: routes, Settle: opts.Settle, Attempts: opts.Attempts,
		RuntimeContext: s.RuntimeContext, Disposal: opts.Disposal, Yield: hooks.yield, Memory: w.mem.agentMemory()},
		loop.Ports{Model: &w.model, Clock: &w.clock, Random: random, IDs: &w.ids, Tools: &w.tools})
	// From here on a panic is the system under test's: a plug-in's
	// constructor runs next.
	returned := false
	defer func() {
		if w.abandoned.Load() {
			return // the watchdog gave up on this run and made its result
		}
		var st string
		if !returned {
			st = stack() // before recover: the frames that panicked are still on it
		}
		switch r := recover(); r := r.(type) {
		case nil:
			if !returned {
				// runtime.Goexit, which only code of one's own calls (a
				// listener's t.FailNow): the run's goroutine is ending,
				// and hands its result over here.
				res.Facts.Panic = "a listener ended its goroutine (runtime.Goexit: t.FailNow and t.Fatal, which must not be called from a listener, do)\n" + st
				if w.watch != nil {
					defer func() {
						w.watch.exited = true
						w.watch.done <- res
					}()
				}
			}
		case stalled:
			res.Stopped = fmt.Sprintf("stalled at %v ms: a sleep without deadline, and no world action left to end it", ms(r.at))
		case bounded:
			res.Stopped = fmt.Sprintf("stopped at the bound of %d events", r.events)
		default:
			// A panic of the system under test is a finding, not a
			// crash of turnsim; its stack without what differs run to
			// run, since a corpus entry keeps the message.
			res.Facts.Panic = fmt.Sprintf("%v\n%s", r, st)
		}
		w.result(res)
	}()
	w.agent.OnDecision(hooks.decided)
	w.clock.sleeper = w
	if w.mem == nil {
		w.facts.Budgets = make([]oracle.Budget, 0, len(s.ListenerOrder)+1)
	}
	if slices.ContainsFunc(s.Requests, func(o Outcome) bool { return o.ListenerThrows }) {
		// Outermost, so that it throws before any listener decides.
		w.agent.AddRequestErrorListener(ListenerThrowOnCue, hooks.throwOnCue)
	}
	for _, name := range s.ListenerOrder {
		if p, ok := find(opts.Listeners, name); ok {
			w.plug(p, random)
			continue
		}
		w.facts.Budgets = append(w.facts.Budgets, w.builtInBudget(name))
		switch name {
		case ListenerRetry:
			w.executor = retry.InstallIn(w.mem.executor(), w.agent)
			w.executor.Warn = hooks.warn
		case ListenerCompaction:
			if s.Compaction != nil {
				c := compact.InstallIn(w.mem.compactor(), w.agent, *s.Compaction, w.mem.summarizer(w))
				c.Warn = hooks.warn
			}
		default:
			if l := w.testListener(name); l != nil {
				w.agent.AddRequestErrorListener(name, l)
			} else {
				w.warn(fmt.Sprintf("listener %q is not installed: nothing of that name is plugged in", name))
			}
		}
	}
	w.agent.OnAppend(hooks.observe)
	w.agent.OnStatus(hooks.status)
	w.clock.actor = w
	for i := range s.Inputs {
		w.place(s.Inputs[i].Trigger, actionRef{input: i + 1})
	}
	for i := range s.World {
		w.place(s.World[i].Trigger, actionRef{world: i + 1})
	}
	for w.clock.Pending() > 0 {
		w.clock.runNext()
	}
	returned = true
	return res
}

// result fills in what a run produced, from the world as it is: at its
// end, or where the watchdog gave up on it.
func (w *World) result(res *Result) {
	for _, t := range w.triggered {
		if !t.done {
			what := t.act.field()
			w.warn(fmt.Sprintf("%s never ran: no %s event number %d was appended", what, t.After, t.Nth))
			res.Unfired = append(res.Unfired, what)
		}
	}
	log := w.agent.Log()
	res.Header, res.Events = log.Header(), log.Events()
	res.Actions, res.Requests, res.Summaries = w.actions, w.requests, w.summaries
	res.Statuses, res.Warnings = w.statuses, w.warnings
	res.Disposed, res.RetryDisposed = w.agent.Disposed(), w.retryDisposed
	panicked := res.Facts.Panic
	res.Facts = w.facts
	if len(res.Actions) == 0 {
		res.Actions = nil // none, as in a run in memory of its own
	}
	// None, as in a run in memory of its own (not the storage's empty
	// room).
	if len(res.Facts.Waterfalls) == 0 {
		res.Facts.Waterfalls = nil
	}
	if len(res.Facts.Inputs) == 0 {
		res.Facts.Inputs = nil
	}
	if len(res.Statuses) == 0 {
		res.Statuses = nil
	}
	res.Facts.Panic, res.Facts.Stopped = panicked, res.Stopped
}

func (w *World) warn(msg string) { w.warnings = append(w.warnings, msg) }

// status records a status change.
func (w *World) status(st loop.Status) {
	w.statuses = append(w.statuses, st)
	if st == loop.StatusIdle && w.agent.Disposed() && w.facts.IdleAfterDisposal < 0 {
		w.facts.IdleAfterDisposal = int64(w.agent.Log().Len())
	}
}

// place schedules an action at its virtual time or after its event.
func (w *World) place(t Trigger, act actionRef) {
	if t.After != "" {
		w.triggered = append(w.triggered, triggered{Trigger: t, act: act})
		return
	}
	w.clock.at(duration(t.AtMs), act)
}

// observe is the choice point after every append: count the event, apply
// the actions placed after it, enforce the bound. A compaction summary and
// its checkpoint, and a prune and its replacing result, are one commit in
// DSH (docs/dsh.md#overflow-compaction): actions placed after the first
// wait for the second.
func (w *World) observe(e *session.Event) {
	w.facts.TimeNs = append(w.facts.TimeNs, int64(w.clock.Elapsed()))
	if int(e.Seq)+1 > w.scenario.MaxEvents {
		panic(bounded{events: w.scenario.MaxEvents})
	}
	w.counts[e.Type()]++
	var due []actionRef
	for i := range w.triggered {
		t := &w.triggered[i]
		if !t.done && t.After == e.Type() && t.Nth == w.counts[e.Type()] {
			t.done = true
			if t.PlusMs > 0 {
				w.clock.at(w.clock.Elapsed()+duration(t.PlusMs), t.act)
				continue
			}
			due = append(due, t.act)
		}
	}
	switch e.Data.(type) {
	case *session.CompactionSummary, *session.CompactionPrune:
		w.inCommit = append(w.inCommit, due...)
		return
	}
	due = append(w.inCommit, due...)
	w.inCommit = nil
	w.land(due)
}

// land applies the actions due after an event, one after the other; what
// an action's own appends make due lands inside it, at those appends.
func (w *World) land(due []actionRef) {
	if len(due) == 0 {
		return
	}
	w.landing = append(w.landing, due)
	k := len(w.landing) - 1
	w.drain(k)
	w.landing = w.landing[:k]
}

// drain applies frame k's actions in order, each taken off before it runs
// (an action may yield, which drains what is left).
func (w *World) drain(k int) {
	for len(w.landing[k]) > 0 {
		next := w.landing[k][0]
		w.landing[k] = w.landing[k][1:]
		w.apply(next)
	}
}

// yield is an await of the loop's (docs/dsh.md#turns: the system prompt's
// assembly after a step's claim): what is due after an event and waits
// behind an action still running lands now. In DSH an input whose send
// starts the driver returns to its caller at the driver's first await,
// and the next action due lands there, inside the turn it opened; here
// the driver runs on, so it lands at that await (found by --sut both).
func (w *World) yield() {
	for k := len(w.landing) - 1; k >= 0 && k < len(w.landing); k-- {
		w.drain(k)
	}
}

func (w *World) record(what string) {
	w.actions = append(w.actions, AppliedAction{Seq: int64(w.agent.Log().Len()), TimeMs: ms(w.clock.Elapsed()), What: what, Order: w.nextOrder()})
}

// applyInput applies the scenario's input i.
func (w *World) applyInput(i int, in *Input) {
	w.record(w.ids.names.of(nameKey{kind: in.Kind, text: in.Text}, in.What))
	w.actions[len(w.actions)-1].Input = i + 1
	m := session.UserMessage{Content: textContent(w.agent.Log(), in.Text), Source: session.Source{Kind: "user"}, Role: "user", ID: w.ids.NewID(loop.IDMessage)}
	var err error
	switch in.Kind {
	case "send", "followup":
		err = w.agent.Followup(m)
	case "steer":
		err = w.agent.Steer(m)
	case "inject":
		err = w.agent.Inject(m)
	}
	w.facts.Inputs = append(w.facts.Inputs, oracle.Input{ID: m.ID, Refused: err != nil})
	if err != nil {
		w.warn(fmt.Sprintf("%s %q refused: %v", in.Kind, in.Text, err))
	}
}

// applyWorld applies the scenario's world action i.
func (w *World) applyWorld(i int, a *Action) {
	defer func(n int) {
		if n < len(w.actions) {
			w.actions[n].World = i + 1
		}
	}(len(w.actions))
	switch a.Do {
	case "cancel":
		w.record(w.actionName(a))
		w.fact("cancel", a.Cause.Kind)
		w.agent.Cancel(a.Cause, a.KeepInbox)
	case "dispose":
		w.record(a.What())
		w.fact("dispose", session.CauseDisposed)
		w.agent.Dispose()
	case "observe":
		w.record(a.What())
	case "dispose-retry":
		w.record(a.What())
		if w.executor != nil {
			w.executor.Dispose()
			w.retryDisposed = true
		}
	}
}

// actionName is a's What, made once for the worker's runs: a cancel's name
// is put together from its cause.
func (w *World) actionName(a *Action) string {
	if a.Cause.Reason != "" {
		return a.What() // a scenario's own reason: not one a worker's runs repeat
	}
	keep := 0
	if a.KeepInbox {
		keep = 1
	}
	// The kind is no id's kind (those come from NewID) nor an input's.
	return w.ids.names.of(nameKey{kind: "\x00cancel", text: a.Cause.Kind, n: keep}, a.What)
}

// nextOrder numbers the facts that seqs cannot order.
func (w *World) nextOrder() int64 {
	w.order++
	return w.order
}

// fact records a cancel or disposal for the oracle; it counts only while a
// turn is open (a cancel between turns takes effect on no turn).
func (w *World) fact(kind, cause string) {
	if w.agent.OpenTurn() != 0 {
		w.facts.Actions = append(w.facts.Actions, oracle.Action{Seq: int64(w.agent.Log().Len()), Order: w.nextOrder(),
			TimeNs: int64(w.clock.Elapsed()), Turn: w.agent.OpenTurn(), Kind: kind, Cause: cause})
	}
}

// decided records each listener's own answer: a retry counts as the
// listener's only when it did not pass on a retry its next() returned.
func (w *World) decided(d *loop.Decision) {
	seq := int64(w.agent.Log().Len())
	w.facts.Decisions = append(w.facts.Decisions, oracle.Decision{Seq: seq, Turn: d.Event.Turn, Step: d.Event.Step, Listener: d.Listener,
		Retry: d.Action == loop.Retry && d.Err == nil && !d.PassedOn, Threw: d.Err != nil})
	if d.Outermost {
		// The outermost listener's answer is the waterfall's.
		w.facts.Waterfalls = append(w.facts.Waterfalls, oracle.Waterfall{Seq: seq, Order: w.nextOrder(),
			Retry: d.Action == loop.Retry && d.Err == nil, Threw: d.Err != nil})
	}
}

// toolSpec is the scripted call behind a tool call id.
func (w *World) toolSpec(id string) ToolCallSpec {
	// The id names its request and call (toolCallID): read them back
	// rather than format every id of the scenario to compare.
	if rest, ok := strings.CutPrefix(id, "call-"); ok {
		if rs, ks, ok := strings.Cut(rest, "-"); ok {
			r, err1 := strconv.Atoi(rs)
			k, err2 := strconv.Atoi(ks)
			if err1 == nil && err2 == nil && r >= 1 && r <= len(w.scenario.Requests) &&
				k >= 1 && k <= len(w.scenario.Requests[r-1].ToolCalls) && strconv.Itoa(r) == rs && strconv.Itoa(k) == ks {
				return w.scenario.Requests[r-1].ToolCalls[k-1]
			}
		}
	}
	return ToolCallSpec{Result: "ok"}
}

// What is how an input is named where it landed, in a run's actions and
// on its timeline.
func (in Input) What() string { return fmt.Sprintf("%s %q", in.Kind, shorten(in.Text)) }

// What is how a world action is named where it landed.
func (a Action) What() string {
	switch a.Do {
	case "cancel":
		what := "cancel " + a.Cause.Kind
		if a.Cause.Reason != "" {
			what += fmt.Sprintf(" (%s)", a.Cause.Reason)
		}
		if a.KeepInbox {
			what += " keepInbox"
		}
		return what
	case "dispose-retry":
		return "dispose llm-retry"
	}
	return a.Do
}

// shorten keeps a message readable on one timeline line.
func shorten(s string) string {
	runes, cut := 0, 0
	for i := range s { // reads at most 41 runes
		if runes == 37 {
			cut = i
		}
		if runes++; runes > 40 {
			return s[:cut] + "..."
		}
	}
	return s
}

func textContent(log *session.Log, text string) []byte {
	const head, tail = `[{"type":"text","text":`, `}]`
	b := log.Room(len(head) + session.QuotedLen(text) + len(tail))
	return append(session.AppendString(append(b, head...), text), tail...)
}
