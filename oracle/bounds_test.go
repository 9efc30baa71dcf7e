package oracle_test

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
)

// addAll feeds events to a Stream bounded to max events a turn, and
// returns the index of the event it refused (-1 for none) and the error.
func addAll(events []session.Event, max int) (*oracle.Stream, int, error) {
	st := oracle.NewStream(oracle.Options{MaxTurnEvents: max})
	for i := range events {
		if err := st.Add(&events[i]); err != nil {
			return st, i, err
		}
	}
	return st, -1, nil
}

// TestStreamBoundsATurn: a Stream takes at most MaxTurnEvents events of
// one turn while it is open, its turn/start and turn/end included; the
// one past it is refused as bad input naming the bound and its flag, and
// the stream takes nothing more. Events outside turns are not counted.
func TestStreamBoundsATurn(t *testing.T) {
	opaque := func(b *logBuilder, n int) {
		for range n {
			b.add(`{"type":"title/set","data":{"title":"t"}}`)
		}
	}
	for _, row := range []struct {
		why     string
		build   func(b *logBuilder)
		refused int // the index of the refused event, -1 for none
		want    string
	}{
		{"a turn of exactly the bound", func(b *logBuilder) {
			b.turnStart(1)
			opaque(b, 8)
			b.turnEnd(1, completed)
		}, -1, ""},
		{"one event past the bound, even the turn's end", func(b *logBuilder) {
			b.turnStart(1)
			opaque(b, 9)
			b.turnEnd(1, completed)
		}, 10, "turn 1, still open after 10 events, is over the limit of 10 events a turn (raise it with --max-turn-events)"},
		{"a turn that never ends", func(b *logBuilder) {
			b.turnStart(1)
			opaque(b, 100)
		}, 10, "turn 1, still open after 10 events,"},
		{"events outside turns are not counted, and each turn counts from its start", func(b *logBuilder) {
			opaque(b, 50)
			for turn := 1; turn <= 3; turn++ {
				b.turnStart(turn)
				opaque(b, 8)
				b.turnEnd(turn, completed)
				opaque(b, 50)
			}
		}, -1, ""},
		{"a turn/start inside an open turn does not start the count again", func(b *logBuilder) {
			b.turnStart(1)
			opaque(b, 5)
			b.turnStart(2)
			opaque(b, 5)
			b.turnEnd(2, completed)
		}, 10, "turn 2, still open after 10 events,"},
	} {
		b := newLog()
		row.build(b)
		events := b.events(t)
		st, refused, err := addAll(events, 10)
		got := ""
		if err != nil {
			got = err.Error()
			var ex *limits.Exceeded
			if !errors.As(err, &ex) || ex.Flag != limits.FlagTurnEvents {
				t.Errorf("%s: error %v is not a *limits.Exceeded of --%s", row.why, err, limits.FlagTurnEvents)
			}
			// Refused once, refused after: nothing more is taken.
			if again := st.Add(&events[len(events)-1]); again != err {
				t.Errorf("%s: after the refusal Add gives %v", row.why, again)
			}
		}
		if refused != row.refused || !strings.HasPrefix(got, row.want) || (row.want == "") != (got == "") {
			t.Errorf("%s: refused event %d with %q, want %d with %q", row.why, refused, got, row.refused, row.want)
		}
	}
}

