package simrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/turnsim/turnsim/dshview"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/internal/words"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
)

const checkUsage = `usage: simrun check [--view] [--json] [--strict] [--repair] [--dsh-view [--dsh-loop DIR]] PATH…

Reads each session log (v0 or v1; plain or zstd; explicit or implied seq;
DSH's stream-json output), checks it against turnsim's log-level invariants,
and prints one line per file: "ok", each violation, or the read error with
its line number. Folders are walked for *.jsonl and *.jsonl.zstd. The last
line is "N files, V violations, E errors".

A log is read as a stream: memory follows its largest turn, not its length,
and a turn of more than --max-turn-events events is an input error at the
line that passes the bound. SIGINT or SIGTERM stops between events; the
file being read is reported interrupted, the summary is marked
"(interrupted)" (with --json, "interrupted": true) and the status is 130.

With --dsh-view each log is also derived by DSH's own Web view code (its
conversation Definitions, assembler and row renderers, from the install
--dsh-loop names: make dsh-loop), whole, in the tail windows of every turn
with recovery, paged in as the Web UI pages history and appended live; it
is compared with turnsim's view under the rule DSH renders turn errors
by, a difference being a violation (differs-from-dsh-view), and the
rendering invariants are judged on what it derives: a recorded finding
about DSH's view code is printed apart, any other is a violation. A log
of more than 200,000 events is not derived: an error that says so.

Exit status: 0 clean, 1 violations, 2 only input errors or bad usage,
130 interrupted.

flags:
`

// checkResult is the outcome of checking one file.
type checkResult struct {
	File     string `json:"file"`
	Version  int    `json:"version"`
	Events   int    `json:"events"`
	TornTail int    `json:"tornTailLine,omitempty"`
	// Interrupted: a signal stopped the reading; what was read is not
	// judged, since a turn may have been cut.
	Interrupted bool               `json:"interrupted,omitempty"`
	Violations  []oracle.Violation `json:"violations"`
	Error       *readError         `json:"error,omitempty"`
	Nodes       []nodeLine         `json:"nodes,omitempty"`
	// ViewFindings are the recorded findings about DSH's view code the log
	// shows (--dsh-view); DSHView counts what was compared.
	ViewFindings []oracle.Finding `json:"viewFindings,omitempty"`
	DSHView      *dshViewCounts   `json:"dshView,omitempty"`
}

// dshViewCounts say how much of a log DSH's view code derived: the
// snapshots compared and the nodes in them.
type dshViewCounts struct {
	Compared int `json:"compared"`
	Nodes    int `json:"nodes"`
}

