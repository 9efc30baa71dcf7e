// Package ownlistener is a request-error listener of one's own, checked by
// turnsim from go test: docs/own-listener.md.
package ownlistener

import (
	"time"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/sim"
)

// RetryServer retries a SERVER failure twice per step, 100 ms apart, and
// passes every other failure on.
func RetryServer() sim.Listener {
	return sim.Listener{Name: "retry-server", MaxRetries: 2, Codes: []string{"SERVER"}, New: func(env sim.Env) loop.RequestErrorListener {
		retries := map[[2]int]int{} // by turn and step
		return func(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
			step := [2]int{ev.Turn, ev.Step}
			if ev.Failure.Code != "SERVER" || retries[step] >= 2 {
				return next()
			}
			retries[step]++
			// The wait is on the turn's signal: a cancel ends it at once.
			if err := env.Clock.Sleep(ev.Signal, 100*time.Millisecond); err != nil {
				return loop.NoAction, nil
			}
			return loop.Retry, nil
		}
	}}
}
