package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
)

// TestMessageSeqsShareWithoutAliasing: a request that extends the last
// history of its generation shares its array (a long run's records once
// cost the square of its length); any other starts a new one; and no
// record ever changes after it was returned.
func TestMessageSeqsShareWithoutAliasing(t *testing.T) {
	req := func(generation int, seqs ...int64) *loop.Request {
		r := &loop.Request{Generation: generation}
		for _, s := range seqs {
			r.Messages = append(r.Messages, loop.SurfaceNode{Seq: s})
		}
		return r
	}
	var m messageSeqs
	log := session.NewLog(session.Header{}, &Clock{})
	steps := []struct {
		why    string
		req    *loop.Request
		shares bool // with the record before
	}{
		{"the first request", req(0, 1), false},
		{"an extension", req(0, 1, 4, 5), true},
		{"the same history again (a retry)", req(0, 1, 4, 5), true},
		{"an extension after a retry", req(0, 1, 4, 5, 9), true},
		{"a replacement: a new generation", req(1, 10, 9), false},
		{"its extension", req(1, 10, 9, 12), true},
		{"a rewritten history (a mutant's)", req(-1, 10, 12), false},
		{"after it, the loop's again", req(1, 10, 9, 12, 14), false},
	}
	var got [][]int64
	for i, st := range steps {
		rec := m.of(st.req, log)
		got = append(got, rec)
		if i == 0 || len(got[i-1]) == 0 {
			continue
		}
		// An extension shares the array unless it had to grow it; then
		// the previous record keeps the old array untouched.
		prev := got[i-1]
		shared := &rec[0] == &prev[0]
		grew := st.shares && !shared && &m.seqs[0] == &rec[0] && len(rec) > cap(prev)
		if shared != st.shares && !grew {
			t.Errorf("%s: shares the previous record's array: %v, want %v", st.why, shared, st.shares)
		}
	}
	for i, st := range steps {
		var want []int64
		for _, n := range st.req.Messages {
			want = append(want, n.Seq)
		}
		if !slices.Equal(got[i], want) {
			t.Errorf("%s: after every later request the record reads %v, want %v", st.why, got[i], want)
		}
	}
}

// TestMessageSeqsGrowGeometrically: a history extended one message at a
// time is copied into a new array only a logarithmic number of times, so
// the records of n requests cost O(n), not O(n²).
func TestMessageSeqsGrowGeometrically(t *testing.T) {
	const n = 10000
	var m messageSeqs
	log := session.NewLog(session.Header{}, &Clock{})
	r := &loop.Request{}
	arrays, last := 0, (*int64)(nil)
	for i := range n {
		r.Messages = append(r.Messages, loop.SurfaceNode{Seq: int64(i)})
		rec := m.of(r, log)
		if &rec[0] != last {
			arrays, last = arrays+1, &rec[0]
		}
		if len(rec) != i+1 || rec[i] != int64(i) {
			t.Fatalf("request %d: record %v…, want seqs 0..%d", i, rec[:min(len(rec), 5)], i)
		}
	}
	if arrays > 20 {
		t.Errorf("%d requests extending one history used %d arrays, want at most 20 (geometric growth)", n, arrays)
	}
}

// BenchmarkLongScenario runs a conversation of many turns: time and
// memory must grow with its length, not with its square. "sends" has one
// send and one answer a turn (50,000 sends took 24 s and 20 GB before
// request histories shared their prefixes); "retries" fails a turn's
// first request with SERVER and retries it (the retry executor once read
// the whole log back for each retry's number). -benchmem's B/op over
// turns is the figure.
func BenchmarkLongScenario(b *testing.B) {
	for _, kind := range []string{"sends", "retries"} {
		for _, n := range []int{1000, 10000} {
			s := longScenario(b, kind, n)
			b.Run(fmt.Sprintf("%s=%d", kind, n), func(b *testing.B) {
				for b.Loop() {
					if r := Run(s); r.Stopped != "" {
						b.Fatal(r.Stopped)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/turn")
			})
		}
	}
}

func longScenario(b *testing.B, kind string, n int) *Scenario {
	var sb strings.Builder
	fmt.Fprintf(&sb, `{"name":"long","maxEvents":%d,"retryPolicy":{"mode":"normal","maxRetries":2,"retryableCodes":["SERVER"],"backoff":{"initialDelayMs":25,"maxDelayMs":50,"jitterRatio":0}},"inputs":[`, 40*n)
	for i := range n {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"send":"message %d","atMs":%d}`, i, 1000*i)
	}
	sb.WriteString(`],"requests":[`)
	for i := range n {
		if i > 0 {
			sb.WriteString(",")
		}
		if kind == "retries" {
			sb.WriteString(`{"fail":{"code":"SERVER","message":"upstream 503","status":503}},`)
		}
		fmt.Fprintf(&sb, `{"text":"answer %d"}`, i)
	}
	sb.WriteString("]}")
	s, err := ParseScenario([]byte(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// TestToolCallIDsAreNamedApart: the names a worker keeps for tool-call ids
// hold a call's request and index apart; a key of request<<16|k gave call
// 65,537 of request 1 the id of request 2's first call.
func TestToolCallIDsAreNamedApart(t *testing.T) {
	r := &chunkRoom{names: &names{}}
	for _, c := range []struct {
		why        string
		request, k int
		want       string
	}{
		{"made, then kept", 1, 0, "call-2-1"},
		{"the call whose packed key was request 2's first", 0, 65536, "call-1-65537"},
		{"given again from the names kept", 1, 0, "call-2-1"},
	} {
		if got := r.toolCallID(c.request, c.k); got != c.want {
			t.Errorf("%s: toolCallID(%d, %d) = %q, want %q", c.why, c.request, c.k, got, c.want)
		}
	}
}
