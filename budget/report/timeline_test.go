package report

import (
	"strings"
	"testing"

	"github.com/turnsim/turnsim/budget"
)

// TestTimelineChartStaysBounded: a month of incidents every minute draws
// one band a column at most (the page was 3.5 MB of rectangles and table
// rows) and lists the 100 incidents that failed the most turns; an
// incident alone in its columns keeps its own band and title.
func TestTimelineChartStaysBounded(t *testing.T) {
	month := 30 * 24 * 3600e3
	tl := &budget.TimelineReport{HorizonMs: month, Arrived: make([]int, 43200), Failed: make([]int, 43200)}
	for i := range 5000 {
		from := month / 2 * float64(i) / 5000 // the first half, densely
		tl.Incidents = append(tl.Incidents, budget.IncidentReport{Incident: budget.Incident{Source: "incidents[0]", FromMs: from, ToMs: from + 20e3, Code: "SERVER"},
			TurnsHit: 1 + i%7, Failed: i % 7})
	}
	lone := budget.Incident{Source: "outages[0]", FromMs: 0.75 * month, ToMs: 0.75*month + 3*3600e3, Code: "RATE_LIMIT"}
	tl.Incidents = append(tl.Incidents, budget.IncidentReport{Incident: lone, TurnsHit: 3, Carried: 3})
	c := newTimelineChart([]Named{{Policy: "p", Report: budget.Report{Timeline: tl}}})
	if len(c.Bands) > int(timelineW/bandCol) || len(c.Rows) != maxRows || c.RowsLeft != 5001-maxRows || !c.Merged {
		t.Errorf("%d bands, %d rows and %d left, merged %v", len(c.Bands), len(c.Rows), c.RowsLeft, c.Merged)
	}
	for _, r := range c.Rows {
		if r.Under[0].Failed != 6 {
			t.Errorf("a row of an incident that failed %d turns is listed; those that failed 6 are left", r.Under[0].Failed)
			break
		}
	}
	last := c.Bands[len(c.Bands)-1]
	if !strings.Contains(last.Title, "RATE_LIMIT for 3 h (outages[0])") || last.W < 2*bandCol || last.Opacity != 1 {
		t.Errorf("the lone outage's band: %+v", last)
	}
}
