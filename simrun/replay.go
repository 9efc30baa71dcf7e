package simrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/dshloop"
	"github.com/turnsim/turnsim/dshview"
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/judge"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
	"github.com/turnsim/turnsim/timeline"
)

const replayUsage = `usage: simrun replay (--seed S [--policy FILE] [--faults KINDS] [--mutant NAME] | ENTRY.json)
                     [--sut model|dsh|both] [--dsh-loop DIR] [--dsh-view]
                     [--listeners NAMES] [--blocked-after D]
                     [--trace OUT.jsonl] [--html OUT.html] [--view] [--check-determinism]

Replays one seed, or one corpus entry's shrunk plan: prints the
configuration (seed first), the plan one line per entry, the timeline with
world actions marked », and the violations. Replaying twice prints the same
bytes. --trace writes the v1 session log; --check-determinism runs it twice
and compares the logs.

Exit status: 0 clean, 1 a violation, 2 bad usage or input, 3 an internal error.

flags:
`

// target is what replay and shrink work on: a seed's draw or an entry.
type target struct {
	seed      uint64
	config    *faults.Config
	scenario  *sim.Scenario
	opts      sim.Options
	overrides faults.Overrides
	flags     seedFlags
	entry     *campaign.Entry
	// pool is the drivers of DSH's loop the target's system runs on;
	// viewPool the evaluators of DSH's view code its logs are derived on.
	pool     *dshloop.Pool
	viewPool *dshview.Pool
}

// close stops the drivers of DSH's loop and the evaluators of its view
// the target started.
func (t *target) close() {
	if t.pool != nil {
		t.pool.Close()
	}
	if t.viewPool != nil {
		t.viewPool.Close()
	}
}

func resolveTarget(seed string, sf seedFlags, files []string) (*target, error) {
	switch {
	case seed != "" && len(files) == 0:
		s, err := parseSeed(seed)
		if err != nil {
			return nil, err
		}
		o, opts, err := sf.resolve()
		if err != nil {
			return nil, err
		}
		c, scenario := faults.DrawFor(s, o, opts)
		return &target{seed: s, config: c, scenario: scenario, opts: opts, overrides: o, flags: sf, pool: sf.pool, viewPool: sf.viewPool}, nil
	case seed == "" && len(files) == 1:
		le := campaign.LoadEntry(files[0])
		if le.Err != nil {
			return nil, fmt.Errorf("%s: %v", files[0], le.Err)
		}
		t := &target{scenario: le.Scenario, entry: le.Entry, flags: seedFlags{mutant: le.Entry.Mutant}}
		s, err := parseSeed(le.Entry.Seed)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", files[0], err)
		}
		t.seed = s
		if t.overrides, err = le.Entry.ParseOverrides(); err != nil {
			return nil, fmt.Errorf("%s: overrides: %v", files[0], err)
		}
		if le.Entry.Mutant != "" {
			m, ok := mutants.Find(le.Entry.Mutant)
			if !ok {
				return nil, fmt.Errorf("%s: unknown mutant %q", files[0], le.Entry.Mutant)
			}
			t.opts = m.Options
		}
		t.opts = withPlugged(t.opts)
		if err := le.Scenario.CheckPlugged(t.opts.Listeners); err != nil {
			return nil, fmt.Errorf("%s: scenario.%v", files[0], err)
		}
		if err := le.Entry.CheckPlugged(t.opts.Listeners); err != nil {
			return nil, fmt.Errorf("%s: %v", files[0], err)
		}
		if sys := le.Entry.System; sys == "" && sf.sut != "" && sf.sut != "model" {
			// An entry of the model's, asked of another system: it would
			// replay on the model, as if --sut were not given.
			return nil, fmt.Errorf("%s: an entry of the model's, given --sut %s: it replays where it failed (to run its seed on %s: --seed %s --sut %s)",
				files[0], sf.sut, sf.sut, le.Entry.Seed, sf.sut)
		}
		if sys := le.Entry.System; sys != "" {
			// The entry replays on the system that failed.
			if sf.sut != "" && sf.sut != "model" && sf.sut != sys {
				return nil, fmt.Errorf("%s: an entry of --sut %s, given --sut %s", files[0], sys, sf.sut)
			}
			var err error
			if t.opts.System, t.pool, err = openSUT(sys, sf.dshLoop, 1); err != nil {
				return nil, fmt.Errorf("%s: system %s: %v", files[0], sys, err)
			}
			t.flags.sut, t.flags.dshLoop = sys, sf.dshLoop
		}
		if le.Entry.View != "" || sf.dshView {
			// An entry of a run beside DSH's view code replays beside it;
			// --dsh-view adds it to any entry.
			checker, pool, err := openView(sf.dshLoop, 1)
			if err != nil {
				t.close()
				return nil, fmt.Errorf("%s: %v", files[0], err)
			}
			t.opts.ViewCheck, t.viewPool = checker, pool
			t.flags.dshView, t.flags.dshLoop = true, sf.dshLoop
		}
		return t, nil
	}
	return nil, errors.New("give --seed S or one corpus entry file")
}

