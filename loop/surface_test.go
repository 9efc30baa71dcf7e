package loop

import (
	"fmt"
	"testing"

	"github.com/turnsim/turnsim/loop/session"
)

// TestSurfaceTokensFollowEveryChange: the surface keeps its token total
// as nodes come and go instead of summing on every request; every way a
// node joins or leaves must keep it equal to the sum of the nodes'.
// (A node pushed by the loop without passing through apply once left the
// total behind, and no context window ever overflowed.)
func TestSurfaceTokensFollowEveryChange(t *testing.T) {
	user := func(seq int64, text string, op session.SurfaceOp) *session.Event {
		return &session.Event{Seq: seq, SurfaceOp: &op,
			Data: &session.UserMessage{Content: []byte(fmt.Sprintf(`[{"type":"text","text":%q}]`, text))}}
	}
	appendOp := session.SurfaceOp{Op: session.SurfaceAppend}
	replace := func(start, end int64) session.SurfaceOp {
		return session.SurfaceOp{Op: session.SurfaceReplace, Start: start, End: end}
	}
	steps := []struct {
		why   string
		apply func(s *Surface)
	}{
		{"an appended event", func(s *Surface) { s.apply(user(1, "hello there", appendOp)) }},
		{"a node the loop pushes", func(s *Surface) {
			s.push(SurfaceNode{Seq: 2, Kind: NodeAssistant, Tokens: 40})
		}},
		{"another append", func(s *Surface) { s.apply(user(3, "a much longer message than the first one", appendOp)) }},
		{"a replacement of the first two", func(s *Surface) { s.apply(user(4, "summary", replace(1, 2))) }},
		{"a replacement of one node", func(s *Surface) { s.apply(user(5, "short", replace(3, 3))) }},
		{"a replacement whose range is not there changes nothing", func(s *Surface) { s.apply(user(6, "ignored", replace(1, 9))) }},
		{"a replacement across a checkpoint (surface order, not seq order)", func(s *Surface) { s.apply(user(7, "all", replace(4, 5))) }},
	}
	var s Surface
	for _, st := range steps {
		st.apply(&s)
		sum := 0
		for _, n := range s.Nodes() {
			sum += n.Tokens
		}
		if s.Tokens() != sum || sum == 0 {
			t.Errorf("after %s: Tokens() = %d, the nodes sum to %d", st.why, s.Tokens(), sum)
		}
	}
	if len(s.Nodes()) != 1 || s.Nodes()[0].Seq != 7 {
		t.Errorf("the surface ends as %+v, want the one node at seq 7", s.Nodes())
	}
}
