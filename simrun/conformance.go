package simrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/turnsim/turnsim/internal/atomicfile"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/sim"
)

const conformanceUsage = `usage: simrun conformance --dsh DIR [--keep DIR] [--timeout D] [--show] [--findings]
           [--render [--dsh-view [--dsh-loop DIR]]] FILE…
       simrun conformance --from DIR [--show] [--findings] [--dsh-view [--dsh-loop DIR]] FILE…
       simrun conformance --dsh DIR --seeds N [--start S] [-j N] [--out DIR] [--keep DIR]
           [--shrink-runs N] [--shrink-time D] [--mutant NAME]

Runs each scenario against the real DSH (installed under DIR, .cache/dsh,
by 'make conformance') and against turnsim's model, and compares them.
DSH runs as its web host ('dsh web') inside 'unshare -n -m' with only
loopback up and its working folder mounted at /mnt, against 'simrun
serve' answering from the scenario; a driver
creates a session, sends the scenario's prompts, follow-ups and steers and
makes its cancels over the host's HTTP API, each at its trigger as the
host's event stream shows it. For each scenario it checks both logs with
the oracle and compares the two skeletons (every turn's recovery, inbox
and messages, where each cancel landed, what each model request carried),
printing differences as (-dsh +turnsim). The last line is
"N scenarios, A agree, D differ, E errors".

--keep DIR keeps each run in DIR/<scenario name>/ (seeded plans in
DIR/dsh-seed-0x…/): dsh-session.jsonl (DSH's log: 'simrun check' it),
drive.json (what the driver applied, and where it landed), requests.jsonl
(what the provider received), scenario.json, overlay.yml, dsh-web.log and
DSH's home; --from DIR compares with those without running DSH.

With --seeds, plans are drawn from the generators of 'simrun run',
restricted to what the wire and the web API can express (the fault kinds
of the wire, the web host's cancel, no inject, jitter 0), and inputs and
cancels whose landing in DSH would not be certain are dropped; each plan
runs on both sides, a difference is shrunk against DSH (bounded by
--shrink-runs and --shrink-time) and written under --out with its
reproduction line. Seeds are printed in hexadecimal; --start takes decimal
or 0x…. Each plan's "for DSH:" lines say what putting it on the wire
changed (an input or cancel dropped as uncertain, an inject dropped, no
policy made DSH's default). The last line is "N plans, A agree, D differ,
E errors".

With --findings, each FILE is a known finding about DSH (its log breaks an
invariant that the model's log of the same scenario holds); the last line
is "N findings, R reproduced, G gone, E errors".

--mutant NAME runs the model side as a mutant of the zoo: what the
comparison with DSH catches of a wrong model.

Exit status: 0 all agree (or every finding reproduced), 1 a difference or
a violation (or a finding gone), 2 errors (a scenario DSH cannot express,
a failed DSH run) or bad usage, 130 a seeded batch interrupted.

flags:
`