func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("replay", stderr, replayUsage)
	seed := fs.String("seed", "", "the seed to replay (decimal or 0x…)")
	trace := fs.String("trace", "", "write the v1 session log here")
	showView := fs.Bool("view", false, "also print the derived Web nodes")
	htmlOut := fs.String("html", "", "also write the run's page here: the timeline as a chart, the view nodes, the violations with their witnesses")
	determinism := fs.Bool("check-determinism", false, "run twice and compare the logs byte for byte")
	var sf seedFlags
	sf.register(fs)
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, errHelp) {
		return exitClean
	} else if err != nil {
		return exitUsage
	}
	sf.jobs = 1
	t, err := resolveTarget(*seed, sf, files)
	if err == nil {
		defer t.close()
		err = checkOutputs(sf.inputs(files), output{"--trace", *trace}, output{"--html", *htmlOut})
	}
	if err != nil {
		fmt.Fprintf(stderr, "simrun replay: %v\n", err)
		return exitUsage
	}
	var b strings.Builder
	if t.config != nil {
		b.WriteString(t.config.String())
		if t.flags.mutant != "" {
			// Said, as an entry's replay says it: a saved transcript
			// shows it ran against a mutant.
			fmt.Fprintf(&b, "mutant      %s\n", t.flags.mutant)
		}
	} else {
		fmt.Fprintf(&b, "seed        %s (corpus entry: %s, turnsim %s)\n", t.entry.Seed, t.entry.Invariant, t.entry.Turnsim)
		if t.entry.Mutant != "" {
			fmt.Fprintf(&b, "mutant      %s\n", t.entry.Mutant)
		}
	}
	b.WriteString("plan:\n")
	for _, l := range faults.PlanLines(t.scenario) {
		b.WriteString("  " + l + "\n")
	}
	res, vs := judge.Check(t.scenario, t.opts)
	if res.Refused != "" {
		fmt.Fprintf(stderr, "simrun replay: %s cannot enact this plan: %s\n", systemWords(res.System), res.Refused)
		return exitUsage
	}
	if res.System != "" {
		fmt.Fprintf(&b, "system      %s\n", systemWords(res.System))
	}
	b.WriteString("timeline:\n")
	timeline.RenderRun(&b, res)
	if m := res.Model; m != nil && res.Difference != "" {
		b.WriteString("the model's timeline, of the same plan:\n")
		timeline.RenderRun(&b, m)
		b.WriteString("the skeletons (-DSH's loop +the model):\n")
		for _, l := range strings.SplitAfter(strings.TrimSuffix(res.Difference, "\n"), "\n") {
			b.WriteString("  " + l)
		}
		b.WriteString("\n")
	}
	if *determinism {
		first := judge.LogBytes(res)
		if again := sim.RunWith(t.scenario, t.opts); !bytes.Equal(first, judge.LogBytes(again)) {
			vs = append(vs, oracle.Violation{Invariant: oracle.Nondeterminism, Message: "two runs wrote different logs"})
		} else {
			// Said, so that a clean replay shows the check ran.
			fmt.Fprintf(&b, "determinism: a second run wrote the same log, %d bytes\n", len(first))
		}
	}
	if *showView {
		for _, n := range nodeLines(t.opts.View()(res.Events)) {
			b.WriteString("  " + n.text() + "\n")
		}
	}
	for _, v := range vs {
		fmt.Fprintf(&b, "violation: %s\n", formatViolation(v))
	}
	for _, f := range res.Findings {
		fmt.Fprintf(&b, "recorded finding about DSH reproduced: %s (not a new failure)\n", f)
	}
	for _, f := range res.ViewFindings {
		fmt.Fprintf(&b, "%s\n", viewFindingLine(f))
	}
	fmt.Fprintf(&b, "%d events, %d violations\n", len(res.Events), len(vs))
	io.WriteString(stdout, b.String())
	if *htmlOut != "" {
		page := runPage(res, t.opts.View()(res.Events), vs)
		page.Title = "turnsim replay: " + strings.Join(strings.Fields(strings.SplitN(b.String(), "\n", 2)[0]), " ")
		if err := writeAtomically(*htmlOut, func(w io.Writer) error { return timeline.WriteHTML(w, page) }); err != nil {
			fmt.Fprintf(stderr, "simrun replay: --html: %v\n", err)
			return exitUsage
		}
	}
	if *trace != "" {
		if err := writeTrace(*trace, res); err != nil {
			fmt.Fprintf(stderr, "simrun replay: %v\n", err)
			return exitUsage
		}
	}
	if len(vs) > 0 {
		return exitViolation
	}
	return exitClean
}

