package simrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/turnsim/turnsim/budget"
	"github.com/turnsim/turnsim/dshloop"
	"github.com/turnsim/turnsim/explore"
	"github.com/turnsim/turnsim/internal/inputfile"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

const exploreUsage = `usage: simrun explore [--max-faults K] [--policy FILE] [--mutant NAME|all]
                      [--sut model|dsh|both] [--dsh-loop DIR] [--first] [--out DIR] [-j N] [--json]
                      [--no-dedupe]

Enumerates every fault plan of at most K faults over the choice points of a
bounded workload (one turn of two steps: a tool call, then the answer),
runs each in the deterministic world and checks every invariant. A fault
is a request's failure (each error class once, a hang, a failure whose
listener throws, failures from that request on), a summarizer failure, or
a world action right after an append or inside the virtual time after it
(every cancel cause with and without the inbox, both disposals, the three
late inputs). Plans that reach a state an earlier plan reached are run but
not extended.

Without --policy, it explores DSH's default policies: dsh-default, always,
none, and dsh-default with maxOverflowRetries 0. --policy takes a DSH
RetryPolicyConfig (compaction-basic installed beside it at its defaults,
as DSH does), a bundle of retryPolicy, compaction and listenerOrder, or
"default".

Prints a line per policy (plans by size, distinct logs, distinct states —
a log with the world actions that landed, some of which leave no trace in
it — violating plans, wall time), the first violating plan of each
invariant, and ends with "N plans, D distinct logs, S states, V violating
plans, T s". With --out each of
those plans is written as a scenario file that 'simrun scenario' replays.

With --sut dsh (or both), each plan runs on DSH's own loop in Node (and
beside it on the model, compared), as simrun run's do; a plan it cannot be
asked (a code with no wire form, a listener that throws on cue) is counted
as refused, and not grown from.

--mutant all explores each mutant of the zoo until the invariant it must
trip is violated, a row per mutant, ending "K/M mutants found".

Exit status: 0 clean (with --mutant all: every mutant found), 1 violations
(some mutant not found), 2 bad usage or policy file, 130 interrupted
(SIGINT or SIGTERM) before the search was done.

flags:
`