func runConformance(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("conformance", stderr, conformanceUsage)
	dsh := fs.String("dsh", "", "the folder 'make conformance' installed DSH into (.cache/dsh)")
	keep := fs.String("keep", "", "keep each run's files (overlay, DSH's log, the drive, requests) under this folder")
	timeout := fs.Duration("timeout", 90*time.Second, "the longest one DSH run may take")
	show := fs.Bool("show", false, "print each agreeing scenario's skeleton (what was compared)")
	from := fs.String("from", "", "compare with the DSH runs kept under this folder by an earlier --keep, without running DSH")
	render := fs.Bool("render", false, "also open each session in DSH's own Web UI (headless Chromium) and hold what it shows to turnsim's view and to the rendering invariants; observe actions read it while the session runs")
	findings := fs.Bool("findings", false, "each FILE reproduces a known finding about DSH (its log breaks an invariant the model's holds): report which still do")
	var sr seedRun
	seeds := fs.Uint64("seeds", 0, "instead of FILEs, run this many seeded plans (simrun run's generators, restricted to the wire and the web API)")
	startSeed := fs.String("start", "1", "the first seed of --seeds")
	fs.StringVar(&sr.out, "out", "conformance-failures", "with --seeds: where differences (shrunk) and findings are written as scenarios")
	fs.IntVar(&sr.jobs, "j", 1, "with --seeds: how many plans run against DSH at once (each is mostly waiting)")
	fs.IntVar(&sr.shrinkRuns, "shrink-runs", 40, "with --seeds: the most DSH runs shrinking one difference may take")
	fs.DurationVar(&sr.shrinkTime, "shrink-time", 5*time.Minute, "with --seeds: the longest shrinking one difference may take")
	mutant := fs.String("mutant", "", "run the model side as a mutant of the zoo: what the comparison with DSH catches of a wrong model ("+fmt.Sprint(mutants.Names())+")")
	dshView := fs.Bool("dsh-view", false, "with --render (or --from a rendered run): also hold the rows DSH's Web UI showed to the rows DSH's own view code draws in Node from the same log, at the end and at each live look (the install --dsh-loop names)")
	var viewInstall string
	registerInstall(fs, &viewInstall, "with --dsh-view")
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, errHelp) {
		return exitClean
	}
	if err != nil {
		return exitUsage
	}
	if (*dsh == "") == (*from == "") || (len(files) == 0) == (*seeds == 0) || (*seeds > 0 && (*from != "" || *findings)) {
		fmt.Fprint(stderr, "simrun conformance: give --dsh DIR (or --from DIR) and FILEs, or --dsh DIR and --seeds N\n\n")
		fs.Usage()
		return exitUsage
	}
	if *seeds > 0 {
		start, err := parseSeed(*startSeed)
		if err != nil {
			fmt.Fprintf(stderr, "simrun conformance: --start %s: %v\n", *startSeed, err)
			return exitUsage
		}
		if err := checkJobs(sr.jobs); err != nil {
			fmt.Fprintf(stderr, "simrun conformance: %v\n", err)
			return exitUsage
		}
		sr.seeds, sr.start = *seeds, start
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "simrun conformance: %v\n", err)
		return exitInternal
	}
	if *from == "" {
		if _, ok := needRealDSH("conformance", stderr); !ok {
			return exitUsage
		}
	}
	r := &conformRunner{self: self, dsh: *dsh, keep: *keep, from: *from, timeout: *timeout}
	if *render && *from == "" {
		if realDSH.Chromium() == "" {
			fmt.Fprintln(stderr, "conformance --render: SKIPPED (no Chromium on PATH: apt-get install -y chromium); comparing logs only")
		} else {
			r.render = true
		}
	}
	if *mutant != "" {
		m, ok := mutants.Find(*mutant)
		if !ok {
			fmt.Fprintf(stderr, "simrun conformance: --mutant: unknown mutant %q (known: %v)\n", *mutant, mutants.Names())
			return exitUsage
		}
		r.model, r.mutant = m.Options, m.Name
	}
	if *dshView {
		checker, pool, err := openView(viewInstall, 1)
		if err != nil {
			fmt.Fprintf(stderr, "simrun conformance: %v\n", err)
			return exitUsage
		}
		defer pool.Close()
		r.model.ViewCheck = checker // Compare draws the rows with it (conformance.RowDrawer)
	}
	if *findings {
		return r.reproduce(files, stdout, stderr)
	}
	if sr.seeds > 0 {
		return r.runSeeds(sr, stdout, stderr)
	}
	var agree, differ, errs int
	var differed, failed []string // the files that differed, and that could not run
	var ui uiTally
	start := time.Now()
	for _, file := range files {
		s, err := sim.LoadScenario(file)
		if err != nil {
			errs++
			failed = append(failed, file)
			fmt.Fprintf(stdout, "%s: error: %v\n", file, err)
			continue
		}
		c, took, err := r.run(s)
		switch {
		case err != nil:
			errs++
			failed = append(failed, file)
			fmt.Fprintf(stdout, "%s: error: %s\n", file, err)
		case !c.Agree():
			differ++
			differed = append(differed, file)
			fmt.Fprintf(stdout, "%s: differ\n", file)
			printDifference(stdout, c)
		default:
			agree++
			ran := fmt.Sprintf(", DSH %.1fs", took.Seconds())
			if r.from != "" {
				ran = ", DSH's run kept"
			}
			fmt.Fprintf(stdout, "%s: agree (%d skeleton lines, %d requests%s)\n", file, c.Lines, len(c.DSH.Requests)+c.DSH.Summaries, ran)
			if *show {
				fmt.Fprint(stdout, indent(conformance.Join(c.DSH.Lines())))
			}
		}
		if c != nil {
			for _, n := range nodeLines(view.Derive(c.DSH.Events)) {
				fmt.Fprintf(stdout, "  %s\n", n.text())
			}
			ui.add(c, stdout)
		}
	}
	fmt.Fprintf(stderr, "conformance: %d scenarios in %.1fs\n", len(files), time.Since(start).Seconds())
	ui.summary(stdout)
	// The last lines name what failed: a long batch's differences are
	// screens above.
	listFiles(stdout, "differ", differed)
	listFiles(stdout, "could not run", failed)
	fmt.Fprintf(stdout, "%d scenarios, %d agree, %d differ, %d errors\n", len(files), agree, differ, errs)
	return batchStatus(differ, errs)
}

