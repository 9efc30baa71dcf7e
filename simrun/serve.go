package simrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/serve"
	"github.com/turnsim/turnsim/sim"
)

const serveUsage = `usage: simrun serve --scenario FILE [--listen 127.0.0.1:PORT] [--log requests.jsonl]
                    [--body-timeout D] [--max-body-bytes N]

A fake DeepSeek provider on loopback: POST /chat/completions answers the
scenario's requests in order with OpenAI-style server-sent events, and
compaction summaries (header x-deepseek-harness-compact: 1) from its
summaries; each failure code is produced the way DSH's adapter derives it.
A request whose body is not one JSON object is answered 400, a body over
--max-body-bytes 413, a body slower than --body-timeout 408; none of them
takes an answer from the scenario.
A body of up to 256 KiB never waits for another, however slowly that one
arrives; bigger ones share 4 buffers (503 if none is free within
--body-timeout). A request whose client went away
before its answer was taken takes none.
The first line printed is "serving NAME on http://ADDRESS". Stops cleanly
on SIGINT or SIGTERM (exit 0); stops at the first line --log cannot write,
with the file and the error on stderr (exit 2), that request answered 500.

flags:
`

func runServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", stderr, serveUsage)
	file := fs.String("scenario", "", "the scenario file (required)")
	listen := fs.String("listen", "127.0.0.1:0", "the loopback address to listen on (port 0 picks a free one)")
	logPath := fs.String("log", "", "append one JSON line per request received (headers without credentials, a body up to 1 MiB)")
	bodyTimeout := fs.Duration("body-timeout", serve.DefaultBodyTimeout, "the longest a request body may take to arrive")
	rest, err := parseInterspersed(fs, args)
	if errors.Is(err, errHelp) {
		return exitClean
	}
	if err != nil {
		return exitUsage
	}
	if *bodyTimeout <= 0 {
		fmt.Fprintf(stderr, "simrun serve: --body-timeout %v: must be positive\n", *bodyTimeout)
		return exitUsage
	}
	if *file == "" || len(rest) > 0 {
		fmt.Fprint(stderr, "simrun serve: give one --scenario FILE and no other arguments\n\n")
		fs.Usage()
		return exitUsage
	}
	if *logPath != "" && samePath(*logPath, *file) {
		// The log is appended to (a pipe or a device is a stream it may
		// be), so this one check of checkOutputs is the one it needs.
		fmt.Fprintf(stderr, "simrun serve: --log %s: the same file as the --scenario %s: the log would be appended to it\n", *logPath, *file)
		return exitUsage
	}
	s, err := sim.LoadScenario(*file)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", *file, err)
		return exitUsage
	}
	host, _, err := net.SplitHostPort(*listen)
	if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
		fmt.Fprintf(stderr, "simrun serve: --listen %s: only loopback addresses are served (127.0.0.0/8, ::1, localhost)\n", *listen)
		return exitUsage
	}
	for _, p := range serve.Check(s) {
		fmt.Fprintf(stderr, "%s: warning: %s\n", *file, p)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveUntil(ctx, s, *listen, *logPath, *bodyTimeout, stdout, stderr)
}

// serveUntil serves until ctx is done, or until a line of the request
// log cannot be written: then it stops, because the log is the run's
// record (conformance reads it as what the provider received) and one
// that lost a line must not pass for a clean one. That request, and any
// in flight, are answered 500 with the reason; the next find nothing
// listening.
func serveUntil(ctx context.Context, s *sim.Scenario, listen, logPath string, bodyTimeout time.Duration, stdout, stderr io.Writer) (status int) {
	srv := serve.New(s)
	srv.BodyTimeout = bodyTimeout
	if logPath != "" {
		f, err := openLog(logPath)
		if err != nil {
			fmt.Fprintf(stderr, "simrun serve: --log %s: %v\n", logPath, osError(err))
			return exitUsage
		}
		defer func() {
			if err := f.Close(); err != nil && status == exitClean {
				fmt.Fprintf(stderr, "simrun serve: --log %s: %v\n", logPath, osError(err))
				status = exitUsage
			}
		}()
		srv.Log = f
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		fmt.Fprintf(stderr, "simrun serve: %v\n", err)
		return exitUsage
	}
	httpServer := srv.HTTPServer()
	fmt.Fprintf(stdout, "serving %s on http://%s\n", strictjson.Printable(s.Name), ln.Addr())
	if f, ok := stdout.(interface{ Sync() error }); ok {
		f.Sync()
	}
	done := make(chan error, 1)
	go func() { done <- httpServer.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "simrun serve: %v\n", err)
		return exitInternal
	case <-srv.Failed():
		var logErr *serve.LogError
		errors.As(srv.Err(), &logErr)
		fmt.Fprintf(stderr, "simrun serve: --log %s: line %d could not be written: %v; stopped serving\n", logPath, logErr.Line, osError(logErr.Err))
		status = exitUsage
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if httpServer.Shutdown(shutdown) != nil {
		httpServer.Close() // stalled streams are cut at the deadline
	}
	return status
}

// osError is an error without the path that a message names already
// ("write requests.jsonl: no space left on device" → "no space left on
// device").
func osError(err error) error {
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	return err
}

// openLog opens --log to append to, without waiting: a named pipe no
// process reads held the open forever, deaf to SIGINT. A pipe that is read
// is written to as a stream, each write waiting for its reader as a
// shell's does.
func openLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0o644)
	if errors.Is(err, syscall.ENXIO) {
		switch info, _ := os.Stat(path); {
		case info != nil && info.Mode()&fs.ModeNamedPipe != 0:
			return nil, errors.New("a named pipe no process reads: nothing would receive the log")
		case info != nil && info.Mode()&fs.ModeSocket != 0:
			return nil, errors.New("a socket: the log is appended to a file or a pipe")
		}
	}
	if err != nil {
		return nil, err
	}
	f.Fd() // back to blocking writes (Fd leaves the file in blocking mode)
	if err := endLine(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// endLine ends a log file's last line, when it does not end with one (a
// run killed mid-write, a hand edit): appended lines were glued to it,
// and the JSONL reader refused the lot as one bad line.
func endLine(f *os.File) error {
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
		return nil // a pipe, or nothing to end
	}
	r, err := os.Open(f.Name())
	if err != nil {
		return err
	}
	defer r.Close()
	last := make([]byte, 1)
	if _, err := r.ReadAt(last, info.Size()-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	_, err = f.Write([]byte{'\n'})
	return err
}
