package budget

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
)

// TimelineChart is a horizon drawn for every policy at once: the incidents
// as bands over virtual time, and under them a lane per policy of the
// turns that failed, counted in buckets of a few minutes.
type TimelineChart struct {
	Width, Height float64
	Bands         []Band
	Lanes         []Lane
	// Bucket is the bars' width in virtual time ("5 min"); Max the
	// largest bucket's count over all lanes (one scale for all).
	Bucket string
	Max    int
	Axis   []AxisTick
	// Rows are the incidents that hit a turn under some policy, in order
	// of start, with what each did under each policy.
	Rows []IncidentRow
}

// Band is an incident on the timeline; Failed says it failed a turn under
// some policy.
type Band struct {
	X, W   float64
	Title  string
	Failed bool
}

// Lane is one policy's failed turns over the horizon.
type Lane struct {
	// Short is the policy's name as a lane's label has room for: a file's
	// name without its folder and extension.
	Policy, Short string
	Y             float64
	Bars          []Bar
}

// AxisTick is a labelled time on the timeline's axis.
type AxisTick struct {
	Label string
	X     float64
}

// IncidentRow is one incident and its effect under each policy.
type IncidentRow struct {
	Incident
	Under []IncidentReport // one per policy, in the page's order
}

const (
	timelineW, timelineLeft = 1100.0, 150.0
	bandH, laneH, laneGap   = 24.0, 40.0, 10.0
	maxBuckets              = 300
)

// newTimelineChart draws the reports' horizon; nil when they have none.
func newTimelineChart(reports []Named) *TimelineChart {
	if len(reports) == 0 || reports[0].Report.Timeline == nil {
		return nil
	}
	horizon := reports[0].Report.Timeline.HorizonMs
	minutes := int(math.Ceil(horizon / 60e3))
	per := max(1, (minutes+maxBuckets-1)/maxBuckets) // minutes a bar
	c := &TimelineChart{Width: timelineLeft + timelineW + 30, Bucket: span(float64(per) * 60e3)}
	x := func(ms float64) float64 { return timelineLeft + timelineW*min(max(ms, 0), horizon)/horizon }
	// The incidents, matched across policies by source and start: each
	// report keeps those of its own turns past the horizon's end.
	key := func(in Incident) string { return fmt.Sprintf("%s@%v", in.Source, in.FromMs) }
	rows := map[string]*IncidentRow{}
	var order []string
	for i, n := range reports {
		if n.Report.Timeline == nil {
			continue
		}
		for _, in := range n.Report.Timeline.Incidents {
			k := key(in.Incident)
			row := rows[k]
			if row == nil {
				row = &IncidentRow{Incident: in.Incident, Under: make([]IncidentReport, len(reports))}
				rows[k] = row
				order = append(order, k)
			}
			row.Under[i] = in
		}
	}
	slices.SortStableFunc(order, func(a, b string) int { return compareFloat(rows[a].FromMs, rows[b].FromMs) })
	for _, k := range order {
		row := rows[k]
		failed, hit := false, false
		var under []string
		for i, in := range row.Under {
			failed = failed || in.Failed > 0
			hit = hit || in.TurnsHit > 0
			under = append(under, fmt.Sprintf("%s: %d hit, %d failed", reports[i].Policy, in.TurnsHit, in.Failed))
		}
		title := fmt.Sprintf("%s %s for %s (%s) — %s", Clock(row.FromMs), codeText(row.Code, row.Status), span(row.ToMs-row.FromMs), row.Source, strings.Join(under, "; "))
		c.Bands = append(c.Bands, Band{X: x(row.FromMs), W: max(2, x(row.ToMs)-x(row.FromMs)), Title: title, Failed: failed})
		if hit {
			c.Rows = append(c.Rows, *row)
		}
	}
	// The lanes: failed turns in buckets of per minutes, on one scale.
	buckets := (minutes + per - 1) / per
	counts := make([][]int, len(reports))
	for i, n := range reports {
		counts[i] = make([]int, buckets)
		if n.Report.Timeline == nil {
			continue
		}
		for m, f := range n.Report.Timeline.Failed {
			b := min(m/per, buckets-1) // a turn ending past the horizon joins its last bucket
			counts[i][b] += f
			c.Max = max(c.Max, counts[i][b])
		}
	}
	w := timelineW / float64(buckets)
	y := bandH + laneGap
	for i, n := range reports {
		lane := Lane{Policy: n.Policy, Short: shortName(n.Policy), Y: y}
		for b, f := range counts[i] {
			if f == 0 {
				continue
			}
			h := laneH * float64(f) / float64(max(c.Max, 1))
			lane.Bars = append(lane.Bars, Bar{Label: fmt.Sprintf("%s–%s: %d failed turns", Clock(float64(b*per)*60e3), Clock(float64((b+1)*per)*60e3), f),
				Count: f, X: timelineLeft + float64(b)*w, Y: y + laneH - h, W: max(w*0.9, 1), H: h})
		}
		c.Lanes = append(c.Lanes, lane)
		y += laneH + laneGap
	}
	c.Height = y + 16
	step := axisStep(horizon)
	for t := 0.0; t <= horizon; t += step {
		c.Axis = append(c.Axis, AxisTick{Label: fmt.Sprintf("%02d:%02d", int(t/3600e3), int(t/60e3)%60), X: x(t)})
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
