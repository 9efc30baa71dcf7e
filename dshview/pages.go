package dshview

import (
	"fmt"
	"sort"

	"github.com/turnsim/turnsim/internal/words"
	"github.com/turnsim/turnsim/loop/session"
)

// PageMessages is the page size of DSH's Web UI: it opens a session on
// the last 50 messages of its history and loads 50 more each time the
// user scrolls to the top (client-runtime's session, PAGE_MESSAGES).
const PageMessages = 50

// Pages is the history DSH's Web UI loads of a log, page by page, at
// messages a page: the tail page first, then each older page, as index
// ranges [from, to) (a View's steps). It follows rc.8's web host
// (host-apiproxy's paginate): a page ends where the messages-th message
// from its end begins, counting user and assistant messages that
// appended to the surface, a message beginning at the first event it
// was made from (an assistant message's chunks are never cut off it);
// the history before the first page's event is the next page.
func Pages(events []session.Event, messages int) [][2]int {
	var pages [][2]int
	to := len(events)
	for to > 0 {
		from := pageStart(events[:to], messages)
		pages = append(pages, [2]int{from, to})
		to = from
	}
	return pages
}

// pageStart is the index of the first event of the page that ends at the
// end of events.
func pageStart(events []session.Event, messages int) int {
	count := 0
	for i := len(events) - 1; i >= 0; i-- {
		e := &events[i]
		if !appendedMessage(e) {
			continue
		}
		count++
		if count < messages {
			continue
		}
		start := e.Seq
		for _, s := range e.SourceEventSeqs {
			start = min(start, s)
		}
		// The host filters by seq; a log's seqs are its indexes, but a
		// log read from anywhere is searched rather than trusted.
		at := sort.Search(len(events), func(k int) bool { return events[k].Seq >= start })
		if at >= len(events) || at > i {
			at = i // a citation after the message itself: the message begins the page
		}
		return at
	}
	return 0
}

// appendedMessage: a user or assistant message that entered the surface
// at its own position (not a compaction's replacement copy).
func appendedMessage(e *session.Event) bool {
	switch e.Data.(type) {
	case *session.UserMessage, *session.AssistantMessage:
		return e.SurfaceOp != nil && e.SurfaceOp.Op == session.SurfaceAppend
	}
	return false
}

// pagedView is the view of a log paged in at messages a page.
func pagedView(events []session.Event, messages int) View {
	return View{Where: fmt.Sprintf("the history paged in at %s a page", words.Plural(messages, "message")), Steps: Pages(events, messages)}
}
