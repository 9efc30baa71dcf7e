package dshview

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/turnsim/turnsim/internal/nodeproc"
	"github.com/turnsim/turnsim/loop/session"
)

// evaluatorJS is the evaluator (evaluator.mjs), written into the install
// folder before it starts: Node resolves DSH's packages from the folder a
// module is in, and the evaluator that runs is always this build's.
//
//go:embed evaluator.mjs
var evaluatorJS []byte

// EvaluatorFile is the evaluator's name in an install folder.
const EvaluatorFile = "turnsim-view.mjs"

// Packages are what the evaluator loads from an install, beside cordis:
// DSH's two view bundles (pinned in dshloop/package.json with the loop's
// packages, so that make dsh-loop installs both) and the React that
// renders the rows.
var Packages = []string{
	"@deepseek-ai/dsh-client-ui-conversation",
	"@deepseek-ai/dsh-client-runtime",
	"react",
	"react-dom",
}

// Check says what the install folder dir lacks for the evaluator, or nil.
func Check(dir string) error {
	if pkg := nodeproc.MissingPackage(dir, Packages...); pkg != "" {
		return fmt.Errorf("%s: no %s in node_modules: not an install of DSH's view packages (make dsh-loop installs them beside its loop packages)", dir, pkg)
	}
	return nil
}

// Ready is what the evaluator says when it has recognised the bundles.
type Ready struct {
	// Runtime and Conversation are the bundle files it loaded.
	Runtime      string `json:"runtime"`
	Conversation string `json:"conversation"`
	// Definitions are the conversation Definitions the plugin registered
	// (kinds), Renderers the Chat node renderers (keys).
	Definitions []string `json:"definitions"`
	Renderers   []string `json:"renderers"`
}

// Evaluator is one evaluator process: logs go in one at a time.
type Evaluator struct {
	proc  *nodeproc.Process
	next  int64
	Ready Ready
	buf   bytes.Buffer
}

// Start starts an evaluator over the install folder dir. An install
// whose bundles it does not recognise is an error naming the file.
func Start(dir string) (*Evaluator, error) {
	if err := Check(dir); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir) // it runs in the folder
	if err != nil {
		return nil, err
	}
	proc, err := nodeproc.Start(nodeproc.Program{Name: "DSH's view evaluator", Node: nodeproc.NodeOf(abs), Dir: abs, File: EvaluatorFile, Source: evaluatorJS})
	if err != nil {
		return nil, err
	}
	line, err := proc.ReadLine()
	if err != nil {
		return nil, err
	}
	var hello struct {
		Ready *Ready `json:"ready"`
		Fatal string `json:"fatal"`
	}
	if err := json.Unmarshal(line, &hello); err != nil || hello.Ready == nil {
		proc.Break()
		proc.Close()
		if hello.Fatal != "" {
			return nil, fmt.Errorf("DSH's view code: %s", hello.Fatal)
		}
		return nil, fmt.Errorf("DSH's view evaluator began with %q, not its ready line", nodeproc.FirstLines(string(line), 3))
	}
	return &Evaluator{proc: proc, Ready: *hello.Ready}, nil
}

// request is the line before a log's events.
type request struct {
	ID     int64      `json:"id"`
	Events int        `json:"events"`
	Views  []wireView `json:"views"`
	Live   []int      `json:"live"`
}

type wireView struct {
	Steps [][2]int `json:"steps"`
	Rows  bool     `json:"rows,omitempty"`
}

// reply is the evaluator's answer to one log.
type reply struct {
	ID    int64        `json:"id"`
	Error string       `json:"error"`
	Views []ViewAnswer `json:"views"`
	// Live is the checkpoints' snapshots and the flushes that threw, or
	// the error DSH's view code threw while the log was appended.
	Live struct {
		Snapshots []Snapshot `json:"snapshots"`
		Throws    []Throw    `json:"throws"`
		Error     string     `json:"error"`
	} `json:"live"`
}

// Envelope is the log's id and the evaluator's error (nodeproc.Reply).
func (r *reply) Envelope() (int64, string) { return r.ID, r.Error }

// Evaluate derives the log's views with DSH's view code.
func (e *Evaluator) Evaluate(events []session.Event, q Query) (*Answer, error) {
	e.next++
	req := request{ID: e.next, Views: make([]wireView, len(q.Views)), Live: q.Live}
	if req.Live == nil {
		req.Live = []int{}
	}
	for i, v := range q.Views {
		req.Views[i] = wireView{Steps: v.Steps, Rows: v.Rows}
		for _, s := range v.Steps {
			req.Events = max(req.Events, s[1])
		}
	}
	if n := len(q.Live); n > 0 {
		req.Events = max(req.Events, q.Live[n-1])
	}
	if req.Events > len(events) {
		return nil, fmt.Errorf("a view of events up to %d of a log of %d", req.Events, len(events))
	}
	b := &e.buf
	b.Reset()
	head, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	b.Write(head)
	b.WriteByte('\n')
	for i := range events[:req.Events] {
		if err := events[i].WriteLine(b); err != nil {
			return nil, err
		}
	}
	var r reply
	if err := e.proc.Call(b.Bytes(), req.ID, "log", &r); err != nil {
		return nil, err
	}
	if len(r.Views) != len(q.Views) {
		return nil, fmt.Errorf("DSH's view evaluator answered %d views of %d", len(r.Views), len(q.Views))
	}
	a := &Answer{Views: r.Views, Live: r.Live.Snapshots, Throws: r.Live.Throws, LiveError: r.Live.Error}
	if a.LiveError == "" && len(a.Live) != len(q.Live) {
		return nil, fmt.Errorf("DSH's view evaluator answered %d live checkpoints of %d", len(a.Live), len(q.Live))
	}
	return a, nil
}

// Dead reports whether the evaluator exited or answered out of step.
func (e *Evaluator) Dead() bool { return e.proc.Dead() }

// Close stops the evaluator.
func (e *Evaluator) Close() error { return e.proc.Close() }

// Pool is evaluators for checks side by side (-j N).
type Pool struct {
	*nodeproc.Pool[*Evaluator]
	// Dir is the install folder the evaluators run over.
	Dir string
}

// NewPool is a pool of at most n evaluators over the install folder
// dir, started as checks need them. The first is started at once, so
// that an install the evaluator cannot use is said before anything runs.
func NewPool(dir string, n int) (*Pool, error) {
	first, err := Start(dir) // it checks the install first
	if err != nil {
		return nil, err
	}
	p := &Pool{Dir: dir, Pool: nodeproc.NewPool(func() (*Evaluator, error) { return Start(dir) }, n)}
	p.Add(first)
	return p, nil
}

// Evaluate derives a log's views on a free evaluator.
func (p *Pool) Evaluate(events []session.Event, q Query) (a *Answer, err error) {
	err = p.Use(func(e *Evaluator) error {
		a, err = e.Evaluate(events, q)
		return err
	})
	return a, err
}
