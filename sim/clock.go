package sim

import (
	"context"
	"math"
	"time"
)

// Epoch is virtual time zero: 2026-01-01T00:00:00Z. Log times are epoch
// milliseconds from here.
var Epoch = time.UnixMilli(1767225600000).UTC()

// Forever is a sleep without deadline.
const Forever = time.Duration(math.MaxInt64)

// timed is a world action scheduled at a virtual time.
type timed struct {
	at    time.Duration
	order int // insertion order breaks ties
	act   actionRef
}

// Clock is the virtual clock: now, and a queue of timed world actions.
type Clock struct {
	now   time.Duration
	queue []timed // sorted by (at, order)
	added int
	// sleeper hears of every sleep as it begins (the world's choice point
	// of a listener's wait); an interface, not a func, so that setting it
	// allocates nothing.
	sleeper interface{ sleeping() }
	// actor applies the actions as they come due: the world, set once,
	// so that an action is a value in the queue, not a closure.
	actor interface{ apply(actionRef) }
}

// Now is the virtual time.
func (c *Clock) Now() time.Time { return Epoch.Add(c.now) }

// Elapsed is the virtual time since Epoch.
func (c *Clock) Elapsed() time.Duration { return c.now }

// at schedules the world action r at virtual time at (clamped to now);
// actions at the same time run in the order they were scheduled.
func (c *Clock) at(at time.Duration, r actionRef) {
	t := timed{at: max(at, c.now), order: c.added, act: r}
	c.added++
	i := len(c.queue)
	for i > 0 && (c.queue[i-1].at > t.at) {
		i--
	}
	c.queue = append(c.queue, timed{})
	copy(c.queue[i+1:], c.queue[i:])
	c.queue[i] = t
}

// Pending is the number of scheduled actions.
func (c *Clock) Pending() int { return len(c.queue) }

// Sleep advances virtual time by d, applying every action scheduled before
// the deadline in order; it returns the context's cause as soon as an
// action (or anything before) cancelled ctx.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if c.sleeper != nil {
		c.sleeper.sleeping()
	}
	deadline := Forever
	if d < Forever-c.now {
		deadline = c.now + d
	}
	for {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if len(c.queue) == 0 || c.queue[0].at > deadline {
			if deadline == Forever {
				// Nothing can ever wake this sleeper: the run is stuck.
				panic(stalled{at: c.now})
			}
			c.now = deadline
			return nil
		}
		c.runNext()
	}
}

// runNext applies the earliest action. The queue shifts down rather than
// dropping its head, so that it keeps its room for the actions still to be
// scheduled (the run's queue lives in the worker's storage).
func (c *Clock) runNext() {
	t := c.queue[0]
	c.queue = c.queue[:copy(c.queue, c.queue[1:])]
	c.now = max(c.now, t.at)
	c.actor.apply(t.act)
}

// stalled is raised (and recovered by the world) when a sleep without
// deadline has no world action left that could end it.
type stalled struct{ at time.Duration }
