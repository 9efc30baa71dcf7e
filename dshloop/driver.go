package dshloop

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/turnsim/turnsim/internal/nodeproc"
)

// driverJS is the driver program (driver.mjs), written into the install
// folder before it starts: Node resolves DSH's packages from the folder a
// module is in, and the driver that runs is always this build's.
//
//go:embed driver.mjs
var driverJS []byte

// DriverFile is the driver's name in an install folder.
const DriverFile = "turnsim-driver.mjs"

// Install is a folder holding DSH's packages for the driver
// (node_modules, from package.json and pnpm-lock.yaml: make dsh-loop) and
// the Node that runs them (tools/). A copy of it in which a package's lib/
// is a DSH maintainer's own build is what runs: the driver imports the
// packages from it, whatever they hold.
type Install string

// DefaultInstall is where make dsh-loop installs.
const DefaultInstall = ".cache/dsh-loop"

// Found is the install DSH_LOOP names (as scripts/dsh-loop.sh reads it),
// else the default one under root (a repository's top folder), checked:
// the tests that run DSH's loop skip with its error.
func Found(root string) (Install, error) {
	dir := os.Getenv("DSH_LOOP")
	if dir == "" {
		dir = filepath.Join(root, DefaultInstall)
	}
	i := Install(dir)
	if err := i.Check(); err != nil {
		return "", fmt.Errorf("no install of DSH's loop packages (%v): make it with scripts/dsh-loop.sh --install-only", err)
	}
	return i, nil
}

// Node is the install's Node (22, from npm), or node on PATH.
func (i Install) Node() string { return nodeproc.NodeOf(string(i)) }

// Check says what is missing from the install, or nil.
func (i Install) Check() error {
	pkg := nodeproc.MissingPackage(string(i), "@deepseek-ai/dsh-agent-loop", "@deepseek-ai/dsh-llm-retry", "@deepseek-ai/dsh-compaction-basic", "@deepseek-ai/dsh-llm-deepseek")
	if pkg != "" {
		return fmt.Errorf("%s: no %s in node_modules: not an install of DSH's loop packages (make dsh-loop installs one)", i, pkg)
	}
	return nil
}

// Driver is one driver process: plans go in one at a time.
type Driver struct {
	proc *nodeproc.Process
	next int64
}

// Start starts a driver over the install.
func Start(i Install) (*Driver, error) {
	if err := i.Check(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(string(i)) // the driver runs in the folder
	if err != nil {
		return nil, err
	}
	i = Install(abs)
	proc, err := nodeproc.Start(nodeproc.Program{Name: "DSH's loop driver", Node: i.Node(), Dir: string(i), File: DriverFile, Source: driverJS})
	if err != nil {
		return nil, err
	}
	return &Driver{proc: proc}, nil
}

// Envelope is the plan's id and the driver's error (nodeproc.Reply).
func (o *Output) Envelope() (int64, string) { return o.ID, o.Error }

// Output is what the driver returns for a plan.
type Output struct {
	ID      int64       `json:"id"`
	Log     string      `json:"log"`
	Facts   driverFacts `json:"facts"`
	Stopped string      `json:"stopped"`
	Unfired []string    `json:"unfired"`
	Error   string      `json:"error"`
}

type driverFacts struct {
	Panic string `json:"panic"`
	// EventTimesUs are the events' exact virtual times, in microseconds.
	EventTimesUs []int64 `json:"eventTimesUs"`
	Requests     []struct {
		Seq      int64   `json:"seq"`
		Order    int64   `json:"order"`
		Turn     int     `json:"turn"`
		Step     int     `json:"step"`
		Attempt  int     `json:"attempt"`
		TimeMs   float64 `json:"timeMs"`
		Messages []int64 `json:"messages"`
	} `json:"requests"`
	Actions []struct {
		Seq     int64   `json:"seq"`
		Order   int64   `json:"order"`
		TimeMs  float64 `json:"timeMs"`
		TimeUs  int64   `json:"timeUs"`
		Field   string  `json:"field"`
		Turn    int     `json:"turn"`
		Refused string  `json:"refused"`
	} `json:"actions"`
	Decisions []struct {
		Seq      int64  `json:"seq"`
		Turn     int    `json:"turn"`
		Step     int    `json:"step"`
		Listener string `json:"listener"`
		Retry    bool   `json:"retry"`
		Threw    bool   `json:"threw"`
	} `json:"decisions"`
	Waterfalls []struct {
		Seq   int64 `json:"seq"`
		Order int64 `json:"order"`
		Retry bool  `json:"retry"`
		Threw bool  `json:"threw"`
	} `json:"waterfalls"`
	Inputs []struct {
		ID      string `json:"id"`
		Refused bool   `json:"refused"`
	} `json:"inputs"`
	Summaries         int      `json:"summaries"`
	Statuses          []string `json:"statuses"`
	Warnings          []string `json:"warnings"`
	IdleAfterDisposal int64    `json:"idleAfterDisposal"`
	Disposed          bool     `json:"disposed"`
}

// Run runs one plan.
func (d *Driver) Run(p *Plan) (*Output, error) {
	d.next++
	p.ID = d.next
	line, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var out Output
	if err := d.proc.Call(append(line, '\n'), p.ID, "plan", &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Dead reports whether the driver exited or answered out of step.
func (d *Driver) Dead() bool { return d.proc.Dead() }

// Close stops the driver: its input ends, and it exits after the plan it
// is on (a plan that never settles is killed after a while).
func (d *Driver) Close() error { return d.proc.Close() }

// Pool is drivers for runs side by side (-j N): each run takes a free one.
type Pool struct{ *nodeproc.Pool[*Driver] }

// NewPool is a pool of at most n drivers over the install, started as
// runs need them.
func NewPool(i Install, n int) (*Pool, error) {
	if err := i.Check(); err != nil {
		return nil, err
	}
	return &Pool{nodeproc.NewPool(func() (*Driver, error) { return Start(i) }, n)}, nil
}

// Run runs a plan on a free driver, starting one if none is free and the
// pool has room. A driver that fails is replaced.
func (p *Pool) Run(plan *Plan) (out *Output, err error) {
	err = p.Use(func(d *Driver) error {
		out, err = d.Run(plan)
		return err
	})
	return out, err
}
