package dshview

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/loop/session"
)

func indexOf(events []session.Event, match func(session.Event) bool) int {
	return slices.IndexFunc(events, match)
}

// TestPagesFollowTheWebHost: the history is paged as rc.8's web host
// pages it: a page begins where its first message's group begins (an
// assistant message at the first chunk it cites), a replacement copy is
// no message, and the pages cover the log from its end to its start.
func TestPagesFollowTheWebHost(t *testing.T) {
	exhausted := scenarioLog(t, "conformance/server-exhausts.json")
	user := indexOf(exhausted, func(e session.Event) bool { _, ok := e.Data.(*session.UserMessage); return ok })
	answered := scenarioLog(t, "conformance/transport-mid-stream.json")
	message := indexOf(answered, func(e session.Event) bool { _, ok := e.Data.(*session.AssistantMessage); return ok })
	firstCited := int(answered[message].SourceEventSeqs[0])
	answeredUser := indexOf(answered, func(e session.Event) bool { _, ok := e.Data.(*session.UserMessage); return ok })
	compacted := scenarioLog(t, "conformance/overflow-compaction.json")
	tests := []struct {
		name     string
		events   []session.Event
		messages int
		want     [][2]int
	}{
		{"one message a page: the user's message begins the tail page", exhausted, 1, [][2]int{{user, len(exhausted)}, {0, user}}},
		{"a short log is one page at the Web UI's size", exhausted, PageMessages, [][2]int{{0, len(exhausted)}}},
		{"an assistant message's page begins at the first chunk it cites", answered, 1,
			[][2]int{{firstCited, len(answered)}, {answeredUser, firstCited}, {0, answeredUser}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Pages(tt.events, tt.messages)); diff != "" {
				t.Errorf("pages (-want +got):\n%s", diff)
			}
		})
	}
	// A checkpoint (a replacement copy) counts as no message: the pages
	// at one message a page are as many as the appended messages.
	appended := 0
	for i := range compacted {
		if appendedMessage(&compacted[i]) {
			appended++
		}
	}
	if got := len(Pages(compacted, 1)); got != appended && got != appended+1 {
		t.Errorf("%d pages for %d appended messages", got, appended)
	}
	for _, pages := range [][][2]int{Pages(compacted, 1), Pages(compacted, 2), Pages(answered, 1)} {
		for k := range pages {
			if k == 0 && pages[k][1] != len(compacted) && pages[k][1] != len(answered) || k > 0 && pages[k][1] != pages[k-1][0] || pages[k][0] >= pages[k][1] {
				t.Errorf("pages %v do not cover the log from its end, each one before the last", pages)
			}
		}
		if pages[len(pages)-1][0] != 0 {
			t.Errorf("pages %v stop short of the log's start", pages)
		}
	}
}

// TestViewsOfALog: the whole log with its rows first; the tail windows of
// each turn with recovery, from every event of it but its chunks, and none
// of a turn without; pages when the log is more than one; live
// checkpoints at each recovery turn's end and at the log's end.
func TestViewsOfALog(t *testing.T) {
	events := scenarioLog(t, "conformance/prompt-after-exhausted.json")
	q := Views(events)
	if v := q.Views[0]; v.Where != "the whole log" || !v.Rows || !slices.Equal(v.Steps, [][2]int{{0, len(events)}}) {
		t.Fatalf("first view %+v, want the whole log with its rows", v)
	}
	turns := recoveryTurns(events)
	if len(turns) != 1 {
		t.Fatalf("recovery turns %v, want the exhausted one alone (the prompt after it completes)", turns)
	}
	tr := turns[0]
	var starts []int
	for _, v := range q.Views[1:] {
		if len(v.Steps) == 1 {
			if v.Steps[0][1] != tr.end+1 || v.Steps[0][0] < tr.start || v.Rows {
				t.Errorf("tail window %v outside the recovery turn %v", v.Steps[0], tr)
			}
			if _, chunk := events[v.Steps[0][0]].Data.(*session.AssistantChunk); chunk {
				t.Errorf("a tail window begins at a chunk: %v", v.Steps[0])
			}
			starts = append(starts, v.Steps[0][0])
		}
	}
	if len(starts) == 0 || starts[0] != tr.start {
		t.Errorf("tail windows begin at %v, want the first at the turn's start %d", starts, tr.start)
	}
	if !slices.ContainsFunc(q.Views, func(v View) bool { return len(v.Steps) > 1 }) {
		t.Error("no paged view of a log of several messages")
	}
	if want := []int{tr.end + 1, len(events)}; !slices.Equal(q.Live, want) {
		t.Errorf("live checkpoints %v, want %v", q.Live, want)
	}
	// A completed turn without retries has no window.
	plain := scenarioLog(t, "conformance/steer-during-tool.json")
	for _, v := range Views(plain).Views[1:] {
		if len(v.Steps) == 1 {
			t.Errorf("a tail window %v of a log without recovery", v.Steps[0])
		}
	}
}

// TestTailWindowsAreBounded: a turn of more candidate starts than the
// bound keeps its first and last, spread between.
func TestTailWindowsAreBounded(t *testing.T) {
	events := make([]session.Event, 1000)
	for i := range events {
		events[i] = session.Event{Seq: int64(i), Data: &session.StepStart{Turn: 1, Step: i}}
	}
	got := tailStarts(events, 0, 999)
	if len(got) != MaxWindowsPerTurn || got[0] != 0 || got[len(got)-1] != 999 || !slices.IsSorted(got) {
		t.Errorf("%d starts from %d to %d, want %d from 0 to 999, ascending", len(got), got[0], got[len(got)-1], MaxWindowsPerTurn)
	}
}
