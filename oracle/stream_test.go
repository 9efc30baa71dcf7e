package oracle_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/internal/sharedlogs"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
)

// streamOf reads a log event by event into a Stream, which it returns
// unfinished, with the number of events.
func streamOf(t testing.TB, r io.Reader) (*oracle.Stream, int) {
	t.Helper()
	rd, err := session.NewReader(r, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := oracle.NewStream(oracle.Options{})
	events := 0
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		st.Add(&e)
		events++
	}
	return st, events
}

// streamMatchesWhole checks events with a Stream and with Check over the
// whole log's view, fails on a difference, and returns the violations.
func streamMatchesWhole(t testing.TB, events []session.Event, what string) []oracle.Violation {
	t.Helper()
	st := oracle.NewStream(oracle.Options{})
	for i := range events {
		st.Add(&events[i])
	}
	got := st.Finish()
	want := oracle.Check(events, oracle.Options{Derive: view.Derive})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s: the stream differs from the whole log's view (-want +got):\n%s", what, diff)
	}
	return got
}

// TestStreamMatchesWholeLogView: a Stream finds what Check finds when
// Check derives the whole log's view first (Options.Derive): the view a
// Stream derives as it reads, letting go of each turn's nodes at its end,
// agrees with the whole log's. Real logs, and the same logs with events
// dropped, repeated and swapped, so that the violating paths are taken.
func TestStreamMatchesWholeLogView(t *testing.T) {
	var logs [][]session.Event
	dir, files := sharedlogs.Files(t)
	for _, rel := range files {
		logs = append(logs, readFile(t, filepath.Join(dir, rel)))
	}
	_, heavy, err := session.ReadAll(bytes.NewReader(retryHeavyLog(30)), session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	logs = append(logs, heavy)
	rng := rand.New(rand.NewPCG(1, 2))
	violating := 0
	for n, events := range logs {
		variants := [][]session.Event{events}
		for range 20 {
			variants = append(variants, perturb(rng, events))
		}
		for v, evs := range variants {
			if got := streamMatchesWhole(t, evs, fmt.Sprintf("log %d variant %d", n, v)); len(got) > 0 {
				violating++
			}
		}
	}
	if violating < 100 {
		t.Errorf("only %d perturbed logs had violations: the comparison hardly reached the violating paths", violating)
	}
}

// perturb drops, repeats or swaps one to three events.
func perturb(rng *rand.Rand, events []session.Event) []session.Event {
	out := append([]session.Event(nil), events...)
	for range 1 + rng.IntN(3) {
		if len(out) < 3 {
			break
		}
		i, j := 1+rng.IntN(len(out)-1), 1+rng.IntN(len(out)-1)
		switch rng.IntN(3) {
		case 0:
			out = append(out[:i], out[i+1:]...)
		case 1:
			out = append(out[:i+1], out[i:]...)
		default:
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// TestStreamMemoryIsBoundedByTurn: what a Stream keeps grows with the
// indexes that span turns (retry ids, the surface's seqs), not with the
// log. Ten times the turns of a retry-heavy log (4.6 KB and 40 events a
// turn) may cost at most 400 bytes a turn more; holding the events costs
// several KB a turn.
func TestStreamMemoryIsBoundedByTurn(t *testing.T) {
	if raceEnabled {
		t.Skip("17 s under -race, whose shadow memory is no measure of the heap's: make slow runs it without")
	}
	retained := func(turns int) uint64 {
		st, _ := streamOf(t, &retryHeavyReader{turns: turns})
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if vs := st.Finish(); len(vs) > 0 {
			t.Fatalf("%d turns: %v", turns, vs[0])
		}
		runtime.KeepAlive(st)
		return m.HeapAlloc
	}
	// 500 and 5,000 turns: enough to see a few hundred bytes a turn
	// above the heap's noise, small enough for make test under -race.
	small, large := retained(500), retained(5000)
	perTurn := (float64(large) - float64(small)) / 4500
	t.Logf("retained: %d B after 500 turns, %d B after 5,000: %.0f B a turn", small, large, perTurn)
	if perTurn > 400 {
		t.Errorf("a Stream keeps %.0f B a turn, want at most 400", perTurn)
	}
}

// BenchmarkStreamLongLog checks a retry-heavy log of 20,000 turns (92 MB)
// read as it is written, never held: the figure is events/s, and
// -benchmem's B/op is what was allocated, not what was kept (see
// TestStreamMemoryIsBoundedByTurn).
func BenchmarkStreamLongLog(b *testing.B) {
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		st, n := streamOf(b, &retryHeavyReader{turns: 20000})
		if vs := st.Finish(); len(vs) > 0 {
			b.Fatal(vs[0])
		}
		events += n
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
