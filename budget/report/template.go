package report

import (
	"fmt"
	"html/template"
	"math"
)

// page is the budget page's template: html/template and a few dozen lines
// of SVG of our own (no charting library earns its dependency for bars).
var page = template.Must(template.New("budget").Funcs(template.FuncMap{
	"ms":    round,
	"share": share,
	"extra": func(a float64) string { return fmt.Sprintf("%+.1f%%", 100*(a-1)) },
	"fig":   figureText,
	"clock": Clock,
	"seed":  func(s *uint64) string { return fmt.Sprintf("%#x", *s) },
	"span":  Span,
	"sqrt":  func(v float64) string { return fmt.Sprintf("%.3g", math.Sqrt(v)) },
	"add":   func(a, b float64) float64 { return a + b },
	"half":  func(a float64) float64 { return a / 2 },
	"left":  func() float64 { return chartLeft },
	"right": func() float64 { return chartLeft + chartW },
	"label": func(m mark) float64 { return 10 + float64(m.Row)*12 },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>turnsim budget</title>
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:20px 0 8px}
.sub{color:#555;margin:0 0 12px}
table{border-collapse:collapse}td,th{padding:3px 10px 3px 0;text-align:left;vertical-align:top}
.compare th{border-bottom:1px solid #ccc}.compare td:first-child{color:#555;white-space:nowrap}
.compare td{border-bottom:1px solid #eee}
.pass{color:#1d6b2f}.fail{color:#b3261e;font-weight:600}
.verdicts{list-style:none;padding:0;margin:8px 0}.verdicts li{margin:2px 0}
.params{margin:0;padding:0;list-style:none;font-size:13px}
.cols{display:grid;gap:16px}
.col{border:1px solid #ddd;border-radius:6px;padding:8px 12px;min-width:0}
.col h3{font-size:14px;margin:0 0 6px;overflow-wrap:anywhere}
figure{margin:8px 0}figcaption{font-size:12px;color:#555}
svg text{font-size:10px;fill:#555}
.bar{fill:#4a78b5}.ci{stroke:#b54a4a;stroke-width:2}.dot{fill:#b54a4a}
.p{stroke:#333;stroke-dasharray:2 2}.bound{stroke:#b3261e;stroke-width:1.5;stroke-dasharray:5 3}
svg text.boundlabel{fill:#b3261e}
.band{fill:#bbb}.band.failed{fill:#e0736b}.lanebar{fill:#b3261e}.arrivebar{fill:#bbb}
.grid{stroke:#eee}
</style></head><body>
<h1>What each policy bought</h1>
<p class="sub">{{len .Reports}} {{if eq (len .Reports) 1}}policy{{else}}policies on the same turns{{end}}{{with (index .Reports 0).Report.Timeline}}, arriving over {{span .HorizonMs}} of virtual time{{else}}, {{(index .Reports 0).Report.Turns}} turns{{if gt (len $.Reports) 1}} each{{end}}{{end}}, {{with .Seed}}from seed {{seed .}}; {{end}}every turn checked by the oracle.</p>
<ul class="verdicts" id="verdicts">
{{range $i, $n := .Reports}}<li id="verdict-{{$i}}">{{if not (index $.Pass $i)}}{{else if $.Bounds}}<span class="pass">✓ {{$n.Policy}}</span> keeps every bound{{else}}<b>{{$n.Policy}}</b>{{end}}{{if index $.Pass $i}}{{else}}<span class="fail">✗ {{$n.Policy}}</span> breaks {{index $.Broken $i}}{{end}}{{with index $.Why $i}} — {{.}}{{end}}</li>
{{end}}</ul>

<table class="compare" id="compare">
<tr><th></th>{{range .Reports}}<th>{{.Policy}}</th>{{end}}</tr>
<tr><td>parameters</td>{{range .Params}}<td><ul class="params">{{range .}}<li>{{.Name}}: {{.Value}}</li>{{end}}</ul></td>{{end}}</tr>
{{range $b, $bound := .Bounds}}<tr class="bound-row"><td>bound {{$bound.String}}</td>{{range $i, $n := $.Reports}}{{with index (index $.Verdicts $i) $b}}<td class="{{if .Holds}}pass{{else}}fail{{end}}">{{if .Holds}}holds{{else}}FAILS{{end}}: {{fig .Bound.Figure .Value}}</td>{{end}}{{end}}</tr>
{{end}}<tr><td>turns</td>{{range .Reports}}<td>{{.Report.Turns}}</td>{{end}}</tr>
<tr><td>completed</td>{{range .Reports}}<td>{{.Report.Completed}}</td>{{end}}</tr>
<tr><td>exhausted (error after retries)</td>{{range .Reports}}<td>{{.Report.Exhausted}}</td>{{end}}</tr>
<tr><td>failed at once (no retry)</td>{{range .Reports}}<td>{{.Report.FailedAtOnce}}</td>{{end}}</tr>
<tr><td>aborted</td>{{range .Reports}}<td>{{.Report.Aborted}}</td>{{end}}</tr>
<tr><td>exhaustion (95% CI)</td>{{range .Reports}}<td>{{share .Report.Exhaustion}} ({{share .Report.ExhaustionLo}} … {{share .Report.ExhaustionHi}}){{with .Report.Timeline}}{{if ge .DesignEffect 1.01}}<br><small>widened {{sqrt .DesignEffect}}× for turns an incident failed together</small>{{end}}{{end}}</td>{{end}}</tr>
<tr><td>why turns failed</td>{{range .Reports}}<td>{{range .Report.Failures}}{{.Turns}} × {{or .Code "-"}}: {{.Why}}<br>{{else}}none failed{{end}}</td>{{end}}</tr>
<tr><td>recovery p50 / p90 / p99 / max</td>{{range .Reports}}<td>{{ms .Report.RecoveryP50}} / {{ms .Report.RecoveryP90}} / {{ms .Report.RecoveryP99}} / {{ms .Report.RecoveryMax}} ms<br><small>over the {{.Report.MetFailure}} turns that met a failure</small></td>{{end}}</tr>
<tr><td>extra requests</td>{{range .Reports}}<td>{{extra .Report.Amplification}} ({{printf "%.3g" .Report.Amplification}} × the fault-free world's)</td>{{end}}</tr>
<tr><td>oracle violations</td>{{range .Reports}}<td>{{len .Report.Violations}}</td>{{end}}</tr>
</table>

{{with .Env}}<h2>The environment</h2>
<table class="env" id="environment">{{range .}}<tr><td>{{.Name}}</td><td>{{.Value}}</td></tr>{{end}}</table>{{end}}

{{with .Timeline}}<h2>Incidents over the horizon, and the turns each policy failed</h2>
<svg class="timeline" width="{{.Width}}" height="{{.Height}}" role="img" aria-label="incidents and failed turns over virtual time">
<text x="0" y="16">incidents</text>
{{with .Arrivals}}<text x="0" y="{{add .Y 24}}">turns arriving</text>
{{range .Bars}}<rect class="arrivebar" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Label}}</title></rect>
{{end}}{{end}}
{{range .Bands}}<rect class="band{{if .Failed}} failed{{end}}" x="{{.X}}" y="4" width="{{.W}}" height="20"{{if lt .Opacity 1.0}} opacity="{{printf "%.2f" .Opacity}}"{{end}}><title>{{.Title}}</title></rect>
{{end}}{{range .Lanes}}<text x="0" y="{{add .Y 24}}">{{.Short}}<title>{{.Policy}}</title></text>
{{range .Bars}}<rect class="lanebar" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Label}}</title></rect>
{{end}}{{end}}{{range .Axis}}<line class="grid" x1="{{.X}}" x2="{{.X}}" y1="0" y2="{{$.Timeline.Height}}"/><text x="{{.X}}" y="{{$.Timeline.Height}}" text-anchor="middle">{{.Label}}</text>
{{end}}</svg>
<p class="sub">Turns in buckets of {{.Bucket}}: arriving (grey, the fullest bucket {{.ArrivalsMax}}), and failed under each policy (red, on one scale for all, the fullest bucket {{.Max}}); a red band is an incident that failed a turn under some policy{{if .Merged}}; where incidents share a column of the band, it is darker the more there are{{end}}. Hover for details.</p>
{{if .Rows}}<table class="compare" id="incidents">
<tr><th>incident</th>{{range $.Reports}}<th>{{.Policy}}: hit, carried, failed, longest recovery</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{clock .FromMs}} {{.Code}}{{if .Status}} {{.Status}}{{end}} for {{span .LengthMs}} ({{.Source}})</td>{{range .Under}}<td>{{.TurnsHit}} hit, {{.Carried}} carried, <span class="{{if .Failed}}fail{{end}}">{{.Failed}} failed</span>{{if .TurnsHit}}, {{ms .LongestRecoveryMs}} ms{{end}}</td>{{end}}</tr>
{{end}}</table>{{with .RowsLeft}}<p class="sub">The {{len $.Timeline.Rows}} incidents that failed the most turns are listed; {{.}} more hit a turn (--json lists every one).</p>{{end}}{{end}}
{{end}}
{{with (index .Reports 0).Report.Timeline}}{{with .Checks}}<h2>Analytic cross-checks</h2>
<table class="compare" id="checks">{{range .}}<tr><td>{{.What}}</td><td>{{share .Observed}} ({{.K}} of {{.N}}; 95% CI {{share .Lo}} … {{share .Hi}})</td><td>analytic {{share .Analytic}}</td><td class="{{if .Holds}}pass{{else}}fail{{end}}">{{if .Holds}}within{{else}}OUTSIDE{{end}}</td></tr>{{end}}</table>{{end}}{{end}}

<h2>Distributions</h2>
<div class="cols" style="grid-template-columns:repeat({{len .Reports}},minmax(0,1fr))">
{{range $i, $n := .Reports}}<section class="col policy" id="policy-{{$i}}">
<h3>{{$n.Policy}}</h3>
<figure><figcaption>exhaustion and its 95% interval, on one {{if $.Scale.Log}}log {{end}}axis for all policies{{if $.Scale.Bounds}}, bounds dashed{{end}}</figcaption>
<svg class="exhaustion" viewBox="0 0 {{add $.Width 30}} 50" width="100%" style="max-width:{{add $.Width 30}}px" role="img" aria-label="exhaustion and its interval">
<g transform="translate(10,0)">{{range $.Scale.Bounds}}<line class="bound" x1="{{.X}}" x2="{{.X}}" y1="12" y2="34"/><text class="boundlabel" x="{{.X}}" y="10" text-anchor="middle">{{.Label}}</text>{{end}}
<line class="ci" x1="{{index $.Scale.Lo $i}}" x2="{{index $.Scale.Hi $i}}" y1="24" y2="24"/>
<circle class="dot" cx="{{index $.Scale.Dot $i}}" cy="24" r="4"/>
{{range $.Scale.Ticks}}<text x="{{.X}}" y="46" text-anchor="{{or .Anchor "middle"}}">{{.Label}}</text>{{end}}</g>
</svg></figure>
{{template "chart" index $.Recovery $i}}
{{template "chart" index $.Attempts $i}}
</section>
{{end}}</div>
</body></html>
{{define "chart"}}<figure><figcaption>{{.Title}}</figcaption>
<svg viewBox="0 0 {{.Width}} {{.Height}}" width="100%" style="max-width:{{.Width}}px" role="img" aria-label="{{.Title}}">
{{range .Ticks}}<line class="grid" x1="{{left}}" x2="{{right}}" y1="{{.Y}}" y2="{{.Y}}"/><text x="{{add left -4}}" y="{{.Y}}" text-anchor="end">{{.Label}}</text>
{{end}}{{range .Bars}}<rect class="bar" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Label}}: {{.Count}}</title></rect>
{{end}}{{range .Marks}}<line class="{{if .Bound}}bound{{else}}p{{end}}" x1="{{.X}}" x2="{{.X}}" y1="{{add (label .) 2}}" y2="202"/><text{{if .Bound}} class="boundlabel"{{end}} x="{{.X}}" y="{{label .}}" text-anchor="{{.Anchor}}">{{.Label}}</text>
{{end}}{{if .Labelled}}{{range .Bars}}<text x="{{add .X (half .W)}}" y="{{add $.Height -8}}" text-anchor="middle">{{.Label}}</text>
{{end}}{{else}}<text x="{{left}}" y="{{.Height}}">{{.From}}</text>
<text x="{{.Width}}" y="{{.Height}}" text-anchor="end">{{.To}}</text>{{end}}
</svg>{{range .Beyond}}<br><small class="boundlabel">{{.}}</small>{{end}}</figure>{{end}}`))
