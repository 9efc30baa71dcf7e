package budget

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/internal/headless"
	"github.com/turnsim/turnsim/loop/retry"
)

// TestChartData: the pictures draw the report's own numbers: the
// recovery histogram holds every turn that had a failure, the tallest bar
// is the largest count at full height, and the exhaustion axis ends at the
// largest interval end.
func TestChartData(t *testing.T) {
	env := &Environment{Failures: []Failure{{Code: "SERVER", Status: 503, P: 0.3}}}
	r := mustRun(t, Config{Policy: retry.DefaultPolicy(), Env: env}, 1, 2000)
	failing := r.Turns - r.Attempts[1]
	sum := 0
	for _, b := range r.RecoveryHistogram {
		sum += b.Count
	}
	if sum != failing || len(r.RecoveryHistogram) != 20 {
		t.Errorf("histogram of %d bins holds %d turns, want %d", len(r.RecoveryHistogram), sum, failing)
	}
	c := AttemptsChart(r)
	if len(c.Bars) != len(r.Attempts)-1 || c.Bars[0].Count != r.Attempts[1] || c.Bars[0].H != chartH || c.Max != r.Attempts[1] {
		t.Errorf("attempts chart %+v for attempts %v", c, r.Attempts)
	}
	// Counts on a log scale: the tail's single turns stay visible (a
	// linear scale drew them under a pixel beside the first bar's 1,400).
	for _, b := range c.Bars {
		if want := chartH * math.Log1p(float64(b.Count)) / math.Log1p(float64(c.Max)); math.Abs(b.H-want) > 1e-9 || b.Y != chartTop+chartH-b.H {
			t.Errorf("bar %s: height %v at %v, want %v", b.Label, b.H, b.Y, want)
		}
		if b.Count > 0 && b.H < 10 {
			t.Errorf("bar %s of %d turns is %v px high", b.Label, b.Count, b.H)
		}
	}
	// p50, p90 and p99 are marked where their values fall on the axis.
	rcm := RecoveryChart(r)
	top := r.RecoveryHistogram[len(r.RecoveryHistogram)-1].Hi
	for i, v := range []float64{r.RecoveryP50, r.RecoveryP90, r.RecoveryP99} {
		m := rcm.Marks[i]
		if want := chartLeft + chartW*v/top; math.Abs(m.X-want) > 1e-9 || m.Bound || !strings.HasPrefix(m.Label, []string{"p50 ", "p90 ", "p99 "}[i]) {
			t.Errorf("mark %+v, want at %v", m, want)
		}
	}
	// The x-axis runs from the first bar's low value to the last bar's
	// high one: its right end once showed the tallest bar's count.
	h := r.RecoveryHistogram
	rc := RecoveryChart(r)
	if wantTo := fmt.Sprintf("%.0f ms", h[len(h)-1].Hi); rc.To != wantTo || rc.From != fmt.Sprintf("%.0f ms", h[0].Lo) || rc.To == fmt.Sprintf("%d ms", rc.Max) {
		t.Errorf("recovery axis from %q to %q, want %q to %q (the tallest bar holds %d)", rc.From, rc.To, fmt.Sprintf("%.0f ms", h[0].Lo), wantTo, rc.Max)
	}
	if last := len(r.Attempts) - 1; c.From != "1" || c.To != fmt.Sprint(last) {
		t.Errorf("attempts axis from %q to %q, want 1 to %d", c.From, c.To, last)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, []Named{{Policy: "default", Report: r}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), ">"+rc.To+"</text>") || strings.Contains(page.String(), ">max ") {
		t.Errorf("the page's recovery axis does not end at %s", rc.To)
	}
	// Figures within a factor of 30: a linear axis up to the largest
	// interval end.
	one, two := mustRun(t, Config{Policy: normal(1), Env: env}, 1, 2000), mustRun(t, Config{Policy: normal(2), Env: env}, 1, 2000)
	s := exhaustionScale([]Named{{Policy: "two retries", Report: two}, {Policy: "one retry", Report: one}}, nil)
	if s.Log || s.Top != one.ExhaustionHi || s.Hi[1] != chartW || s.Dot[0] >= s.Dot[1] {
		t.Errorf("exhaustion scale %+v", s)
	}
	// The default policy's interval is a hundred times lower than one
	// retry's: a log axis by decades, each interval drawn apart from 0
	// (on a linear one it was a dot on zero), the bound where its value is.
	b := mustBound(t, "exhaustion_hi<0.01")
	s = exhaustionScale([]Named{{Policy: "default", Report: r}, {Policy: "one retry", Report: one}}, []Bound{b})
	decade := func(v float64) float64 {
		lo := math.Floor(math.Log10(r.ExhaustionHi))
		return chartW * (math.Log10(v) - lo) / (math.Ceil(math.Log10(one.ExhaustionHi)) - lo)
	}
	if !s.Log || s.Hi[0] <= 0 || math.Abs(s.Hi[1]-decade(one.ExhaustionHi)) > 1e-9 || math.Abs(s.Bounds[0].X-decade(0.01)) > 1e-9 || s.Ticks[0].X != 0 {
		t.Errorf("log exhaustion scale %+v for intervals [%v, %v] and [%v, %v]", s, r.ExhaustionLo, r.ExhaustionHi, one.ExhaustionLo, one.ExhaustionHi)
	}
}

