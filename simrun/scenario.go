package simrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/timeline"
)

const scenarioUsage = `usage: simrun scenario [--trace OUT] [--view] [--json] [--quiet] [--mutant NAME]
                       [--sut model|dsh|both] [--dsh-loop DIR] [--dsh-view] [--findings] FILE…

Runs each scenario file in the deterministic world, prints its timeline
(virtual ms, turn/step, seq, event, details; world actions marked »), checks
the log against the oracle, and ends with "N scenarios, V violations, E errors".
With --trace the v1 session log is written: to OUT for one scenario, or as
OUT/<name>.jsonl for several or when OUT is a folder.

With --sut dsh each scenario runs on DSH's own loop in-process (in DSH's
terms: see 'simrun run -h'), with --sut both on it and the model, their
skeletons compared. A field DSH's composition cannot enact is an error
that names it. With --findings each scenario is a recorded finding about
DSH and must reproduce one: one that does not is a failure.

With --dsh-view every log is also derived by DSH's own Web view code (see
'simrun run -h'): a difference from turnsim's view is a violation
(differs-from-dsh-view); the recorded findings about DSH's view code it
shows are printed apart.

Exit status: 0 clean, 1 violations, 2 bad scenario files or usage, 3 an internal
error.

flags:
`

// scenarioResult is one scenario's outcome, as --json prints it.
type scenarioResult struct {
	File       string             `json:"file"`
	Name       string             `json:"name,omitempty"`
	Events     int                `json:"events"`
	Requests   int                `json:"requests"`
	Stopped    string             `json:"stopped,omitempty"`
	Warnings   []string           `json:"warnings,omitempty"`
	Trace      string             `json:"trace,omitempty"`
	Violations []oracle.Violation `json:"violations"`
	// Findings are the recorded findings about DSH the run reproduced;
	// ViewFindings those about DSH's view code its logs show.
	Findings     []string         `json:"findings,omitempty"`
	ViewFindings []oracle.Finding `json:"viewFindings,omitempty"`
	Error        string           `json:"error,omitempty"`
	Nodes        []nodeLine       `json:"nodes,omitempty"`
}

func runScenario(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("scenario", stderr, scenarioUsage)
	trace := fs.String("trace", "", "write the v1 session log: a file for one scenario, a folder for several")
	showView := fs.Bool("view", false, "also print the derived Web nodes")
	asJSON := fs.Bool("json", false, "print one JSON object per scenario, then a JSON summary object")
	quiet := fs.Bool("quiet", false, "leave out the timelines")
	mutant := fs.String("mutant", "", "run against a mutant of the system under test (a mutant corpus entry's scenario)")
	findings := fs.Bool("findings", false, "each scenario FINDING.json is a recorded finding about DSH (its loop's with --sut dsh or both, its view code's with --dsh-view): it must reproduce that finding")
	sf := seedFlags{jobs: 1}
	registerSUT(fs, &sf.sut, &sf.dshLoop)
	registerView(fs, &sf.dshView)
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, errHelp) {
		return exitClean
	}
	if err != nil {
		return exitUsage
	}
	if len(files) == 0 {
		fmt.Fprint(stderr, "simrun scenario: no FILE given\n\n")
		fs.Usage()
		return exitUsage
	}
	sf.mutant = *mutant
	_, opts, err := sf.resolve()
	if err == nil && *findings && opts.System == nil && opts.ViewCheck == nil {
		err = errors.New("--findings: the recorded findings are about DSH: give --sut dsh or both (its loop's), or --dsh-view (its view code's)")
	}
	if err != nil {
		fmt.Fprintf(stderr, "simrun scenario: %v\n", err)
		return exitUsage
	}
	defer sf.close()
	// OUT names a folder for several scenarios, and for one when it is
	// an existing folder: writing the log over a folder cannot be meant.
	intoFolder := len(files) > 1
	if fi, err := os.Stat(*trace); *trace != "" && err == nil && fi.IsDir() {
		intoFolder = true
	}
	if !intoFolder {
		if err := checkOutputs(files, output{"--trace", *trace}); err != nil {
			fmt.Fprintf(stderr, "simrun scenario: %v\n", err)
			return exitUsage
		}
	}
	var nViolations, nErrors int
	written := map[string]string{} // a log written into the folder → its scenario file
	for _, file := range files {
		res := scenarioFile(file, *trace, intoFolder, files, written, *showView, !*asJSON && !*quiet, stdout, opts)
		// A finding's scenario is named by its finding (FINDING.json): that
		// one must reproduce, not any other.
		if want := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)); *findings && res.Error == "" && !slices.Contains(res.shown(), want) {
			res.Violations = append(res.Violations, oracle.Violation{Message: fmt.Sprintf("the recorded finding %s did not reproduce (findings shown: %v): it is gone (fixed?) or has changed; look at it", want, res.shown())})
		}
		nViolations += len(res.Violations)
		if res.Error != "" {
			nErrors++
		}
		if *asJSON {
			b, _ := json.Marshal(res)
			fmt.Fprintf(stdout, "%s\n", b)
		} else {
			printScenarioResult(stdout, res)
		}
	}
	return finish(stdout, stderr, *asJSON, "scenarios", len(files), nViolations, nErrors, false, nil)
}

