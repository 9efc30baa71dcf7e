package report

import (
	"cmp"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/budget"
)

// timelineChart is a horizon drawn for every policy at once: the incidents
// as bands over virtual time, and under them a lane per policy of the
// turns that failed, counted in buckets of a few minutes.
type timelineChart struct {
	Width, Height float64
	Bands         []timelineBand
	Lanes         []timelineLane
	// Bucket is the bars' width in virtual time ("5 min"); Max the
	// largest bucket's count over all lanes (one scale for all).
	Bucket string
	Max    int
	Axis   []axisTick
	// Arrivals is the lane of turns arriving (the same for every
	// policy), on its own scale up to ArrivalsMax.
	Arrivals    *timelineLane
	ArrivalsMax int
	// Merged says some band stands for incidents closer than a pixel.
	Merged bool
	// Rows are the incidents that hit a turn under some policy, in order
	// of start, with what each did under each policy: at most maxRows,
	// those that failed the most turns; RowsLeft counts the others.
	Rows     []incidentRow
	RowsLeft int
}

// timelineBand is an incident on the timeline, or the incidents of a column of
// it; Failed says one failed a turn under some policy; Opacity grows
// with the number of incidents a column holds.
type timelineBand struct {
	X, W    float64
	Title   string
	Failed  bool
	Opacity float64
}