const shrinkUsage = `usage: simrun shrink (--seed S [--policy FILE] [--faults KINDS] [--mutant NAME] | ENTRY.json)
                     [--sut model|dsh|both] [--dsh-loop DIR] [--dsh-view]
                     [--listeners NAMES] [--blocked-after D]
                     [--invariant ID] [--out SCENARIO.json]

Shrinks a failing seed's (or entry's) plan while it still violates the same
invariant (the first one found, or --invariant): entries removed, then made
milder, until removing any single entry makes the violation disappear.
Prints the plan and writes it as a scenario file with --out, which
'simrun scenario' replays (with the same --mutant, when there is one).

Exit status: 0 shrunk, 1 nothing to shrink (no violation), 2 bad usage, 3 an internal
error.

flags:
`

func runShrink(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("shrink", stderr, shrinkUsage)
	seed := fs.String("seed", "", "the seed whose plan to shrink")
	invariant := fs.String("invariant", "", "the invariant to keep violated (default: the principal one, the first violated that says what went wrong)")
	out := fs.String("out", "", "write the shrunk plan as a scenario file here")
	var sf seedFlags
	sf.register(fs)
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, errHelp) {
		return exitClean
	} else if err != nil {
		return exitUsage
	}
	sf.jobs = 1
	t, err := resolveTarget(*seed, sf, files)
	if err == nil {
		defer t.close()
		err = checkOutputs(sf.inputs(files), output{"--out", *out})
	}
	if err != nil {
		fmt.Fprintf(stderr, "simrun shrink: %v\n", err)
		return exitUsage
	}
	id := oracle.ID(*invariant)
	if id != "" && !oracle.Known(id) {
		var known []string
		for _, inv := range oracle.Invariants {
			known = append(known, string(inv.ID))
		}
		fmt.Fprintf(stderr, "simrun shrink: --invariant %s: no such invariant (known: %s)\n", strictjson.Printable(*invariant), strings.Join(known, ", "))
		return exitUsage
	}
	if id == "" {
		_, vs := judge.Check(t.scenario, t.opts)
		if len(vs) == 0 {
			fmt.Fprintln(stdout, "no violation: nothing to shrink")
			return exitViolation
		}
		id = judge.Principal(vs).Invariant
	} else if !judge.Violates(t.scenario, id, t.opts) {
		fmt.Fprintf(stdout, "the plan does not violate %s: nothing to shrink\n", id)
		return exitViolation
	}
	before := len(faults.PlanLines(t.scenario))
	// A pinned policy (--policy, or the entry's) is what is under test
	// and stays; the rest of the drawn configuration becomes canonical,
	// as a campaign's shrinking makes it.
	sh := campaign.Shrink(t.scenario, id, t.opts, campaign.Keep{Policy: t.overrides.Policy != nil})
	shrunk, runs := sh.Scenario, sh.Runs
	fmt.Fprintf(stdout, "%s: a plan of %d lines shrunk to %d in %d runs:\n", id, before, len(faults.PlanLines(shrunk)), runs)
	for _, l := range faults.PlanLines(shrunk) {
		fmt.Fprintf(stdout, "  %s\n", l)
	}
	if *out != "" {
		shrunk.Name = strings.TrimSuffix(filepathBase(*out), ".json")
		data, err := shrunk.MarshalJSON()
		if err == nil {
			err = atomicfile.Write(*out, data)
		}
		if err != nil {
			fmt.Fprintf(stderr, "simrun shrink: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "written to %s\n", *out)
	}
	return exitClean
}

func filepathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// runPage gathers what a run's HTML page shows.
func runPage(res *sim.Result, nodes view.Nodes, vs []oracle.Violation) timeline.Run {
	page := timeline.Run{Events: res.Events, TimeNs: res.Facts.TimeNs, Marks: timeline.Marks(res)}
	for i, q := range res.Facts.Requests {
		if i < len(res.Requests) {
			page.Requests = append(page.Requests, timeline.Request{Seq: q.Seq, TimeMs: res.Requests[i].TimeMs, Turn: q.Turn, Step: q.Step, Attempt: q.Attempt})
		}
	}
	for _, n := range nodeLines(nodes) {
		page.Nodes = append(page.Nodes, n.text())
	}
	for _, v := range vs {
		page.Violations = append(page.Violations, timeline.Violation{Invariant: string(v.Invariant), Message: v.Message, Seqs: v.Seqs})
	}
	return page
}

// systemWords names a system under test for a person.
func systemWords(sys string) string {
	switch sys {
	case dshloop.SystemDSH:
		return "dsh (DSH's own loop, in-process)"
	case dshloop.SystemBoth:
		return "both (DSH's own loop, and the model beside it)"
	}
	return "model"
}
