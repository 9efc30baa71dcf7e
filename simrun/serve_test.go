package simrun

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/turnsim/turnsim/serve"
	"github.com/turnsim/turnsim/sim"
)

// syncBuffer is stderr for a server that runs while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeStopsWhenItsLogFails: --log aimed where writes fail for real
// (the kernel's error, not a fake) gets an error naming the file and the
// error on the first line it cannot write, that request answered 500,
// and exit 2 without a signal (issue #22 L3: serve answered 200, left the
// log at 0 bytes, printed nothing and exited 0).
func TestServeStopsWhenItsLogFails(t *testing.T) {
	for _, row := range []struct {
		why string
		// log makes the path to log to, and returns what to do once the
		// server has opened it; skip says why it cannot be made here.
		log  func(t *testing.T, dir string) (path string, opened func(), skip string)
		oops string
	}{
		{"a full device of our own (the numbers of /dev/full): ENOSPC, as on a full filesystem", func(t *testing.T, dir string) (string, func(), string) {
			// Never a system device: one of our own in a temporary folder,
			// which only root may make.
			p := filepath.Join(dir, "full")
			if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|7); err != nil {
				return "", nil, "no device of our own: " + err.Error()
			}
			return p, func() {}, ""
		}, "no space left on device"},
		{"a named pipe whose reader went away: EPIPE, for any user", func(t *testing.T, dir string) (string, func(), string) {
			p := filepath.Join(dir, "pipe")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				return "", nil, "no named pipes here: " + err.Error()
			}
			// A reader, so that serve's open does not wait for one;
			// closed once serve has opened its end.
			reader, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { reader.Close() })
			return p, func() { reader.Close() }, ""
		}, "broken pipe"},
	} {
		t.Run(row.why, func(t *testing.T) {
			path, opened, skip := row.log(t, t.TempDir())
			if skip != "" {
				t.Skip(skip)
			}
			s, err := sim.ParseScenario([]byte(`{"name":"x","requests":[{"text":"first"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			out, stdout := io.Pipe()
			var stderr syncBuffer
			status := make(chan int, 1)
			go func() { status <- serveUntil(ctx, s, "127.0.0.1:0", path, serve.DefaultBodyTimeout, stdout, &stderr) }()
			first, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || !strings.HasPrefix(first, "serving x on http://") {
				t.Fatalf("first line %q, %v; stderr %s", first, err, stderr.String())
			}
			opened()

			resp, err := http.Post(strings.TrimSpace(strings.TrimPrefix(first, "serving x on "))+"/chat/completions", "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), row.oops) {
				t.Errorf("the request whose line failed: %d %s, want 500 and %q", resp.StatusCode, body, row.oops)
			}
			select {
			case got := <-status:
				want := "simrun serve: --log " + path + ": line 1 could not be written: " + row.oops + "; stopped serving\n"
				if got != exitUsage || stderr.String() != want {
					t.Errorf("exit %d, stderr %q; want 2 and %q", got, stderr.String(), want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("serve went on after its log failed; stderr %q", stderr.String())
			}
		})
	}
}

// TestServeRefusesALogOverItsScenario: --log is appended to, so one on
// the scenario's own file would append request lines to the scenario.
func TestServeRefusesALogOverItsScenario(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "s.json")
	os.WriteFile(scenario, []byte(`{"name":"x"}`), 0o644)
	os.Symlink(scenario, filepath.Join(dir, "log.jsonl"))
	for _, log := range []string{scenario, filepath.Join(dir, "log.jsonl")} {
		status, _, errOut := simrun("serve", "--scenario", scenario, "--log", log)
		if status != exitUsage || !strings.Contains(errOut, "the same file as the --scenario") {
			t.Errorf("--log %s: status %d, %q", log, status, errOut)
		}
	}
	if b, _ := os.ReadFile(scenario); string(b) != `{"name":"x"}` {
		t.Errorf("the scenario now reads %q", b)
	}
}

// TestServeRefusesAPipeNoOneReads: a named pipe no process reads, or a
// socket, given as --log is refused at once (the open of a pipe with no
// reader waited forever, deaf to SIGINT and SIGTERM).
func TestServeRefusesAPipeNoOneReads(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "s.json")
	os.WriteFile(scenario, []byte(`{"name":"x"}`), 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var status int
	var errOut string
	go func() {
		status, _, errOut = simrun("serve", "--scenario", scenario, "--log", fifo)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve waited for a reader of its log")
	}
	if status != exitUsage || !strings.Contains(errOut, "a named pipe no process reads") {
		t.Errorf("status %d, %q", status, errOut)
	}
}

// TestServeLogEndsAnUnendedLine: a log whose last line has no newline (a
// run killed mid-write) gets one before the first appended line, which
// was once glued to it; a log that ends its lines, or is empty, is
// appended to as it is.
func TestServeLogEndsAnUnendedLine(t *testing.T) {
	for _, tt := range []struct{ why, before, want string }{
		{"an unended line is ended", `{"a":1}`, "{\"a\":1}\n{\"b\":2}\n"},
		{"an ended line is left", "{\"a\":1}\n", "{\"a\":1}\n{\"b\":2}\n"},
		{"an empty log gains no blank line", "", "{\"b\":2}\n"},
	} {
		path := filepath.Join(t.TempDir(), "requests.jsonl")
		if err := os.WriteFile(path, []byte(tt.before), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := openLog(path)
		if err != nil {
			t.Fatalf("%s: %v", tt.why, err)
		}
		if _, err := f.WriteString("{\"b\":2}\n"); err != nil {
			t.Fatal(err)
		}
		f.Close()
		got, _ := os.ReadFile(path)
		if string(got) != tt.want {
			t.Errorf("%s: the log reads %q, want %q", tt.why, got, tt.want)
		}
	}
}
