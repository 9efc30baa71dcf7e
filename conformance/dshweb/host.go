// Package dshweb drives a real DSH web host (`dsh web`) the way its own
// Web UI does: sessions are created, prompted, steered and cancelled over
// its HTTP API (POST /api/<method>), and their log events are read from
// its WebSocket event stream (/api/events.mux). It knows nothing of
// scenarios; package conformance puts a scenario through it.
//
// What was observed of the API is in ../shared/DSH-REAL.md ("The web
// host"); what this package relies on:
//
//   - the host prints "dsh web: http://127.0.0.1:PORT" on stdout once it
//     listens;
//   - a call's answer is always HTTP 200 with {"type":"server-response",
//     "result":{"ok":true,"value":…}} or {"ok":false,"error":{…}};
//   - the event stream is downlink only (a client message closes it) and
//     carries every session's events, each frame naming its session; it
//     has no replay, so it is opened before the first prompt.
package dshweb

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Command is how to start a host: the Node binary, DSH's bin.js and the
// profile overlay, in a working folder, with an environment of its own.
type Command struct {
	Node    string
	BinJS   string
	Overlay string
	// Dir is the host's working folder (its sessions' cwd).
	Dir string
	// Env is the whole environment (nothing is inherited).
	Env []string
	// Output receives the host's stdout and stderr (may be nil).
	Output io.Writer
}

// Host is a running `dsh web`.
type Host struct {
	// URL is the host's address, http://127.0.0.1:PORT.
	URL    string
	cmd    *exec.Cmd
	client *http.Client
	exited chan struct{}
	rpc    rpcCounter
}

var listening = regexp.MustCompile(`dsh web: (http://127\.0\.0\.1:\d+)`)

// Start starts a host and waits until it listens (or ctx ends).
func Start(ctx context.Context, c Command) (*Host, error) {
	cmd := exec.Command(c.Node, c.BinJS, "web", "--patch", c.Overlay, "--no-open", "--port", "0", "--host", "127.0.0.1")
	cmd.Dir, cmd.Env = c.Dir, c.Env
	// Its own process group, so that Close reaches every child it starts
	// (tool processes included).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	out := c.Output
	if out == nil {
		out = io.Discard
	}
	out = &lockedWriter{w: out}
	cmd.Stderr = out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("dsh web did not start: %w", err)
	}
	h := &Host{cmd: cmd, client: &http.Client{}, exited: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		// Copy stdout to the output, noticing the listening line.
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(out, line)
			if m := listening.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		io.Copy(out, stdout)
	}()
	go func() {
		cmd.Wait()
		close(h.exited)
	}()
	select {
	case h.URL = <-found:
		return h, nil
	case <-h.exited:
		return nil, fmt.Errorf("dsh web exited before it listened (%v)", cmd.ProcessState)
	case <-ctx.Done():
		h.Close()
		return nil, fmt.Errorf("dsh web did not listen in time: %w", context.Cause(ctx))
	}
}

// Attach is a host that is already running at url (started by hand, or
// a stand-in in a test): Close leaves it running.
func Attach(url string) *Host {
	return &Host{URL: url, client: &http.Client{}, exited: make(chan struct{})}
}

// Close stops the host: SIGTERM to its process group, SIGKILL after two
// seconds.
func (h *Host) Close() error {
	if h.cmd == nil || h.cmd.Process == nil {
		return nil
	}
	pgid := -h.cmd.Process.Pid
	syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-h.exited:
	case <-time.After(2 * time.Second):
		syscall.Kill(pgid, syscall.SIGKILL)
		<-h.exited
	}
	return nil
}

// Exited is closed when the host process has exited.
func (h *Host) Exited() <-chan struct{} { return h.exited }

// lockedWriter serializes the host's stdout copy and its stderr.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Environment is the environment a host needs beside PATH: its home (DSH
// writes sessions and profiles under DSH_HOME), a placeholder API key, and
// telemetry off.
func Environment(path, home string) []string {
	return []string{"PATH=" + path, "HOME=" + home, "DSH_HOME=" + home,
		"DEEPSEEK_API_KEY=sk-conformance", "DSH_TELEMETRY_DISABLED=1"}
}

// ErrExited is returned by calls after the host died.
var ErrExited = errors.New("dsh web exited")

// PathWithNode puts the Node binary's folder first on a minimal PATH.
func PathWithNode(node string) string {
	dir := node[:max(strings.LastIndex(node, string(os.PathSeparator)), 0)]
	return dir + ":/usr/local/bin:/usr/bin:/bin"
}
