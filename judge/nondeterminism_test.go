package judge

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// TestNondeterminismCaught: a listener whose answer depends on state kept
// outside the run (here, how many runs of it came before) makes a seed
// run twice write two logs, which is a nondeterminism violation; the same
// seeds with a listener that keeps its state in the run have none.
func TestNondeterminismCaught(t *testing.T) {
	count := func(name string, outside bool) (sim.Listener, *int) {
		runs := 0
		return sim.Listener{Name: name, New: func(sim.Env) loop.RequestErrorListener {
			runs++
			thisRun := runs
			return func(_ *loop.RequestError, next loop.Next) (loop.Action, error) {
				if outside && thisRun%2 == 0 {
					return loop.Retry, nil // every other run retries where the first passed on
				}
				return next()
			}
		}}, &runs
	}
	for _, tc := range []struct {
		why     string
		outside bool
		want    bool
	}{
		{"a listener whose answer is set by the runs before it", true, true},
		{"a listener whose state is the run's own", false, false},
	} {
		l, _ := count("counter", tc.outside)
		opts := sim.Options{Listeners: []sim.Listener{l}, BlockedAfter: -1}
		found := 0
		for seed := uint64(1); seed <= 100; seed++ {
			for _, v := range RunSeed(seed, faults.Overrides{}, opts, true).Violations {
				if v.Invariant == oracle.Nondeterminism {
					found++
				}
			}
		}
		if got := found > 0; got != tc.want {
			t.Errorf("%s: %d of 100 seeds run twice wrote two logs; want some: %v", tc.why, found, tc.want)
		}
	}
}

// TestSameLog: two runs' logs are the same when their bytes are, whether
// or not their values are deeply equal.
func TestSameLog(t *testing.T) {
	run := func(edit func(*sim.Result)) *sim.Result {
		_, s := faults.Draw(1, faults.Overrides{})
		r := sim.Run(s)
		if edit != nil {
			edit(r)
		}
		return r
	}
	for _, tc := range []struct {
		why  string
		edit func(*sim.Result)
		want bool
	}{
		{"the same run", nil, true},
		{"a later time", func(r *sim.Result) { r.Events[len(r.Events)-1].Time++ }, false},
		{"another header", func(r *sim.Result) { r.Header.ID = "other" }, false},
		{"events of other values that write the same bytes: the log read back, each event with its data as read", func(r *sim.Result) {
			_, events, err := session.ReadAll(bytes.NewReader(LogBytes(r)), session.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r.Events = events
		}, true},
	} {
		a, b := run(nil), run(tc.edit)
		if got := sameLog(a, b); got != tc.want {
			t.Errorf("%s: sameLog = %v, want %v", tc.why, got, tc.want)
		}
		if tc.edit != nil && reflect.DeepEqual(a.Header, b.Header) && reflect.DeepEqual(a.Events, b.Events) {
			t.Errorf("%s: the edit left the values deeply equal: the row tests nothing", tc.why)
		}
	}
}
