package faults

import (
	"math/rand"
	randv2 "math/rand/v2"

	"github.com/turnsim/turnsim/internal/arena"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// Drawing is the memory one worker's plans are drawn in, plan after plan
// (DrawIn): the streams, the configuration and the scenario, and what
// they point to. A plan is a few dozen values (its answers, failures,
// inputs, actions), each of which was an allocation a seed.
//
// The zero value is ready to use. A plan drawn in a Drawing is read until
// the Drawing's next draw; a plan that must outlive that (a failing
// seed's, kept for its report) is left in its Drawing, and the worker goes
// on with a new one.
type Drawing struct {
	streams [drawnStreams]randStream
	plan    *drawnPlan
	// The slices of the configuration.
	order, kinds, codes []string
	enabled             []string
	// The scenario's slices, and what its answers point to.
	requests  []sim.Outcome
	inputs    []sim.Input
	world     []sim.Action
	outages   []sim.Outage
	calls     arena.Slices[sim.ToolCallSpec]
	failures  arena.Arena[session.LlmFailure]
	statuses  arena.Arena[int]
	afters    arena.Arena[float64]
	lateTexts map[lateKey]string
}

// drawnPlan is the configuration, the scenario and the values they point
// to. It is behind a pointer, so that a Drawing set to a new one
// (Drawing{}) leaves a kept plan as it is.
type drawnPlan struct {
	config              Config
	scenario            sim.Scenario
	seed                uint64
	policy              loop.RetryPolicy
	compaction, planned compact.Config
	pruner              compact.PrunerConfig
}

// The streams a plan draws from, in a Drawing's memory.
const (
	configStream = iota
	workloadStream
	faultsStream
	worldStream
	drawnStreams
)

// lateKey is a late input's text's kind and number.
type lateKey struct {
	kind string
	n    int
}

// reset empties the Drawing for the next plan: what the last one pointed
// to is cleared, so that it keeps nothing alive.
func (d *Drawing) reset() {
	if d.plan == nil {
		d.plan = &drawnPlan{}
	}
	d.failures.Reset()
	d.statuses.Reset()
	d.afters.Reset()
	d.calls.Reset()
}

// stream is the named stream k of seed, in the Drawing.
func (d *Drawing) stream(k int, seed uint64, name string) *randStream {
	s := &d.streams[k]
	seedStream(s, seed, name)
	return s
}

// newConfig is the plan's configuration, zeroed.
func (d *Drawing) newConfig() *Config {
	d.plan.config = Config{}
	return &d.plan.config
}

// newScenario is the plan's scenario, zeroed.
func (d *Drawing) newScenario() *sim.Scenario {
	d.plan.scenario = sim.Scenario{}
	return &d.plan.scenario
}

// seedOf is a pointer to the plan's jitter seed.
func (d *Drawing) seedOf(seed uint64) *uint64 {
	d.plan.seed = seed
	return &d.plan.seed
}

// newPolicy is a zeroed retry policy of the plan.
func (d *Drawing) newPolicy() *loop.RetryPolicy {
	d.plan.policy = loop.RetryPolicy{}
	return &d.plan.policy
}

// plannedCompaction is the scenario's copy of the configuration's
// compaction (its pruner the configuration's, read only).
func (d *Drawing) plannedCompaction(cfg compact.Config) *compact.Config {
	d.plan.planned = cfg
	return &d.plan.planned
}

// drawnCompaction is the configuration's compaction, its pruner in the
// Drawing too.
func (d *Drawing) drawnCompaction(cfg compact.Config) *compact.Config {
	p := d.plan
	if cfg.Pruner != nil {
		p.pruner = *cfg.Pruner
		cfg.Pruner = &p.pruner
	}
	p.compaction = cfg
	return &p.compaction
}

// room is an empty slice with room for n from *kept, which takes the
// slice back (keep) once the plan is drawn.
func room[T any](kept *[]T, n int) []T {
	if cap(*kept) < n {
		return make([]T, 0, n)
	}
	return (*kept)[:0]
}

// keep takes a plan's slice back for the next plan, when it has room.
func keep[T any](kept *[]T, s []T) {
	if cap(s) > cap(*kept) {
		*kept = s
	}
}

// appendTo appends v to *s, from the Drawing's room the first time: a
// slice of nothing stays nil, as a corpus entry writes it.
func appendTo[T any](kept *[]T, s *[]T, v T) {
	if *s == nil {
		*s = (*kept)[:0]
	}
	*s = append(*s, v)
}

// toolCall is one tool call's spec as a slice of one, in the Drawing.
func (d *Drawing) toolCall(spec sim.ToolCallSpec) []sim.ToolCallSpec {
	return append(d.calls.Room(1, 64), spec)
}

// newFailure is a zeroed failure of the plan.
func (d *Drawing) newFailure() *session.LlmFailure {
	return d.failures.New()
}

// status is a pointer to an HTTP status of the plan.
func (d *Drawing) status(s int) *int {
	return d.statuses.Put(&s)
}

// retryAfter is a pointer to a retry-after of the plan.
func (d *Drawing) retryAfter(ms float64) *float64 {
	return d.afters.Put(&ms)
}

// lateText is LateText, made once for the worker's plans.
func (d *Drawing) lateText(kind string, n int) string {
	k := lateKey{kind, n}
	if text, ok := d.lateTexts[k]; ok {
		return text
	}
	text := LateText(kind, n)
	if len(d.lateTexts) < maxLateTexts {
		if d.lateTexts == nil {
			d.lateTexts = map[lateKey]string{}
		}
		d.lateTexts[k] = text
	}
	return text
}

// maxLateTexts bounds the late texts a Drawing keeps: a plan's inputs
// number a handful.
const maxLateTexts = 256

// seedStream makes *s the named stream of seed.
func seedStream(s *randStream, seed uint64, name string) {
	s.pcg = *randv2.NewPCG(seed, sim.StreamHash(name))
	s.rng = *rand.New(pcgSource{&s.pcg})
	s.Rng = &s.rng
}
