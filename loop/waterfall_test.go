package loop

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop/session"
)

type nopClock struct{}

func (nopClock) Now() time.Time { return time.Time{} }

// TestAKeptNextRunsItsOwnChain: a listener that keeps its next() and
// calls it in a later waterfall runs the rest of the chain it was given
// then, and its own next() of the new waterfall runs the whole chain
// after it — as kept closures do in DSH's JavaScript. It failed when the
// frames of a waterfall were handed out by depth: the kept next()
// advanced the new waterfall's frame, which then skipped p1. The same
// holds for an agent made again in a Memory.
func TestAKeptNextRunsItsOwnChain(t *testing.T) {
	var mem Memory
	for _, where := range []struct {
		name string
		mem  *Memory
	}{{"own memory", nil}, {"a Memory, first agent", &mem}, {"a Memory, second agent", &mem}} {
		t.Run(where.name, func(t *testing.T) {
			a := New(session.NewLog(session.Header{ID: "s"}, nopClock{}), Config{Memory: where.mem}, Ports{})
			var trace []string
			var kept Next
			a.AddRequestErrorListener("keeper", func(_ *RequestError, next Next) (Action, error) {
				if kept == nil {
					kept = next
					return next()
				}
				trace = append(trace, "kept:")
				kept()
				trace = append(trace, "own:")
				return next()
			})
			for _, name := range []string{"p1", "p2"} {
				a.AddRequestErrorListener(name, func(_ *RequestError, next Next) (Action, error) {
					trace = append(trace, name)
					return next()
				})
			}
			a.runWaterfall(&RequestError{})
			trace = append(trace, "|")
			a.runWaterfall(&RequestError{})
			want := []string{"p1", "p2", "|", "kept:", "p2", "own:", "p1", "p2"}
			if diff := cmp.Diff(want, trace); diff != "" {
				t.Errorf("listener calls (-want +got):\n%s", diff)
			}
		})
	}
}