type readError struct {
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

type checkOptions struct {
	view, json, strict, repair bool
	// dshView derives each log with DSH's view code too.
	dshView *dshview.Checker
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	var opts checkOptions
	fs := newFlagSet("check", stderr, checkUsage)
	fs.BoolVar(&opts.view, "view", false, "also print the derived Web nodes (turn-error, model-retry) with their labels")
	fs.BoolVar(&opts.json, "json", false, "print one JSON object per file, then a JSON summary object")
	fs.BoolVar(&opts.strict, "strict", false, "treat assistant chunks outside any turn as violations, not as a model-replay script")
	fs.BoolVar(&opts.repair, "repair", false, "close a turn left open at the end of a log with crash repair's synthetic events before checking")
	var dshView bool
	registerView(fs, &dshView)
	var install string
	registerInstall(fs, &install, "with --dsh-view")
	paths, err := parseInterspersed(fs, args)
	if errors.Is(err, errHelp) {
		return exitClean
	}
	if err != nil {
		return exitUsage
	}
	if len(paths) == 0 {
		fmt.Fprint(stderr, "simrun check: no PATH given\n\n")
		fs.Usage()
		return exitUsage
	}
	if dshView {
		checker, pool, err := openView(install, 1)
		if err != nil {
			fmt.Fprintf(stderr, "simrun check: %v\n", err)
			return exitUsage
		}
		defer pool.Close()
		opts.dshView = &checker
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	files, walkErrs := collectLogs(paths)
	var nFiles, nViolations, nErrors int
	var views *viewTotals
	if opts.dshView != nil {
		views = &viewTotals{}
	}
	for _, we := range walkErrs {
		nErrors++
		printCheck(stdout, &checkResult{File: we.path, Error: &readError{Message: we.msg}}, opts)
	}
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		res := checkFile(ctx, f, opts)
		if res.Interrupted {
			printCheck(stdout, res, opts)
			break
		}
		nFiles++
		nViolations += len(res.Violations)
		if res.Error != nil {
			nErrors++
		}
		views.add(res)
		printCheck(stdout, res, opts)
	}
	interrupted := ctx.Err() != nil
	status := finish(stdout, stderr, opts.json, "files", nFiles, nViolations, nErrors, interrupted, views)
	if interrupted {
		fmt.Fprintf(stderr, "simrun check: interrupted after %d of %d files\n", nFiles, len(files))
		return exitInterrupted
	}
	return status
}

// viewTotals add up what DSH's view code derived over the logs of a
// check (--dsh-view): the summary says it was done, and how much, even
// when it found nothing.
type viewTotals struct {
	// Logs derived; snapshots (views) and nodes compared; logs whose
	// derivation differed from turnsim's view.
	Logs      int `json:"logs"`
	Compared  int `json:"compared"`
	Nodes     int `json:"nodes"`
	Differing int `json:"differing"`
	// Findings count the recorded findings by class, in class order.
	Findings []classCount `json:"findings,omitempty"`
}

// classCount is how many turns showed one class of recorded finding.
type classCount struct {
	Class string `json:"class"`
	Turns int    `json:"turns"`
}

// add counts one file's derivation (nothing for a file not derived: one
// that could not be read, or too long).
func (t *viewTotals) add(res *checkResult) {
	if t == nil || res.DSHView == nil {
		return
	}
	t.Logs++
	t.Compared += res.DSHView.Compared
	t.Nodes += res.DSHView.Nodes
	if slices.ContainsFunc(res.Violations, func(v oracle.Violation) bool { return v.Invariant == oracle.DiffersFromDSHView }) {
		t.Differing++
	}
	for _, f := range res.ViewFindings {
		i, found := slices.BinarySearchFunc(t.Findings, f.Class, func(c classCount, class string) int { return strings.Compare(c.Class, class) })
		if !found {
			t.Findings = slices.Insert(t.Findings, i, classCount{Class: f.Class})
		}
		t.Findings[i].Turns++
	}
}

// String is the totals as the summary line ends.
func (t *viewTotals) String() string {
	s := fmt.Sprintf("DSH's view code: %s derived, %d views and %d nodes compared, %d differing", words.Plural(t.Logs, "log"), t.Compared, t.Nodes, t.Differing)
	for _, f := range t.Findings {
		s += fmt.Sprintf("; recorded finding %s in %s", f.Class, words.Plural(f.Turns, "turn"))
	}
	return s
}

// finish prints the last line of check and scenario ("N files, V
// violations, E errors"; with --json, an object on stdout and the line on
// stderr) and returns the exit status: violations first, then bad input.
// An interrupted run's summary says so, as run, explore and budget do: a
// count of what was read before a signal is not a count of the input.
func finish(stdout, stderr io.Writer, asJSON bool, noun string, n, nViolations, nErrors int, interrupted bool, views *viewTotals) int {
	summary := fmt.Sprintf("%d %s, %d violations, %d errors", n, noun, nViolations, nErrors)
	if interrupted {
		summary += " (interrupted)"
	}
	if views != nil {
		summary += "; " + views.String()
	}
	if asJSON {
		fields := map[string]any{noun: n, "violations": nViolations, "errors": nErrors}
		if interrupted {
			// Only when true: an uninterrupted summary keeps its bytes.
			fields["interrupted"] = true
		}
		if views != nil {
			fields["dshView"] = views
		}
		b, _ := json.Marshal(fields)
		fmt.Fprintf(stdout, "%s\n", b)
		fmt.Fprintln(stderr, summary)
	} else {
		fmt.Fprintln(stdout, summary)
	}
	switch {
	case nViolations > 0:
		return exitViolation
	case nErrors > 0:
		return exitUsage
	}
	return exitClean
}

type walkError struct{ path, msg string }

// collectLogs expands folders into their logs, in lexical order; a file
// named explicitly is checked whatever its name.
func collectLogs(paths []string) ([]string, []walkError) {
	var files []string
	var errs []walkError
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			errs = append(errs, walkError{p, describeOSError(err)})
			continue
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, walkError{path, describeOSError(err)})
				return nil
			}
			if !d.IsDir() && isLogName(d.Name()) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			errs = append(errs, walkError{p, describeOSError(err)})
		}
		if len(found) == 0 {
			errs = append(errs, walkError{p, "no *.jsonl or *.jsonl.zstd files in this folder"})
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, errs
}

func isLogName(name string) bool {
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".jsonl.zstd") || strings.HasSuffix(name, ".jsonl.zst")
}

