package faults

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/sim"
)

// Config is everything a seed decides before the plan: printed in full,
// seed first.
type Config struct {
	Seed uint64
	// PolicyName says where the policy came from: dsh-default, normal,
	// always, none, or pinned (--policy).
	PolicyName string
	// Recovery is the route's: the policy (nil: none), compaction-basic
	// (nil: not installed) and the listeners' order.
	sim.Recovery
	// Kinds are the enabled fault kinds; FaultRate the chance that a
	// request fails; ActionRate scales world actions.
	Kinds      []string
	FaultRate  float64
	ActionRate float64
	// Workload: turns, tool steps per turn, the size of tool results.
	Turns       int
	ToolSteps   int
	ResultChars int
	// StreamIdleTimeoutMs is the adapter's idle watchdog.
	StreamIdleTimeoutMs float64
}

// Overrides pin parts of the draw: a policy (--policy) and the kinds a
// run may use (--faults).
type Overrides struct {
	Policy *loop.RetryPolicy
	Kinds  []string // nil: all kinds may be drawn
	// Listeners are plug-ins added to the waterfall (sim.Added of the
	// world's): the swarm draws their places and aims cancels at their
	// waits. DrawFor fills them in from the world's options.
	Listeners []sim.Listener
	// Points are the event types and choice points world actions are
	// aimed at (nil: the model's, eventTypes); a Planner system sets its
	// own.
	Points []string
}

func (c *Config) has(kind string) bool { return slices.Contains(c.Kinds, kind) }

// String is the configuration, seed first, one field a line.
func (c *Config) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed        %#x\n", c.Seed)
	if c.RetryPolicy != nil {
		fmt.Fprintf(&b, "policy      %s %s\n", c.PolicyName, strictjson.Printable(retry.Key(c.RetryPolicy)))
	} else {
		fmt.Fprintf(&b, "policy      none\n")
	}
	fmt.Fprintf(&b, "listeners   %s\n", strings.Join(c.ListenerOrder, ", "))
	if k := c.Compaction; k != nil {
		fmt.Fprintf(&b, "compaction  maxOverflowRetries %d, pruner %v\n", k.MaxOverflowRetries, k.Pruner != nil)
	} else {
		fmt.Fprintf(&b, "compaction  not installed\n")
	}
	kinds := strings.Join(c.Kinds, ", ")
	if kinds == "" {
		kinds = "none"
	}
	fmt.Fprintf(&b, "faults      %s\n", kinds)
	fmt.Fprintf(&b, "rates       requests %.2f, actions %.2f\n", c.FaultRate, c.ActionRate)
	fmt.Fprintf(&b, "workload    %d turns, %d tool steps each, tool results of %d chars, idle timeout %v ms\n",
		c.Turns, c.ToolSteps, c.ResultChars, c.StreamIdleTimeoutMs)
	return b.String()
}

// The configuration's generators, built once.
var (
	policyKindGen = weighted([]weightedGen{
		{Weight: 3, Gen: constant("dsh-default")}, {Weight: 4, Gen: constant("normal")},
		{Weight: 2, Gen: constant("always")}, {Weight: 1, Gen: constant("none")}})
	orderGen = weighted([]weightedGen{
		{Weight: 4, Gen: constant([]string{sim.ListenerRetry, sim.ListenerCompaction})},
		{Weight: 3, Gen: constant([]string{sim.ListenerCompaction, sim.ListenerRetry})}})
	overflowGen = weighted([]weightedGen{
		{Weight: 1, Gen: constant(-1)}, {Weight: 1, Gen: constant(0)}, {Weight: 4, Gen: constant(1)}, {Weight: 2, Gen: constant(2)}})
	fourthGen      = weighted([]weightedGen{{Weight: 1, Gen: constant(true)}, {Weight: 3, Gen: constant(false)}})
	tenthGen       = weighted([]weightedGen{{Weight: 1, Gen: constant(true)}, {Weight: 9, Gen: constant(false)}})
	fifthGen       = weighted([]weightedGen{{Weight: 1, Gen: constant(true)}, {Weight: 4, Gen: constant(false)}})
	faultRateGen   = newFloat64s(0.1, 0.7)
	actionRateGen  = newFloat64s(0.2, 1)
	turnsGen       = ints(1, 3)
	toolStepsGen   = ints(0, 2)
	resultCharsGen = ints(50, 3000)
	idleGen        = ints(200, 5000)
	initialGen     = oneConstOf(1, 10, 25, 100, 500)
	factorGen      = oneConstOf(1, 2, 4, 20)
	jitterGen      = oneConstOf(0.0, 0.1, 0.5, 1.0)
	maxRetriesGen  = ints(0, 6)
	maskGen        = newUint64s(0, math.MaxUint32)
)

