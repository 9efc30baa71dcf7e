package mutants

import (
	"context"
	"time"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/sim"
)

// backgroundWait is a policy author's own listener, as the worked example
// of docs/own-listener.md writes it before its fix: it retries SERVER twice per step, 100
// ms apart, and writes nothing to the log. Its wait is on a context of its
// own instead of the turn signal, so a cancel during the wait is not seen
// until the wait is over: the turn ends late. Nothing in the log shows it
// (the loop's re-check still stops the retry); only the virtual time
// between the cancel and the turn's end does.
func backgroundWait() sim.Listener {
	return sim.Listener{Name: "server-retry", MaxRetries: 2, Codes: []string{"SERVER"}, New: func(env sim.Env) loop.RequestErrorListener {
		type step struct{ turn, step int }
		retries := map[step]int{}
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			at := step{ev.Turn, ev.Step}
			if ev.Failure.Code != "SERVER" || retries[at] >= 2 {
				return next()
			}
			retries[at]++
			if err := env.Clock.Sleep(context.Background(), 100*time.Millisecond); err != nil { // the bug
				return loop.NoAction, nil
			}
			return loop.Retry, nil
		}
	}}
}