// listFiles prints "LABEL: a.json, b.json" for a batch's last lines, when
// there are any.
func listFiles(w io.Writer, label string, files []string) {
	if len(files) > 0 {
		fmt.Fprintf(w, "%s: %s\n", label, strings.Join(files, ", "))
	}
}

// batchStatus is a batch's exit status: a failure (a difference, a finding
// gone) before an error.
func batchStatus(failed, errs int) int {
	switch {
	case failed > 0:
		return exitViolation
	case errs > 0:
		return exitUsage
	}
	return exitClean
}

// reproduce runs known findings about DSH: each must still be one.
func (r *conformRunner) reproduce(files []string, stdout, stderr io.Writer) int {
	var reproduced, gone, errs int
	var goneFiles, failed []string
	start := time.Now()
	for _, file := range files {
		s, err := sim.LoadScenario(file)
		var c *conformance.Comparison
		if err == nil {
			c, _, err = r.run(s)
		}
		switch {
		case err != nil:
			errs++
			failed = append(failed, file)
			fmt.Fprintf(stdout, "%s: error: %v\n", file, err)
		case c.Finding():
			reproduced++
			fmt.Fprintf(stdout, "%s: finding reproduced\n", file)
			printDifference(stdout, c)
		default:
			gone++
			goneFiles = append(goneFiles, file)
			fmt.Fprintf(stdout, "%s: no longer a finding (DSH's log keeps the invariants, or the model's does not)\n", file)
			printDifference(stdout, c)
		}
	}
	fmt.Fprintf(stderr, "conformance: %d findings in %.1fs\n", len(files), time.Since(start).Seconds())
	listFiles(stdout, "gone", goneFiles)
	listFiles(stdout, "could not run", failed)
	fmt.Fprintf(stdout, "%d findings, %d reproduced, %d gone, %d errors\n", len(files), reproduced, gone, errs)
	return batchStatus(gone, errs)
}

// printDifference prints the violations on either side, DSH's agent
// errors and the diff.
func printDifference(w io.Writer, c *conformance.Comparison) {
	for _, v := range c.DSHViolations {
		fmt.Fprintf(w, "  DSH's log: %s\n", formatViolation(v))
	}
	for _, e := range c.AgentErrors {
		fmt.Fprintf(w, "  DSH's agent error: %s\n", e)
	}
	if c.UIDiff != "" {
		fmt.Fprintf(w, "  (-dsh ui +turnsim view), under DSH 0.1.0-rc.8's turn-error rule:\n%s", indent(c.UIDiff))
	}
	if c.ViewDiff != "" {
		fmt.Fprintf(w, "  (-dsh ui +dsh view code in Node):\n%s", indent(c.ViewDiff))
	}
	for _, v := range c.ModelViolations {
		fmt.Fprintf(w, "  the model's log: %s\n", formatViolation(v))
	}
	if c.Diff != "" {
		fmt.Fprintf(w, "  (-dsh +turnsim):\n%s", indent(c.Diff))
	}
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// conformRunner runs scenarios against DSH, each in a namespace of its
// own, and compares them with the model.
type conformRunner struct {
	self, dsh, keep string
	// from: compare with runs kept there instead of running DSH.
	from    string
	timeout time.Duration
	// render: read DSH's Web UI too.
	render bool
	// model builds the model side: the correct model, or the mutant
	// named mutant.
	model  sim.Options
	mutant string
}

// run runs one scenario on both sides and compares; it returns how long
// the DSH side took.
func (r *conformRunner) run(s *sim.Scenario) (*conformance.Comparison, time.Duration, error) {
	problems := conformance.Expressible(s)
	if len(problems) == 0 {
		problems = conformance.Uncertain(s)
	}
	if len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = p.Error()
		}
		return nil, 0, fmt.Errorf("cannot run against DSH: %s", strings.Join(msgs, "; "))
	}
	if r.from != "" {
		c, err := conformance.Compare(s, filepath.Join(r.from, safeName(s.Name)), r.model)
		return c, 0, err
	}
	dir := filepath.Join(r.keep, safeName(s.Name))
	var err error
	if r.keep == "" {
		if dir, err = os.MkdirTemp("", "conformance-"+safeName(s.Name)+"-"); err != nil {
			return nil, 0, err
		}
		defer os.RemoveAll(dir)
	} else if err := resetDir(dir); err != nil {
		return nil, 0, err
	}
	file := filepath.Join(dir, "scenario.json")
	data, err := s.MarshalJSON()
	if err != nil {
		return nil, 0, err
	}
	if err := atomicfile.Write(file, data); err != nil {
		return nil, 0, err
	}
	absDir, _ := filepath.Abs(dir)
	absDSH, _ := filepath.Abs(r.dsh)
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout+10*time.Second)
	defer cancel()
	start := time.Now()
	args := []string{"-n", "-m", r.self, "dsh-run", "--scenario", filepath.Join(absDir, "scenario.json"),
		"--dir", absDir, "--dsh", absDSH, "--timeout", r.timeout.String()}
	if r.render {
		args = append(args, "--render")
	}
	cmd := exec.CommandContext(ctx, "unshare", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, 0, fmt.Errorf("the DSH run failed (%v): %s", err, strings.TrimSpace(out.String()))
	}
	took := time.Since(start)
	c, err := conformance.Compare(s, absDir, r.model)
	return c, took, err
}