// shown are the recorded findings the run showed: DSH's loop's, and the
// classes of DSH's view code's.
func (r *scenarioResult) shown() []string {
	shown := slices.Clone(r.Findings)
	for _, f := range r.ViewFindings {
		if !slices.Contains(shown, f.Class) {
			shown = append(shown, f.Class)
		}
	}
	return shown
}

func scenarioFile(file, trace string, several bool, inputs []string, written map[string]string, showView, showTimeline bool, out io.Writer, opts sim.Options) *scenarioResult {
	res := &scenarioResult{File: file, Violations: []oracle.Violation{}}
	s, err := sim.LoadScenario(file)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Name = s.Name
	if err := s.CheckPlugged(opts.Listeners); err != nil {
		res.Error = err.Error()
		return res
	}
	if p, ok := opts.System.(faults.Planner); ok {
		s = p.Plan(s) // in the system's terms, as a seed's plan is
	}
	run, vs := judge.Check(s, opts)
	if run.Refused != "" {
		res.Error = fmt.Sprintf("%s cannot enact it: %s", systemWords(run.System), run.Refused)
		return res
	}
	res.Events, res.Requests, res.Stopped, res.Warnings = len(run.Events), len(run.Requests), run.Stopped, run.Warnings
	res.Violations, res.Findings, res.ViewFindings = vs, run.Findings, run.ViewFindings
	if res.Violations == nil {
		res.Violations = []oracle.Violation{}
	}
	if showView {
		res.Nodes = nodeLines(opts.View()(run.Events))
	}
	if showTimeline {
		printLine(out, "== %s (%s)", s.Name, file)
		timeline.RenderRun(out, run)
	}
	if trace != "" {
		path := trace
		if several {
			// A name is read from a file, and a file may come from
			// anywhere (a CI artifact): it is one element of a path.
			path = filepath.Join(trace, safeName(s.Name)+".jsonl")
			if other, taken := written[path]; taken {
				res.Error = fmt.Sprintf("its log %s would replace the one of %s: their names %q make the same file name; rename one", path, other, s.Name)
				return res
			}
			written[path] = file
			if err := checkOutputs(inputs, output{"its log", path}); err != nil {
				res.Error = err.Error() // the log would replace a scenario given to this run
				return res
			}
		}
		if err := writeTrace(path, run); err != nil {
			res.Error = err.Error()
			return res
		}
		res.Trace = path
	}
	return res
}

// writeTrace writes the log atomically: a temporary file, then a rename.
func writeTrace(path string, run *sim.Result) error {
	return writeAtomically(path, func(w io.Writer) error { return session.WriteLog(w, run.Header, run.Events) })
}

// writeAtomically writes a file whole or not at all (atomicfile), making
// its folder first.
func writeAtomically(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteWith(path, write)
}

// printScenarioResult prints one scenario's outcome, every line made
// printable (printLine): a scenario's codes, names and messages reach
// its warnings, violations and nodes.
func printScenarioResult(w io.Writer, res *scenarioResult) {
	name := res.File
	switch {
	case res.Error != "":
		printLine(w, "%s: error: %s", name, res.Error)
		return
	case len(res.Violations) == 0:
		printLine(w, "%s: ok (%d events, %d requests)%s", name, res.Events, res.Requests, stoppedNote(res.Stopped))
	default:
		for _, v := range res.Violations {
			printLine(w, "%s: %s", name, formatViolation(v))
		}
	}
	for _, f := range res.Findings {
		printLine(w, "  recorded finding about DSH reproduced: %s (not a new failure)", f)
	}
	for _, f := range res.ViewFindings {
		fmt.Fprintf(w, "  %s\n", viewFindingLine(f))
	}
	for _, warning := range res.Warnings {
		// What the loop and its listeners log as a warning, as DSH's do
		// (a listener that threw, a compaction that failed), or an input
		// the loop refused: the scenario's to provoke, not a failure.
		printLine(w, "  logged (not a failure): %s", warning)
	}
	for _, n := range res.Nodes {
		fmt.Fprintf(w, "  %s\n", n.text())
	}
	if res.Trace != "" {
		printLine(w, "  log written to %s", res.Trace)
	}
}

func stoppedNote(s string) string {
	if s == "" {
		return ""
	}
	return " — " + strings.TrimSpace(s)
}