// bandColumn is what covers one column of the incidents' band.
type bandColumn struct {
	n, failed int
	from, to  float64 // the first and last start among them
	title     string  // the first one's
	key       string  // the last one's
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

// timelineLane is one policy's failed turns over the horizon.
type timelineLane struct {
	// Short is the policy's name as a lane's label has room for: a file's
	// name without its folder and extension.
	Policy, Short string
	Y             float64
	Bars          []bar
}

// incidentRow is one incident and its effect under each policy.
type incidentRow struct {
	budget.Incident
	Under []budget.IncidentReport // one per policy, in the page's order
}

const (
	timelineW, timelineLeft = 1100.0, 150.0
	bandH, laneH, laneGap   = 24.0, 40.0, 10.0
	maxBuckets              = 300
	bandCol                 = 2.0
	maxRows                 = 100
)

// newTimelineChart draws the reports' horizon; nil when they have none.
func newTimelineChart(reports []Named) *timelineChart {
	if len(reports) == 0 || reports[0].Report.Timeline == nil {
		return nil
	}
	horizon := reports[0].Report.Timeline.HorizonMs
	minutes := int(math.Ceil(horizon / 60e3))
	per := max(1, (minutes+maxBuckets-1)/maxBuckets) // minutes a bar
	c := &timelineChart{Width: timelineLeft + timelineW + 30, Bucket: Span(float64(per) * 60e3)}
	x := func(ms float64) float64 { return timelineLeft + timelineW*min(max(ms, 0), horizon)/horizon }
	// The incidents, matched across policies by source and start: each
	// report keeps those of its own turns past the horizon's end.
	key := func(in budget.Incident) string { return fmt.Sprintf("%s@%v", in.Source, in.FromMs) }
	rows := map[string]*incidentRow{}
	var order []string
	for i, n := range reports {
		if n.Report.Timeline == nil {
			continue
		}
		for _, in := range n.Report.Timeline.Incidents {
			k := key(in.Incident)
			row := rows[k]
			if row == nil {
				row = &incidentRow{Incident: in.Incident, Under: make([]budget.IncidentReport, len(reports))}
				rows[k] = row
				order = append(order, k)
			}
			row.Under[i] = in
		}
	}
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(rows[a].FromMs, rows[b].FromMs) })
	// The bands: the axis in columns of two pixels, each drawn if some
	// incident covers it; an incident alone in its columns keeps its own
	// band and title, columns several share are one band each, darker
	// the more there are (a month of frequent incidents once drew tens of
	// thousands of rectangles, and chaining them drew one).
	cols := make([]bandColumn, int(timelineW/bandCol))
	col := func(ms float64) int { return min(int((x(ms)-timelineLeft)/bandCol), len(cols)-1) }
	for _, k := range order {
		row := rows[k]
		failed, hit := false, false
		var under []string
		for i, in := range row.Under {
			failed = failed || in.Failed > 0
			hit = hit || in.TurnsHit > 0
			under = append(under, fmt.Sprintf("%s: %d hit, %d failed", reports[i].Policy, in.TurnsHit, in.Failed))
		}
		if hit {
			c.Rows = append(c.Rows, *row)
		}
		if row.FromMs >= horizon {
			continue // past the horizon: in the table, not on its axis
		}
		title := fmt.Sprintf("%s %s for %s (%s) — %s", Clock(row.FromMs), codeText(row.Code, row.Status), Span(row.ToMs-row.FromMs), row.Source, strings.Join(under, "; "))
		for j := col(row.FromMs); j <= col(row.ToMs); j++ {
			cc := &cols[j]
			if cc.n == 0 {
				cc.from, cc.title = row.FromMs, title
			}
			cc.n++
			cc.failed += boolCount(failed)
			cc.to = max(cc.to, row.FromMs)
			cc.key = k
		}
	}
	most := 0
	for _, cc := range cols {
		most = max(most, cc.n)
	}
	for j, cc := range cols {
		if cc.n == 0 {
			continue
		}
		band := timelineBand{X: timelineLeft + float64(j)*bandCol, W: bandCol, Title: cc.title, Failed: cc.failed > 0, Opacity: 1}
		if cc.n > 1 {
			c.Merged = true
			band.Title = fmt.Sprintf("%d incidents from %s to %s, %d of them failed a turn under some policy", cc.n, Clock(cc.from), Clock(cc.to), cc.failed)
			band.Opacity = 0.4 + 0.6*float64(cc.n)/float64(most)
		}
		// An incident alone in the columns it spans is one band.
		if n := len(c.Bands); n > 0 && cc.n == 1 && j > 0 && cols[j-1].n == 1 && cols[j-1].key == cc.key {
			c.Bands[n-1].W += bandCol
			continue
		}
		c.Bands = append(c.Bands, band)
	}
	// The table: every incident that hit a turn, up to maxRows, those that
	// failed the most turns (under all policies together) kept.
	if len(c.Rows) > maxRows {
		c.RowsLeft = len(c.Rows) - maxRows
		failedUnder := func(r incidentRow) int {
			n := 0
			for _, in := range r.Under {
				n += in.Failed
			}
			return n
		}
		slices.SortStableFunc(c.Rows, func(a, b incidentRow) int { return failedUnder(b) - failedUnder(a) })
		c.Rows = c.Rows[:maxRows]
		slices.SortStableFunc(c.Rows, func(a, b incidentRow) int { return cmp.Compare(a.FromMs, b.FromMs) })
	}
	// The lanes: turns arriving (on a scale of their own), then each
	// policy's failed turns (on one scale for all), in buckets of per
	// minutes; a turn ending past the horizon joins the last bucket.
	buckets := (minutes + per - 1) / per
	bucketed := func(perMinute []int) []int {
		out := make([]int, buckets)
		for m, n := range perMinute {
			out[min(m/per, buckets-1)] += n
		}
		return out
	}
	failed := make([][]int, len(reports))
	for i, n := range reports {
		if n.Report.Timeline != nil {
			failed[i] = bucketed(n.Report.Timeline.Failed)
		}
		c.Max = max(c.Max, slices.Max(append([]int{0}, failed[i]...)))
	}
	w := timelineW / float64(buckets)
	y := bandH + laneGap
	lane := func(name string, counts []int, top int, what string) timelineLane {
		l := timelineLane{Policy: name, Short: shortName(name), Y: y}
		for b, n := range counts {
			if n == 0 {
				continue
			}
			h := laneH * float64(n) / float64(max(top, 1))
			l.Bars = append(l.Bars, bar{Label: fmt.Sprintf("%s–%s: %d %s", Clock(float64(b*per)*60e3), Clock(float64((b+1)*per)*60e3), n, what),
				Count: n, X: timelineLeft + float64(b)*w, Y: y + laneH - h, W: max(w*0.9, 1), H: h})
		}
		y += laneH + laneGap
		return l
	}
	arrived := bucketed(reports[0].Report.Timeline.Arrived)
	c.ArrivalsMax = slices.Max(arrived)
	arrivals := lane("turns arriving", arrived, c.ArrivalsMax, "turns arrived")
	c.Arrivals = &arrivals
	for i, n := range reports {
		c.Lanes = append(c.Lanes, lane(n.Policy, failed[i], c.Max, "failed turns"))
	}
	c.Height = y + 16
	step := axisStep(horizon)
	for t := 0.0; t <= horizon; t += step {
		c.Axis = append(c.Axis, axisTick{Label: axisLabel(t, horizon), X: x(t)})
	}
	return c
}

// axisStep is a round interval giving the axis six to twelve labels.
func axisStep(horizon float64) float64 {
	for _, s := range []float64{60e3, 5 * 60e3, 10 * 60e3, 30 * 60e3, 3600e3, 2 * 3600e3, 3 * 3600e3, 6 * 3600e3, 12 * 3600e3, 24 * 3600e3, 7 * 24 * 3600e3} {
		if horizon/s <= 12 {
			return s
		}
	}
	return horizon / 8
}

// shortName is a policy file's base name without ".json", at most 22
// characters.
func shortName(policy string) string {
	name := strings.TrimSuffix(path.Base(policy), ".json")
	if r := []rune(name); len(r) > 22 {
		name = string(r[:21]) + "…"
	}
	return name
}

// axisLabel is a time on the timeline's axis: hh:mm within a day, with
// the day past one ("day 2 00:00"), as the incidents' table writes them.
func axisLabel(ms, horizon float64) string {
	hm := fmt.Sprintf("%02d:%02d", int(ms/3600e3)%24, int(ms/60e3)%60)
	if horizon <= 24*3600e3 {
		if ms == 24*3600e3 {
			return "24:00"
		}
		return hm
	}
	return fmt.Sprintf("day %d %s", int(ms/(24*3600e3))+1, hm)
}