// resetDir empties a kept run folder: DSH must find only this run's files.
func resetDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

// runDSH is the inner half of conformance, run inside 'unshare -n': it
// brings loopback up and runs the scenario against DSH's web host. Its
// files land in --dir.
func runDSH(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("dsh-run", stderr, "usage: simrun dsh-run --scenario FILE --dir DIR --dsh DIR (inside unshare -n)\n")
	file := fs.String("scenario", "", "")
	dir := fs.String("dir", "", "")
	installDir := fs.String("dsh", "", "")
	timeout := fs.Duration("timeout", 90*time.Second, "")
	render := fs.Bool("render", false, "")
	if _, err := parseInterspersed(fs, args); err != nil {
		return exitUsage
	}
	s, err := sim.LoadScenario(*file)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	dsh, ok := needRealDSH("dsh-run", stderr)
	if !ok {
		return exitUsage
	}
	if err := dsh.EnterRun(*dir); err != nil {
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	chromium := ""
	if *render {
		chromium = dsh.Chromium()
	}
	if err := dsh.RunDSH(ctx, conformance.Install(*installDir), s, *dir, conformance.SessionCwd, chromium); err != nil {
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	return exitClean
}

// uiTally counts what the Web UI comparisons saw, for the summary line.
type uiTally struct {
	scenarios, rows, drawn, looks, findings int
	byInvariant                             map[string]int
}

// add prints a rendered comparison's findings about DSH's Web UI.
func (t *uiTally) add(c *conformance.Comparison, w io.Writer) {
	if !c.Rendered {
		return
	}
	t.scenarios++
	t.rows += c.UIRows
	t.drawn += c.ViewRows
	t.looks += c.Observed
	for _, v := range c.UIViolations {
		if t.byInvariant == nil {
			t.byInvariant = map[string]int{}
		}
		t.findings++
		t.byInvariant[string(v.Invariant)]++
		fmt.Fprintf(w, "  DSH's Web UI breaks %s (screenshot %s)\n", formatViolation(v), c.FinalScreenshot)
	}
}

func (t *uiTally) summary(w io.Writer) {
	if t.scenarios == 0 {
		return
	}
	line := fmt.Sprintf("Web UI: %d rows compared on %d scenarios (%d live looks); %d findings about DSH's Web UI", t.rows, t.scenarios, t.looks, t.findings)
	if t.drawn > 0 {
		line = fmt.Sprintf("Web UI: %d rows compared on %d scenarios (%d live looks), %d of them with the rows DSH's view code draws in Node; %d findings about DSH's Web UI",
			t.rows, t.scenarios, t.looks, t.drawn, t.findings)
	}
	if t.findings > 0 {
		ids := make([]string, 0, len(t.byInvariant))
		for id := range t.byInvariant {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		var parts []string
		for _, id := range ids {
			parts = append(parts, fmt.Sprintf("%s %d", id, t.byInvariant[id]))
		}
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	fmt.Fprintln(w, line)
}