// TestBudgetPageRenders: the page compares policies side by side with
// their parameters, the environment, the bounds' verdicts and the
// incidents over the horizon; it has no script and no network reference,
// and loads in headless Chromium without errors.
func TestBudgetPageRenders(t *testing.T) {
	env := &Environment{HorizonMs: 3 * 3600e3, Arrivals: &Arrivals{PerMinute: 10},
		Failures:  []Failure{{Code: "SERVER", Status: 503, P: 0.2}},
		Incidents: []IncidentKind{{PerHour: 2, ForMs: fixed(30000), Code: "SERVER", Status: 503}}}
	bounds := []Bound{mustBound(t, "exhaustion_hi<0.002"), mustBound(t, "p99_recovery_ms<2000")}
	var reports []Named
	for _, c := range []Named{{Policy: "default", Config: Config{Policy: retry.DefaultPolicy()}}, {Policy: "<one retry>", Config: Config{Policy: normal(1)}}} {
		c.Config.Env = env
		c.Report = mustRun(t, c.Config, 1, 0)
		reports = append(reports, c)
	}
	var b bytes.Buffer
	if err := WritePage(&b, Page{Reports: reports, Env: env, Bounds: bounds, Seed: ptr(uint64(1))}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if strings.Count(html, `class="col policy"`) != 2 || !strings.Contains(html, "&lt;one retry&gt;") || strings.Contains(html, "<script") {
		t.Errorf("want two escaped policy columns and no script")
	}
	page := headless.Check(t, "budget.html", b.Bytes())
	// Each policy's verdict names the bounds it breaks, with the figure,
	// and says why its turns failed.
	for i, want := range [][]string{
		{"✗ default</span> breaks ", ", p99_recovery_ms&lt;2000 (p99_recovery_ms = ", " ms) — ", "hit by an incident; commonest: "},
		{"✗ &lt;one retry&gt;</span> breaks exhaustion_hi&lt;0.002 (exhaustion_hi = 0.0", "exhausted: 1 of 1 retries"},
	} {
		line := page.DOM[strings.Index(page.DOM, fmt.Sprintf(`id="verdict-%d"`, i)):]
		line = line[:strings.Index(line, "</li>")]
		for _, w := range want {
			if !strings.Contains(line, w) {
				t.Errorf("verdict %d lacks %q:\n%s", i, w, line)
			}
		}
	}
	for _, want := range []string{
		"max retries: 5", "max retries: 1", // every policy's parameters
		"SERVER 503, 2 an hour, lasting 30000 ms", "10 a minute (Poisson)", // the environment
		"bound exhaustion_hi&lt;0.002", `class="fail">FAILS`, `class="pass">holds`, // verdicts per bound
		`class="timeline"`, `id="incidents"`, `class="bound"`, // the horizon, its incidents, bounds drawn
		"turns whose first request ran inside an incident", // the cross-checks
		"from seed 0x1;", // the seed, not where it is kept
	} {
		if !strings.Contains(page.DOM, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if n := strings.Count(page.DOM, "<svg"); n != 7 {
		t.Errorf("the rendered page has %d charts, want 7 (the timeline and 3 per policy)", n)
	}
}

func mustBound(t *testing.T, text string) Bound {
	b, err := ParseBound(text)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTimelineChartStaysBounded: a month of incidents every minute draws
// one band a column at most (the page was 3.5 MB of rectangles and table
// rows) and lists the 100 incidents that failed the most turns; an
// incident alone in its columns keeps its own band and title.
func TestTimelineChartStaysBounded(t *testing.T) {
	month := 30 * 24 * 3600e3
	tl := &TimelineReport{HorizonMs: month, Arrived: make([]int, 43200), Failed: make([]int, 43200)}
	for i := range 5000 {
		from := month / 2 * float64(i) / 5000 // the first half, densely
		tl.Incidents = append(tl.Incidents, IncidentReport{Incident: Incident{Source: "incidents[0]", FromMs: from, ToMs: from + 20e3, Code: "SERVER"},
			TurnsHit: 1 + i%7, Failed: i % 7})
	}
	lone := Incident{Source: "outages[0]", FromMs: 0.75 * month, ToMs: 0.75*month + 3*3600e3, Code: "RATE_LIMIT"}
	tl.Incidents = append(tl.Incidents, IncidentReport{Incident: lone, TurnsHit: 3, Carried: 3})
	c := newTimelineChart([]Named{{Policy: "p", Report: Report{Timeline: tl}}})
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