func runExplore(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("explore", stderr, exploreUsage)
	maxFaults := fs.Int("max-faults", 2, "plans have at most this many faults")
	policyFile := fs.String("policy", "", "explore under this policy only (a RetryPolicyConfig, a bundle, or \"default\")")
	mutant := fs.String("mutant", "", "explore a mutant of the system under test, or \"all\" for the zoo's table ("+fmt.Sprint(mutants.Names())+")")
	first := fs.Bool("first", false, "stop each policy at its first violating plan")
	out := fs.String("out", "", "write each reported violating plan as a scenario file into this folder")
	workers := fs.Int("j", runtime.GOMAXPROCS(0), "parallel workers (the output does not depend on it)")
	asJSON := fs.Bool("json", false, "print one JSON object per policy (or mutant), then a summary object")
	var sut, dshLoop string
	registerSUT(fs, &sut, &dshLoop)
	noDedupe := fs.Bool("no-dedupe", false, "grow every plan, not one per reached state (to check that de-duplication loses no state: the distinct logs and states must not change)")
	rest, err := parseInterspersed(fs, args)
	if errors.Is(err, errHelp) {
		return exitClean
	} else if err != nil {
		return exitUsage
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "simrun explore: unexpected argument %q\n", rest[0])
		return exitUsage
	}
	if *maxFaults < 0 {
		fmt.Fprintln(stderr, "simrun explore: --max-faults must not be negative")
		return exitUsage
	}
	if err := checkJobs(*workers); err != nil {
		fmt.Fprintf(stderr, "simrun explore: %v\n", err)
		return exitUsage
	}
	if why := notAFolder(*out); *out != "" && why != "" {
		fmt.Fprintf(stderr, "simrun explore: --out %s (the violating plans are written into one)\n", why)
		return exitUsage
	}
	policies := explore.DefaultPolicies()
	if *policyFile != "" {
		c, err := budget.LoadPolicy(*policyFile)
		if err != nil {
			fmt.Fprintf(stderr, "simrun explore: --policy: %v\n", err)
			return exitUsage
		}
		name := strings.TrimSuffix(filepath.Base(*policyFile), filepath.Ext(*policyFile))
		if c.Compaction == nil && !policyIsBundle(*policyFile) {
			// A bare RetryPolicyConfig says nothing of compaction: DSH
			// installs compaction-basic at its defaults beside it.
			d := compact.DefaultConfig()
			c.Compaction = &d
		}
		policies = []explore.Policy{{Name: name, Recovery: c.Recovery}}
	}
	if sut != "" && sut != "model" && (*mutant != "" || len(withPlugged(sim.Options{}).Listeners) > 0) {
		fmt.Fprintln(stderr, "simrun explore: --sut "+sut+": a mutant of the zoo and a listener of one's own are Go code, which runs in the model only")
		return exitUsage
	}
	system, pool, err := openSUT(sut, dshLoop, *workers)
	if err != nil {
		fmt.Fprintf(stderr, "simrun explore: %v\n", err)
		return exitUsage
	}
	if pool != nil {
		defer pool.Close()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := explore.Options{MaxFaults: *maxFaults, Workers: *workers, NoDedupe: *noDedupe,
		Sim: withPlugged(sim.Options{System: system})}
	if *mutant == "all" {
		return exploreZoo(ctx, policies, o, *asJSON, *out, stdout)
	}
	mutantArg := ""
	if *mutant != "" {
		m, ok := mutants.Find(*mutant)
		if !ok {
			fmt.Fprintf(stderr, "simrun explore: --mutant: unknown mutant %q (known: all %v)\n", *mutant, mutants.Names())
			return exitUsage
		}
		o.Sim = withPlugged(m.Options)
		mutantArg = " --mutant " + m.Name
	}
	if system != nil {
		mutantArg += " --sut " + sut
		if dshLoop != dshloop.DefaultInstall {
			mutantArg += " --dsh-loop " + shellWord(dshLoop)
		}
	}
	e := explorer{w: stdout, json: *asJSON, out: *out, mutantArg: mutantArg}
	if !e.json {
		fmt.Fprintf(stdout, "exploring plans of at most %d faults over one turn of two steps (%d faults in the alphabet)\n",
			*maxFaults, explore.AlphabetSize())
	}
	var total explore.Report
	began := time.Now()
	if *first {
		o.StopAt = explore.AnyInvariant
	}
	for _, p := range policies {
		if ctx.Err() != nil {
			break
		}
		policyBegan := time.Now()
		r := explore.Explore(ctx, p, o)
		e.policy(r, time.Since(policyBegan))
		total.Plans += r.Plans
		total.Distinct += r.Distinct
		total.States += r.States
		total.Violating += r.Violating
		total.Refused += r.Refused
		total.Stopped = total.Stopped || r.Stopped
	}
	elapsed := time.Since(began).Seconds()
	note := ""
	if ctx.Err() != nil {
		note = " (interrupted)"
	}
	if e.unwritten > 0 {
		note += fmt.Sprintf(" (%d violating plans' scenarios not written)", e.unwritten)
	}
	if total.Refused > 0 {
		note += fmt.Sprintf(" (%d plans refused by --sut %s)", total.Refused, sut)
	}
	if e.json {
		b, _ := json.Marshal(map[string]any{"plans": total.Plans, "distinct": total.Distinct, "states": total.States, "violating": total.Violating, "refused": total.Refused,
			"maxFaults": *maxFaults, "seconds": round2(elapsed), "notWritten": e.unwritten, "interrupted": ctx.Err() != nil})
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		fmt.Fprintf(stdout, "%d plans, %d distinct logs, %d states, %d violating plans, %.1f s%s\n", total.Plans, total.Distinct, total.States, total.Violating, elapsed, note)
	}
	switch {
	case ctx.Err() != nil:
		return exitInterrupted
	case total.Violating > 0:
		return exitViolation
	case total.Plans > 0 && total.Refused == total.Plans:
		// Nothing ran: no plan of the workload can be asked of it.
		fmt.Fprintf(stderr, "simrun explore: --sut %s refused every plan: nothing was explored\n", sut)
		return exitUsage
	}
	return exitClean
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// policyIsBundle: "default" is a bare RetryPolicyConfig; a file was read
// by LoadPolicy already.
func policyIsBundle(path string) bool {
	raw, err := inputfile.Read(path)
	return err == nil && budget.IsBundle(raw)
}

// explorer prints one policy's report.
type explorer struct {
	w         io.Writer
	json      bool
	out       string
	mutantArg string
	// unwritten counts the violating plans --out could not write.
	unwritten int
}

// policyJSON is one policy's --json object.
type policyJSON struct {
	Policy    string          `json:"policy"`
	Levels    []explore.Level `json:"levels"`
	Plans     int             `json:"plans"`
	Distinct  int             `json:"distinct"`
	States    int             `json:"states"`
	Violating int             `json:"violating"`
	Refused   int             `json:"refused,omitempty"`
	Seconds   float64         `json:"seconds"`
	Failures  []failureJSON   `json:"failures,omitempty"`
	Stopped   bool            `json:"interrupted,omitempty"`
	Blocked   string          `json:"blocked,omitempty"`
}

type failureJSON struct {
	Invariant string   `json:"invariant"`
	Message   string   `json:"message"`
	Plan      []string `json:"plan"`
	Index     int      `json:"index"`
	Scenario  string   `json:"scenario,omitempty"`
	Reproduce string   `json:"reproduce,omitempty"`
	WriteErr  string   `json:"writeError,omitempty"`
}

func (e *explorer) policy(r explore.Report, took time.Duration) {
	pj := policyJSON{Policy: r.Policy, Levels: r.Levels, Plans: r.Plans, Distinct: r.Distinct, States: r.States, Violating: r.Violating,
		Refused: r.Refused, Seconds: round2(took.Seconds()), Stopped: r.Stopped, Blocked: r.Blocked}
	for _, f := range r.Failures {
		fj := failureJSON{Invariant: string(f.Violation.Invariant), Message: f.Violation.Message, Plan: f.Plan.Lines(), Index: f.Index}
		if e.out != "" {
			path, err := writeScenario(e.out, fmt.Sprintf("explore-%s-%s", r.Policy, f.Violation.Invariant), f.Scenario)
			if err != nil {
				fj.WriteErr = err.Error()
				e.unwritten++
			} else {
				fj.Scenario = path
				fj.Reproduce = "simrun scenario" + e.mutantArg + " " + path
			}
		}
		pj.Failures = append(pj.Failures, fj)
	}
	if e.json {
		b, _ := json.Marshal(pj)
		fmt.Fprintf(e.w, "%s\n", b)
		return
	}
	var sizes []string
	for _, l := range r.Levels {
		sizes = append(sizes, fmt.Sprint(l.Plans))
	}
	stopped := ""
	if r.Refused > 0 {
		stopped = fmt.Sprintf(", %d refused", r.Refused)
	}
	if r.Blocked != "" {
		stopped += fmt.Sprintf(" (stopped: listener %q blocked outside virtual time)", r.Blocked)
	}
	fmt.Fprintf(e.w, "%-32s %d plans (%s by size), %d distinct logs, %d states, %d violating, %.1f s%s\n",
		r.Policy, r.Plans, strings.Join(sizes, " + "), r.Distinct, r.States, r.Violating, took.Seconds(), stopped)
	for _, f := range pj.Failures {
		fmt.Fprintf(e.w, "  VIOLATION %s (plan %d): %s\n", f.Invariant, f.Index, f.Message)
		for _, line := range f.Plan {
			fmt.Fprintf(e.w, "    %s\n", line)
		}
		switch {
		case f.Reproduce != "":
			fmt.Fprintf(e.w, "    reproduce: %s\n", f.Reproduce)
		case f.WriteErr != "":
			fmt.Fprintf(e.w, "    the scenario could not be written: %s\n", f.WriteErr)
		}
	}
}

// writeScenario writes a scenario file as DIR/NAME.json.
func writeScenario(dir, name string, s *sim.Scenario) (string, error) {
	named := *s
	named.Name = name
	b, err := json.MarshalIndent(&named, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".json")
	return path, writeAtomically(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// zooRow is one mutant's exploration.
type zooRow struct {
	Mutant    string    `json:"mutant"`
	Invariant oracle.ID `json:"invariant"`
	Found     bool      `json:"found"`
	Policy    string    `json:"policy,omitempty"`
	Plans     int       `json:"plans"`
	Faults    int       `json:"faults,omitempty"`
	Plan      []string  `json:"plan,omitempty"`
	Reproduce string    `json:"reproduce,omitempty"`
	WriteErr  string    `json:"writeError,omitempty"`
	Seconds   float64   `json:"seconds"`
}

// exploreZoo explores each mutant, policy after policy, until the
// invariant it must trip is violated.
func exploreZoo(ctx context.Context, policies []explore.Policy, o explore.Options, asJSON bool, out string, stdout io.Writer) int {
	var rows []zooRow
	found, unwritten := 0, 0
	for _, m := range mutants.Zoo {
		if ctx.Err() != nil {
			break
		}
		row := zooRow{Mutant: m.Name, Invariant: m.Trips}
		began := time.Now()
		o.Sim, o.StopAt = withPlugged(m.Options), m.Trips
		for _, p := range policies {
			r := explore.Explore(ctx, p, o)
			if !r.Found {
				row.Plans += r.Plans
				continue
			}
			f := r.Failures[len(r.Failures)-1]
			for _, x := range r.Failures {
				if x.Violation.Invariant == m.Trips {
					f = x
				}
			}
			row.Found, row.Policy, row.Faults, row.Plan = true, p.Name, len(f.Plan), f.Plan.Lines()
			row.Plans += f.Index
			found++
			if out != "" {
				// As for one mutant: the plan as a scenario, and the line
				// that replays it on the mutant.
				path, err := writeScenario(out, fmt.Sprintf("explore-%s-%s", m.Name, m.Trips), f.Scenario)
				if err != nil {
					row.WriteErr = err.Error()
					unwritten++
				} else {
					row.Reproduce = fmt.Sprintf("simrun scenario --mutant %s %s", m.Name, path)
				}
			}
			break
		}
		row.Seconds = round2(time.Since(began).Seconds())
		rows = append(rows, row)
		if asJSON {
			b, _ := json.Marshal(row)
			fmt.Fprintf(stdout, "%s\n", b)
		}
	}
	if asJSON {
		b, _ := json.Marshal(map[string]any{"found": found, "mutants": len(mutants.Zoo), "maxFaults": o.MaxFaults, "notWritten": unwritten, "interrupted": ctx.Err() != nil})
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "mutant\ttrips\tfound\tpolicy\tplans\tfaults\ttime\tplan")
		for _, r := range rows {
			if !r.Found {
				fmt.Fprintf(tw, "%s\t%s\tno\t-\t%d\t-\t%.2f s\t-\n", r.Mutant, r.Invariant, r.Plans, r.Seconds)
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\tyes\t%s\t%d\t%d\t%.2f s\t%s\n", r.Mutant, r.Invariant, r.Policy, r.Plans, r.Faults, r.Seconds, strings.Join(r.Plan, "; "))
		}
		tw.Flush()
		for _, r := range rows {
			switch {
			case r.Reproduce != "":
				fmt.Fprintf(stdout, "%s: %s\n", r.Mutant, r.Reproduce)
			case r.WriteErr != "":
				fmt.Fprintf(stdout, "%s: the scenario could not be written: %s\n", r.Mutant, r.WriteErr)
			}
		}
		if ctx.Err() != nil {
			fmt.Fprintf(stdout, "(interrupted after %d of %d mutants)\n", len(rows), len(mutants.Zoo))
		}
		fmt.Fprintf(stdout, "%d/%d mutants found\n", found, len(mutants.Zoo))
	}
	switch {
	case ctx.Err() != nil:
		return exitInterrupted
	case found < len(mutants.Zoo):
		return exitViolation
	case unwritten > 0:
		// --out asked for the plans: one not on disk is a failed run,
		// as hunt's entries are.
		fmt.Fprintf(stdout, "%d of %d scenarios could not be written to %s\n", unwritten, found, out)
		return exitUsage
	}
	return exitClean
}
