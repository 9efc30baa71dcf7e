package timeline

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
)

// Run is what a run's page shows: its events with their exact virtual
// times, the world's marks, the model requests, the derived view nodes and
// the oracle's violations.
type Run struct {
	Title  string
	Events []session.Event
	// TimeNs is each event's virtual time in nanoseconds, by index.
	TimeNs   []int64
	Marks    []Mark
	Requests []Request
	Nodes    []string
	// Violations are the oracle's, as sentences with witness seqs.
	Violations []Violation
}

// Request is a model request: when it was sent, for which attempt, and the
// seq of the event it came before.
type Request struct {
	Seq                 int64
	TimeMs              float64
	Turn, Step, Attempt int
}

// Violation is one invariant's finding, for the page.
type Violation struct {
	Invariant, Message string
	Seqs               []int64
}

// Span is a bar on the chart: a lane, a stretch of virtual time, a kind for
// its colour and a label.
type Span struct {
	Lane         string
	FromMs, ToMs float64
	Kind, Label  string
	// Tag is drawn on the chart: a failed attempt's code, an action.
	Tag      string
	FirstSeq int64
}

// Lanes are the chart's rows, top to bottom.
var Lanes = []string{"turns", "attempts", "waits", "world"}

// Spans lays a run out over virtual time: each turn, each attempt from its
// request to its finish (ok, or failed with its code, or cut by a cancel),
// each backoff wait from its llm/retry to its llm/retry-started (or to the
// step's end when it was cancelled), and each world action as an instant.
func Spans(r Run) []Span {
	at := func(i int) float64 { return eventMs(r, i) }
	var out []Span
	turnFrom := map[int]float64{}
	for i := range r.Events {
		switch p := r.Events[i].Data.(type) {
		case *session.TurnStart:
			turnFrom[p.Turn] = at(i)
		case *session.TurnEnd:
			out = append(out, Span{Lane: "turns", FromMs: turnFrom[p.Turn], ToMs: at(i), Kind: p.Reason.Kind,
				Label: fmt.Sprintf("turn %d %s", p.Turn, p.Reason.Kind), FirstSeq: r.Events[i].Seq})
		case *session.LLMRetry:
			end, kind := waitEnd(r, i, p)
			to := at(len(r.Events) - 1)
			if end >= 0 {
				to = at(end)
			}
			out = append(out, Span{Lane: "waits", FromMs: at(i), ToMs: to, Kind: kind,
				Label: fmt.Sprintf("retry %d, %.0f ms", p.Retry, p.DelayMs), FirstSeq: r.Events[i].Seq})
		}
	}
	for _, q := range r.Requests {
		end, kind, label := attemptEnd(r, q)
		to := q.TimeMs
		if end >= 0 {
			to = at(end)
		}
		tag := ""
		if kind == "failed" {
			tag = label
		}
		out = append(out, Span{Lane: "attempts", FromMs: q.TimeMs, ToMs: to, Kind: kind, Tag: tag,
			Label: fmt.Sprintf("t%d s%d attempt %d: %s", q.Turn, q.Step, q.Attempt, label), FirstSeq: q.Seq})
	}
	for _, m := range r.Marks {
		tag, _, _ := strings.Cut(m.Text, " ")
		out = append(out, Span{Lane: "world", FromMs: m.TimeMs, ToMs: m.TimeMs, Kind: "action", Label: m.Text, Tag: tag, FirstSeq: m.Seq})
	}
	slices.SortStableFunc(out, func(a, b Span) int { return slices.Index(Lanes, a.Lane) - slices.Index(Lanes, b.Lane) })
	return out
}

// waitEnd is the index of the event that ends a backoff wait and how it
// ended: its llm/retry-started, or the end of its step (cancelled).
func waitEnd(r Run, i int, p *session.LLMRetry) (int, string) {
	for j := i + 1; j < len(r.Events); j++ {
		switch q := r.Events[j].Data.(type) {
		case *session.LLMRetryStarted:
			if q.RetryID == p.RetryID && q.Retry == p.Retry {
				return j, "wait"
			}
		case *session.StepEnd:
			if q.Turn == p.Turn && q.Step == p.Step {
				return j, "cancelled"
			}
		}
	}
	return -1, "cancelled"
}

// attemptEnd is the index of an attempt's finish chunk, and its outcome.
func attemptEnd(r Run, q Request) (int, string, string) {
	for j := int(q.Seq); j < len(r.Events); j++ {
		switch p := r.Events[j].Data.(type) {
		case *session.AssistantChunk:
			if p.Turn == q.Turn && p.Step == q.Step && p.Chunk.Type == session.ChunkFinish {
				if p.Chunk.Failed() {
					return j, "failed", p.Chunk.Reason.Failure.Code
				}
				return j, "ok", p.Chunk.Reason.Kind
			}
		case *session.StepEnd:
			if p.Turn == q.Turn && p.Step == q.Step {
				return j, "cut", "cut by a cancel"
			}
		}
	}
	return -1, "cut", "cut"
}

// Chart is the spans placed on an SVG canvas.
type Chart struct {
	Width, Height, TopMs float64
	Lanes                []LaneRow
	Bars                 []PlacedSpan
}

// LaneRow is a lane's name and row.
type LaneRow struct {
	Name string
	Y    float64
}

// PlacedSpan is a span with its geometry, and the short tag drawn on it:
// a failed attempt's code, a world action's name.
type PlacedSpan struct {
	Span
	X, Y, W float64
	Tag     string
}

