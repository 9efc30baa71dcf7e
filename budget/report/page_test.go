package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/budget"
	"github.com/turnsim/turnsim/internal/headless"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/sim"
)

// TestBudgetPageRenders: the page compares policies side by side with
// their parameters, the environment, the bounds' verdicts and the
// incidents over the horizon; it has no script and no network reference,
// and loads in headless Chromium without errors.
func TestBudgetPageRenders(t *testing.T) {
	env := &budget.Environment{HorizonMs: 3 * 3600e3, Arrivals: &budget.Arrivals{PerMinute: 10},
		Failures:  []budget.Failure{{Code: "SERVER", Status: 503, P: 0.2}},
		Incidents: []budget.IncidentKind{{PerHour: 2, ForMs: fixed(30000), Code: "SERVER", Status: 503}}}
	bounds := []budget.Bound{mustBound(t, "exhaustion_hi<0.002"), mustBound(t, "p99_recovery_ms<2000")}
	var reports []Named
	for _, c := range []Named{{Policy: "default", Config: budget.Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}}}, {Policy: "<one retry>", Config: budget.Config{Recovery: sim.Recovery{RetryPolicy: normal(1)}}}} {
		c.Config.Env = env
		c.Report = mustRun(t, c.Config, 1, 0)
		reports = append(reports, c)
	}
	var b bytes.Buffer
	if err := WritePage(&b, Page{Reports: reports, Env: env, Bounds: bounds, Seed: new(uint64(1))}); err != nil {
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
