package budget

import (
	"fmt"
	"html/template"
	"io"
	"strings"
)

// Named is a report with the policy's name, for the page.
type Named struct {
	Policy string
	Report Report
}

// Bar is one bar of a chart, as drawn.
type Bar struct {
	Label      string
	Count      int
	X, Y, W, H float64
}

// Chart is a bar chart's data and geometry, before any SVG: tests check it.
type Chart struct {
	Title         string
	Width, Height float64
	Bars          []Bar
	// Max is the tallest bar's count; From and To are the x-axis's ends,
	// the first bar's low value and the last bar's high one (the right
	// end once showed Max, read as the largest value).
	Max      int
	From, To string
}

// chartTop is the room above the bars for the count of the tallest one.
const chartW, chartH, chartPad, chartTop = 360.0, 160.0, 24.0, 16.0

// newChart lays out bars side by side, heights proportional to counts.
func newChart(title string, labels []string, counts []int) Chart {
	c := Chart{Title: title, Width: chartW, Height: chartTop + chartH + chartPad}
	for _, n := range counts {
		c.Max = max(c.Max, n)
	}
	if len(counts) == 0 {
		return c
	}
	w := chartW / float64(len(counts))
	for i, n := range counts {
		h := 0.0
		if c.Max > 0 {
			h = chartH * float64(n) / float64(c.Max)
		}
		c.Bars = append(c.Bars, Bar{Label: labels[i], Count: n, X: float64(i) * w, Y: chartTop + chartH - h, W: w * 0.9, H: h})
	}
	return c
}

// RecoveryChart is the histogram of recovery times.
func RecoveryChart(r Report) Chart {
	var labels []string
	var counts []int
	for _, b := range r.RecoveryHistogram {
		labels = append(labels, fmt.Sprintf("%.0f–%.0f ms", b.Lo, b.Hi))
		counts = append(counts, b.Count)
	}
	c := newChart("recovery time (turns with a failure)", labels, counts)
	if h := r.RecoveryHistogram; len(h) > 0 {
		c.From, c.To = fmt.Sprintf("%.0f ms", h[0].Lo), fmt.Sprintf("%.0f ms", h[len(h)-1].Hi)
	}
	return c
}

// AttemptsChart is the distribution of attempts per turn.
func AttemptsChart(r Report) Chart {
	var labels []string
	var counts []int
	for n, c := range r.Attempts {
		if n == 0 {
			continue
		}
		labels = append(labels, fmt.Sprintf("%d", n))
		counts = append(counts, c)
	}
	c := newChart("attempts per turn", labels, counts)
	if len(labels) > 0 {
		c.From, c.To = labels[0], labels[len(labels)-1]
	}
	return c
}

// ExhaustionScale places every policy's exhaustion and its interval on one
// axis, so side-by-side policies compare at a glance.
type ExhaustionScale struct {
	Top         float64 // the axis' end: the largest interval end
	Dot, Lo, Hi []float64
}

func exhaustionScale(reports []Named) ExhaustionScale {
	var s ExhaustionScale
	for _, n := range reports {
		s.Top = max(s.Top, n.Report.ExhaustionHi)
	}
	if s.Top == 0 {
		s.Top = 1
	}
	for _, n := range reports {
		s.Dot = append(s.Dot, chartW*n.Report.Exhaustion/s.Top)
		s.Lo = append(s.Lo, chartW*n.Report.ExhaustionLo/s.Top)
		s.Hi = append(s.Hi, chartW*n.Report.ExhaustionHi/s.Top)
	}
	return s
}