var defaultCodes = []string{"EMPTY_RESPONSE", "RATE_LIMIT", "SERVER", "TIMEOUT", "TRANSPORT"}

// drawConfig draws the configuration from the "config" and "workload"
// streams.
func drawConfig(d *Drawing, seed uint64, o Overrides) *Config {
	rng := d.stream(configStream, seed, "config")
	c := d.newConfig()
	c.Seed = seed
	switch {
	case o.Policy != nil:
		c.PolicyName, c.RetryPolicy = "pinned", o.Policy
	default:
		switch draw[string](rng, policyKindGen) {
		case "dsh-default":
			p := d.newPolicy()
			*p = retry.DefaultPolicyValue()
			p.RetryableCodes = append(room(&d.codes, len(p.RetryableCodes)), p.RetryableCodes...)
			keep(&d.codes, p.RetryableCodes)
			c.PolicyName, c.RetryPolicy = "dsh-default", p
		case "normal":
			c.PolicyName, c.RetryPolicy = "normal", drawPolicy(d, rng, loop.ModeNormal)
		case "always":
			c.PolicyName, c.RetryPolicy = "always", drawPolicy(d, rng, loop.ModeAlways)
		default:
			c.PolicyName = "none"
		}
	}
	c.ListenerOrder = draw[[]string](rng, orderGen)
	// Both drawn whatever the first says: every later draw of the
	// stream stays where it was.
	overflowRetries, pruner := draw[int](rng, overflowGen), draw[bool](rng, coin)
	if overflowRetries >= 0 { // -1: compaction-basic not installed
		cfg := compact.DefaultConfig()
		cfg.MaxOverflowRetries = overflowRetries
		if pruner {
			cfg.Pruner = &compact.PrunerConfig{ThresholdChars: 2000, HeadChars: 500, TailChars: 250}
		}
		c.Compaction = d.drawnCompaction(cfg)
	}
	// Swarm: each kind is on with its own chance (one bit of a mask each);
	// a tenth of seeds has none.
	if !draw[bool](rng, tenthGen) {
		mask := uint32(maskGen.draw(rng))
		c.Kinds = room(&d.kinds, bits.OnesCount32(mask))
		for i, k := range Kinds {
			if mask&(1<<i) != 0 && (o.Kinds == nil || slices.Contains(o.Kinds, k)) {
				c.Kinds = append(c.Kinds, k)
			}
		}
		if len(c.Kinds) == 0 {
			c.Kinds = nil // none enabled, as a tenth of seeds have
		}
	}
	if c.RetryPolicy != nil && c.RetryPolicy.Mode == loop.ModeAlways {
		// Always mode retries an overflow that compaction declines until
		// cancelled (docs/dsh.md#listener-order): a history that stays too
		// large would be an endless turn by design, not a finding.
		c.Kinds = slices.DeleteFunc(c.Kinds, func(k string) bool { return k == NaturalOverflow })
	}
	if c.has(ListenerThrow) {
		at := ints(0, len(c.ListenerOrder)).drawInt(rng)
		order := room(&d.order, len(c.ListenerOrder)+1)
		c.ListenerOrder = slices.Insert(append(order, c.ListenerOrder...), at, sim.ListenerThrow)
		keep(&d.order, c.ListenerOrder)
	}
	c.FaultRate = faultRateGen.draw(rng)
	c.ActionRate = actionRateGen.draw(rng)
	w := d.stream(workloadStream, seed, "workload")
	c.Turns = turnsGen.drawInt(w)
	c.ToolSteps = toolStepsGen.drawInt(w)
	c.ResultChars = resultCharsGen.drawInt(w)
	c.StreamIdleTimeoutMs = float64(idleGen.drawInt(w))
	return c
}

// drawPolicy draws a policy of a mode with a random budget and backoff.
func drawPolicy(d *Drawing, rng *randStream, mode string) *loop.RetryPolicy {
	p := d.newPolicy()
	p.Mode = mode
	p.InitialDelayMs = float64(draw[int](rng, initialGen))
	p.MaxDelayMs = p.InitialDelayMs * float64(draw[int](rng, factorGen))
	p.JitterRatio = draw[float64](rng, jitterGen)
	if mode == loop.ModeNormal {
		p.MaxRetries = maxRetriesGen.drawInt(rng)
		codes := append(room(&d.codes, len(defaultCodes)+3), defaultCodes...)
		for _, extra := range []string{"CONTEXT_WINDOW_EXCEEDED", "STREAM_CLOSED", "AUTH"} {
			if draw[bool](rng, fifthGen) {
				codes = append(codes, extra)
			}
		}
		p.RetryableCodes = codes
		keep(&d.codes, codes)
	}
	return p
}