// TestStreamMemoryIsBoundedWithinTurn: a Stream keeps nothing an event
// for the events of an open turn that are not chunks: it once kept a
// copy of each (for the tail windows of the default view, which every
// window derives alike) and a slot each (for the chunks a message may
// cite), and 20 million title/set events in one turn took 1.5 GB, where
// outside a turn they took 23 MB.
func TestStreamMemoryIsBoundedWithinTurn(t *testing.T) {
	retained := func(n int) uint64 {
		st := oracle.NewStream(oracle.Options{MaxTurnEvents: math.MaxInt})
		e := session.Event{Data: &session.TurnStart{Turn: 1}}
		st.Add(&e)
		for i := 1; i <= n; i++ {
			// A fresh event each time, as a reader returns them.
			e := session.Event{Seq: int64(i), Data: &session.Opaque{Type: "title/set", Data: []byte(`{"title":"a title of some length"}`)}}
			if err := st.Add(&e); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		runtime.KeepAlive(st)
		return m.HeapAlloc
	}
	small, large := retained(20_000), retained(200_000)
	perEvent := (float64(large) - float64(small)) / 180_000
	t.Logf("retained: %d B after 20,000 events of one turn, %d B after 200,000: %.1f B an event", small, large, perEvent)
	// Room for the heap's noise; a slot an event would be 8 B and more.
	if perEvent > 4 {
		t.Errorf("a Stream keeps %.1f B an event of the open turn, want none", perEvent)
	}
}

// TestNumbersAtTheLargestDoNotWrap: a turn, step or retry numbered the
// largest int has no successor; the message says so instead of wanting
// its wrapped successor ("want retry -9223372036854775808").
func TestNumbersAtTheLargestDoNotWrap(t *testing.T) {
	top := fmt.Sprint(math.MaxInt)
	for _, row := range []struct {
		why   string
		build func(b *logBuilder)
		want  string
	}{
		{"a retry after the largest", func(b *logBuilder) {
			*b = *begin()
			b.fail(1, 1, "SERVER", "busy")
			b.add(`{"type":"llm/retry","data":{"retryId":"r","turn":1,"step":1,"provider":"mock","mode":"always","policyKey":"[\"always\",25,50,1]","retry":%s,"delayMs":25,"failure":{"message":"busy","code":"SERVER"}}}`, top)
			b.started(1, 1, "r", math.MaxInt)
			b.failRetried(1, 1, "r", 1, "")
			b.complete(1, 1)
		}, "retry-budget turn 1 step 1 seqs 4,7: llm/retry number 1 follows same-key retry " + top + ", the largest number a retry can have"},
		{"a turn after the largest", func(b *logBuilder) {
			b.add(`{"type":"turn/start","data":{"turn":%s}}`, top)
			b.add(`{"type":"turn/end","data":{"turn":%s,"reason":{"kind":"completed"}}}`, top)
			b.turnStart(1)
			b.turnEnd(1, completed)
		}, "log-well-formed turn 1 seqs 2: turn/start 1 follows turn " + top + ", the largest number a turn can have"},
		{"a step after the largest", func(b *logBuilder) {
			b.turnStart(1)
			b.add(`{"type":"step/start","data":{"turn":1,"step":%s}}`, top)
			b.add(`{"type":"step/end","data":{"turn":1,"step":%s}}`, top)
			b.stepStart(1, 1)
			b.stepEnd(1, 1)
			b.turnEnd(1, completed)
		}, "log-well-formed turn 1 step 1 seqs 3: step/start 1 follows step " + top + ", the largest number a step can have"},
	} {
		b := newLog()
		row.build(b)
		var lines []string
		for _, v := range oracle.Check(b.events(t), oracle.Options{}) {
			lines = append(lines, v.Line())
		}
		all := strings.Join(lines, "\n")
		if !strings.Contains(all, row.want) || strings.Contains(all, fmt.Sprint(math.MinInt)) {
			t.Errorf("%s: the violations are\n%s\nwant %q and no %d", row.why, all, row.want, math.MinInt)
		}
	}
}

// TestViolationLineIsPrintable: a violation's line quotes the log, and
// an ESC in a failure code reaches no terminal; the message itself keeps
// the log's bytes (JSON output escapes them its own way).
func TestViolationLineIsPrintable(t *testing.T) {
	v := oracle.Violation{Invariant: oracle.NonRetryableStaysTerminal, Turn: 1, Step: 1, Seqs: []int64{4},
		Message: "a normal-mode policy retried \x1b[2J, which its retryable codes [SERVER] do not list"}
	want := `non-retryable-stays-terminal turn 1 step 1 seqs 4: a normal-mode policy retried \x1b[2J, which its retryable codes [SERVER] do not list`
	if diff := cmp.Diff(want, v.Line()); diff != "" {
		t.Errorf("Line (-want +got):\n%s", diff)
	}
}