var page = template.Must(template.New("budget").Funcs(template.FuncMap{
	"f": func(v float64) string { return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", v), "0"), ".") },
	// ms is a time in whole milliseconds: virtual time's nanoseconds
	// mean nothing to a reader of recovery times.
	"ms": func(v float64) string { return fmt.Sprintf("%.0f", v) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>turnsim budget</title>
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222}
.policies{display:flex;gap:32px;flex-wrap:wrap}
.policy{border:1px solid #ddd;border-radius:6px;padding:12px 16px}
h2{font-size:16px;margin:0 0 8px}
table{border-collapse:collapse;margin-bottom:8px}td{padding:1px 8px 1px 0}
svg text{font-size:10px;fill:#555}
.bar{fill:#4a78b5}.ci{stroke:#b54a4a;stroke-width:2}.dot{fill:#b54a4a}
</style></head><body>
<h1>What each policy bought</h1>
<p>{{len .Reports}} {{if eq (len .Reports) 1}}policy{{else}}policies, on the same seeds{{end}}.</p>
<div class="policies">
{{range $i, $n := .Reports}}{{with $n.Report}}
<section class="policy" id="policy-{{$i}}">
<h2>{{$n.Policy}}</h2>
<table>
<tr><td>turns</td><td>{{.Turns}}</td></tr>
<tr><td>completed</td><td>{{.Completed}}</td></tr>
<tr><td>exhausted</td><td>{{.Exhausted}}</td></tr>
<tr><td>failed at once</td><td>{{.FailedAtOnce}}</td></tr>
<tr><td>aborted</td><td>{{.Aborted}}</td></tr>
<tr><td>exhaustion</td><td>{{f .Exhaustion}} (95% CI {{f .ExhaustionLo}} … {{f .ExhaustionHi}})</td></tr>
<tr><td>recovery ms</td><td>p50 {{ms .RecoveryP50}}, p90 {{ms .RecoveryP90}}, p99 {{ms .RecoveryP99}}, max {{ms .RecoveryMax}}</td></tr>
{{range $i, $f := .Failures}}<tr><td>{{if eq $i 0}}why turns failed{{end}}</td><td>{{$f.Turns}} × {{or $f.Code "-"}}: {{$f.Why}}</td></tr>
{{end}}<tr><td>amplification</td><td>{{f .Amplification}} requests per turn</td></tr>
<tr><td>violations</td><td>{{len .Violations}}</td></tr>
</table>
<svg class="exhaustion" width="{{$.Width}}" height="30" role="img" aria-label="exhaustion and its interval">
<line class="ci" x1="{{index $.Scale.Lo $i}}" x2="{{index $.Scale.Hi $i}}" y1="12" y2="12"/>
<circle class="dot" cx="{{index $.Scale.Dot $i}}" cy="12" r="4"/>
<text x="0" y="28">0</text><text x="{{$.Width}}" y="28" text-anchor="end">{{f $.Scale.Top}}</text>
</svg>
{{template "chart" index $.Recovery $i}}
{{template "chart" index $.Attempts $i}}
</section>
{{end}}{{end}}
</div>
</body></html>
{{define "chart"}}<figure><figcaption>{{.Title}}</figcaption>
<svg width="{{.Width}}" height="{{.Height}}" role="img" aria-label="{{.Title}}">
{{range .Bars}}<rect class="bar" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Label}}: {{.Count}}</title></rect>
{{end}}<text x="0" y="{{.Height}}">{{.From}}</text>
<text x="{{.Width}}" y="{{.Height}}" text-anchor="end">{{.To}}</text>
<text x="0" y="12">tallest bar: {{.Max}} turns</text>
</svg></figure>{{end}}`))

// WriteHTML writes one self-contained page (no scripts, no network) with
// every policy's figures, its exhaustion interval on an axis shared by all
// of them, and histograms of recovery time and attempts per turn.
func WriteHTML(w io.Writer, reports []Named) error {
	data := struct {
		Reports            []Named
		Scale              ExhaustionScale
		Recovery, Attempts []Chart
		Width              float64
	}{Reports: reports, Scale: exhaustionScale(reports), Width: chartW}
	for _, n := range reports {
		data.Recovery = append(data.Recovery, RecoveryChart(n.Report))
		data.Attempts = append(data.Attempts, AttemptsChart(n.Report))
	}
	return page.Execute(w, data)
}