const (
	chartWidth = 1000.0
	laneHeight = 28.0
	labelWidth = 70.0
	tagRoom    = 80.0
)

// Place puts spans on the canvas: x proportional to virtual time, one row
// per lane, an instant drawn 2 px wide.
func Place(spans []Span) Chart {
	// Room on the right for the tag of a bar at the end of the run.
	c := Chart{Width: labelWidth + chartWidth + tagRoom, Height: laneHeight*float64(len(Lanes)) + 20}
	for _, s := range spans {
		c.TopMs = max(c.TopMs, s.ToMs)
	}
	scale := chartWidth / max(c.TopMs, 1)
	for i, l := range Lanes {
		c.Lanes = append(c.Lanes, LaneRow{l, float64(i) * laneHeight})
	}
	// A tag is drawn only where it does not run into the lane's previous
	// one (failed attempts a few ms apart once printed "SESERVERSERVER");
	// a bar whose tag is left out keeps it in its title.
	tagEnd := make([]float64, len(Lanes))
	for _, s := range spans {
		lane := slices.Index(Lanes, s.Lane)
		y := float64(lane) * laneHeight
		x := labelWidth + s.FromMs*scale
		tag := s.Tag
		if tag != "" {
			if x < tagEnd[lane] {
				tag = ""
			} else {
				tagEnd[lane] = x + tagWidth(tag)
			}
		}
		c.Bars = append(c.Bars, PlacedSpan{Span: s, X: x, Y: y + 4, W: max((s.ToMs-s.FromMs)*scale, 2), Tag: tag})
	}
	return c
}

// tagWidth is how wide a tag is drawn: 10 px text, about 6.5 px a
// character, after its 3 px offset and with a little room.
func tagWidth(tag string) float64 { return 3 + 6.5*float64(len(tag)) + 4 }

var runPage = template.Must(template.New("run").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Run.Title}}</title>
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222}
svg text{font-size:11px;fill:#444}svg text.tag{font-size:10px;fill:#111;paint-order:stroke;stroke:#fff;stroke-width:3px}
.ok,.completed,.wait{fill:#5a9a5a}.failed,.error{fill:#c0504d}.cut,.cancelled,.aborted{fill:#d9a13b}
.action{fill:#6b4fb5}.max-tokens{fill:#7aa0c8}
table{border-collapse:collapse}td,th{padding:1px 10px 1px 0;text-align:left;vertical-align:top}
tr.witness td{background:#fde2e1;font-weight:600}
.violation{color:#a11}
</style></head><body>
<h1>{{.Run.Title}}</h1>
<h2>Timeline over virtual time (0 … {{printf "%.1f" .Chart.TopMs}} ms)</h2>
<svg width="{{.Chart.Width}}" height="{{.Chart.Height}}" role="img" aria-label="timeline">
{{range .Chart.Lanes}}<text x="0" y="{{.Y}}" dy="18">{{.Name}}</text>
{{end}}{{range .Chart.Bars}}<rect class="{{.Kind}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="20"><title>{{.Label}} ({{printf "%.1f" .FromMs}}–{{printf "%.1f" .ToMs}} ms, seq {{.FirstSeq}})</title></rect>
{{end}}{{range .Chart.Bars}}{{if .Tag}}<text class="tag" x="{{.X}}" y="{{.Y}}" dx="3" dy="14">{{.Tag}}</text>
{{end}}{{end}}</svg>
<h2>View nodes</h2>
{{if .Run.Nodes}}<ul>{{range .Run.Nodes}}<li>{{.}}</li>{{end}}</ul>{{else}}<p>none</p>{{end}}
<h2>Violations</h2>
{{if .Run.Violations}}<ul>{{range .Run.Violations}}<li class="violation"><b>{{.Invariant}}</b>: {{.Message}} (seqs {{.Seqs}})</li>{{end}}</ul>{{else}}<p>none</p>{{end}}
<h2>Events</h2>
<table><tr><th>seq</th><th>ms</th><th>type</th><th></th></tr>
{{range .Rows}}<tr{{if .Witness}} class="witness"{{end}} id="seq-{{.Seq}}"><td>{{.Seq}}</td><td>{{printf "%.3f" .Ms}}</td><td>{{.Type}}</td><td>{{.Details}}</td></tr>
{{end}}</table>
</body></html>`))

// Row is one event in the page's table.
type Row struct {
	Seq     int64
	Ms      float64
	Type    string
	Details string
	Witness bool
}

// WriteHTML writes a run's page: the chart, the view nodes, the violations
// and every event, the violations' witnesses highlighted. Self-contained:
// no script, no network.
func WriteHTML(w io.Writer, r Run) error {
	witness := map[int64]bool{}
	for _, v := range r.Violations {
		for _, s := range v.Seqs {
			witness[s] = true
		}
	}
	var rows []Row
	for i := range r.Events {
		e := &r.Events[i]
		rows = append(rows, Row{Seq: e.Seq, Ms: eventMs(r, i), Type: e.Type(), Details: details(e), Witness: witness[e.Seq]})
	}
	return runPage.Execute(w, struct {
		Run   Run
		Chart Chart
		Rows  []Row
	}{r, Place(Spans(r)), rows})
}

// eventMs is event i's virtual time: exact from TimeNs, else its log time
// from the first event's.
func eventMs(r Run, i int) float64 {
	if i < len(r.TimeNs) {
		return float64(r.TimeNs[i]) / 1e6
	}
	return float64(r.Events[i].Time - r.Events[0].Time)
}