func describeOSError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// checkFile reads one log and checks it as it reads, event by event.
func checkFile(ctx context.Context, path string, opts checkOptions) *checkResult {
	res := &checkResult{File: path, Violations: []oracle.Violation{}}
	rd, err := session.Open(path, session.ReadOptions{Name: path, Repair: opts.repair})
	if err != nil {
		res.Error = asReadError(err)
		return res
	}
	defer rd.Close()
	res.Version = rd.Header().Version
	// The stream's bound on a turn is --max-turn-events (limits.Current).
	st := oracle.NewStream(oracle.Options{Strict: opts.strict})
	var nodes *view.Deriver
	if opts.view {
		nodes = view.NewDeriver()
	}
	// DSH's view code derives the whole log: it is kept, up to the bound
	// beyond which it is not derived.
	var all []session.Event
	tooLong := false
	for {
		// A signal is looked at every 4,096 events: often enough to stop
		// at once, rarely enough to cost nothing.
		if res.Events%4096 == 0 && res.Events > 0 && ctx.Err() != nil {
			res.Interrupted = true
			return res
		}
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			res.TornTail = rd.TornTailLine()
			res.Error = asReadError(err)
			return res
		}
		if err := st.Add(&e); err != nil {
			// A turn longer than the bound: bad input, at the line of
			// the event past it.
			res.Error = &readError{Line: rd.Line(), Message: err.Error()}
			return res
		}
		res.Events++
		if nodes != nil {
			nodes.Add(&e)
		}
		if opts.dshView != nil && !tooLong {
			if tooLong = len(all) == dshview.MaxEvents; tooLong {
				all = nil
			} else {
				all = append(all, e)
			}
		}
	}
	res.TornTail = rd.TornTailLine()
	res.Violations = st.Finish()
	if res.Violations == nil {
		res.Violations = []oracle.Violation{}
	}
	if nodes != nil {
		res.Nodes = nodeLines(nodes.Nodes())
	}
	if opts.dshView != nil {
		if tooLong {
			res.Error = &readError{Message: fmt.Sprintf("not derived by DSH's view code: more than %d events (a page holds 50 messages; derive a shorter log)", dshview.MaxEvents)}
			return res
		}
		cmp, err := opts.dshView.Derive(all)
		if err != nil {
			res.Error = &readError{Message: fmt.Sprintf("DSH's view code could not derive it: %v", err)}
			return res
		}
		vs, found := cmp.Verdict()
		res.Violations = append(res.Violations, vs...)
		res.ViewFindings = found
		res.DSHView = &dshViewCounts{Compared: cmp.Compared, Nodes: cmp.Nodes}
	}
	return res
}

func asReadError(err error) *readError {
	var ie *session.InputError
	if errors.As(err, &ie) {
		return &readError{Line: ie.Line, Message: ie.Msg}
	}
	return &readError{Message: err.Error()}
}

// printCheck prints one file's result.
func printCheck(w io.Writer, res *checkResult, opts checkOptions) {
	if opts.json {
		b, err := json.Marshal(res)
		if err != nil {
			panic(err) // only plain data: a failure is a bug of turnsim
		}
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	switch {
	case res.Interrupted:
		printLine(w, "%s: interrupted after %d events, not judged", res.File, res.Events)
	case res.Error != nil && res.Error.Line > 0:
		printLine(w, "%s:%d: error: %s", res.File, res.Error.Line, res.Error.Message)
	case res.Error != nil:
		printLine(w, "%s: error: %s", res.File, res.Error.Message)
	case len(res.Violations) == 0:
		printLine(w, "%s: ok%s", res.File, tornNote(res))
	default:
		if res.TornTail > 0 {
			printLine(w, "%s: note:%s", res.File, tornNote(res))
		}
		for _, v := range res.Violations {
			printLine(w, "%s: %s", res.File, formatViolation(v))
		}
	}
	for _, f := range res.ViewFindings {
		fmt.Fprintf(w, "  %s\n", viewFindingLine(f))
	}
	for _, n := range res.Nodes {
		fmt.Fprintf(w, "  %s\n", n.text())
	}
}

// printLine prints one line of a text report, made printable
// (strictjson.Printable): a file name found in a folder, an error quoting
// the input, a violation quoting the log may hold an ESC.
func printLine(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "%s\n", strictjson.Printable(fmt.Sprintf(format, args...)))
}

func tornNote(res *checkResult) string {
	if res.TornTail == 0 {
		return ""
	}
	return fmt.Sprintf(" (torn last line %d ignored)", res.TornTail)
}

// formatViolation is "id turn T step S seqs a,b: sentence".
func formatViolation(v oracle.Violation) string { return v.Line() }
