package simrun

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/dshloop"
	"github.com/turnsim/turnsim/dshview"
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/inputfile"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/mutants"
	"github.com/turnsim/turnsim/sim"
)

// seedFlags are the flags that shape a seed's draw: they are part of its
// reproduction line.
type seedFlags struct {
	policy, faults, mutant string
	// faultsSet: --faults was given, if only as "" (which names no kind,
	// and once ran every kind without a word).
	faultsSet bool
	// listeners names the plugged-in listeners a seed draws with: a
	// reproduction line carries them, so that a simrun without them
	// refuses the line instead of replaying another draw.
	listeners string
	// sut is the system under test (model, dsh, both) and dshLoop the
	// install of DSH's loop packages it runs; jobs how many drivers the
	// run may keep (its -j); pool the drivers, for close.
	sut, dshLoop string
	jobs         int
	pool         *dshloop.Pool
	// dshView: every log is also derived by DSH's own view code, on
	// viewPool's evaluators over the same install.
	dshView  bool
	viewPool *dshview.Pool
	// blockedAfter is the watchdog on the listeners of this simrun's
	// main (--blocked-after).
	blockedAfter *time.Duration
}

func (f *seedFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.policy, "policy", "", "pin the retry policy: a DSH RetryPolicyConfig JSON file")
	fs.Func("faults", "restrict the fault kinds a seed may enable (comma-separated, or all; the kinds are listed under 'Fault kinds' in simrun run -h)", func(v string) error {
		f.faults, f.faultsSet = v, true
		return nil
	})
	fs.StringVar(&f.mutant, "mutant", "", "run against a mutant of the system under test ("+fmt.Sprint(mutants.Names())+")")
	fs.StringVar(&f.listeners, "listeners", "", "the listeners of one's own this simrun's main registered that a seed draws with, comma-separated (default: all of them; llm-retry and compaction-basic are always there)")
	registerSUT(fs, &f.sut, &f.dshLoop)
	registerView(fs, &f.dshView)
	f.blockedAfter = registerBlockedAfter(fs)
}

// registerBlockedAfter registers --blocked-after: how long in real time
// a call of one of this simrun's listeners may take before the run stops
// and calls it blocked outside virtual time (sim.Options.BlockedAfter).
func registerBlockedAfter(fs *flag.FlagSet) *time.Duration {
	d := sim.DefaultBlockedAfter
	fs.Func("blocked-after", fmt.Sprintf("how long in real time a call of one of this simrun's own listeners may take before the run stops and reports it blocked outside virtual time: a duration (default %v; a listener that waits on a service of its own needs more)", d), func(v string) error {
		got, err := time.ParseDuration(v)
		if err != nil {
			return err
		}
		if got <= 0 {
			return fmt.Errorf("%q: want a positive duration (a listener that blocked would hold the run for good)", v)
		}
		d = got
		return nil
	})
	return &d
}

// registerView registers --dsh-view.
func registerView(fs *flag.FlagSet, on *bool) {
	fs.BoolVar(on, "dsh-view", false, "also derive every log with DSH's own Web view code (its conversation Definitions and row renderers, in Node, from the install --dsh-loop names), compare it node by node with turnsim's view under DSH's rule, and judge the rendering invariants on what it derives")
}

// openView is DSH's view code as a checker, on a pool of at most jobs
// evaluators over the install dir.
func openView(dir string, jobs int) (dshview.Checker, *dshview.Pool, error) {
	pool, err := dshview.NewPool(dir, max(jobs, 1))
	if err != nil {
		return dshview.Checker{}, nil, fmt.Errorf("--dsh-view: %v", err)
	}
	return dshview.Checker{Pool: pool}, pool, nil
}

// registerSUT registers --sut and --dsh-loop.
func registerSUT(fs *flag.FlagSet, sut, dir *string) {
	fs.StringVar(sut, "sut", "model", "the system under test: model (turnsim's model of DSH's loop), dsh (DSH's own loop, in-process in Node: make dsh-loop installs it) or both (each plan on both, their skeletons compared)")
	registerInstall(fs, dir, "with --sut dsh or both, or --dsh-view")
}

// registerInstall registers --dsh-loop, which the flags named by when use.
func registerInstall(fs *flag.FlagSet, dir *string, when string) {
	fs.StringVar(dir, "dsh-loop", dshloop.DefaultInstall, when+": the install of DSH's packages to run (a copy of it with a package's lib/ replaced runs that build)")
}

// openSUT is the system --sut names, on a pool of at most jobs drivers
// over the install dir (nil for the model).
func openSUT(sut, dir string, jobs int) (sim.System, *dshloop.Pool, error) {
	switch sut {
	case "", "model":
		return nil, nil, nil
	case dshloop.SystemDSH, dshloop.SystemBoth:
	default:
		return nil, nil, fmt.Errorf("--sut: %q is no system under test (model, dsh or both)", strictjson.Printable(sut))
	}
	pool, err := dshloop.NewPool(dshloop.Install(dir), max(jobs, 1))
	if err != nil {
		return nil, nil, fmt.Errorf("--dsh-loop: %v", err)
	}
	if sut == dshloop.SystemDSH {
		return dshloop.System{Pool: pool}, pool, nil
	}
	return dshloop.Both{DSH: dshloop.System{Pool: pool}}, pool, nil
}

// close stops the drivers of DSH's loop and the evaluators of its view
// the flags started.
func (f *seedFlags) close() {
	if f.pool != nil {
		f.pool.Close()
	}
	if f.viewPool != nil {
		f.viewPool.Close()
	}
}

// resolve reads the flags into overrides and world options.
func (f *seedFlags) resolve() (faults.Overrides, sim.Options, error) {
	var o faults.Overrides
	if f.policy != "" {
		raw, err := inputfile.Read(f.policy)
		if err != nil {
			return o, sim.Options{}, err
		}
		p, err := retry.ParsePolicy(raw)
		if err != nil {
			return o, sim.Options{}, fmt.Errorf("%s: %v", f.policy, err)
		}
		o.Policy = p
	}
	if f.faultsSet {
		kinds, err := faults.ParseKinds(f.faults)
		if err != nil {
			return o, sim.Options{}, fmt.Errorf("--faults: %v", err)
		}
		o.Kinds = kinds
	}
	var opts sim.Options
	if f.mutant != "" {
		m, ok := mutants.Find(f.mutant)
		if !ok {
			return o, opts, fmt.Errorf("--mutant: unknown mutant %q (known: %v)", f.mutant, mutants.Names())
		}
		opts = m.Options
	}
	ls, err := f.plugged()
	if err != nil {
		return o, opts, err
	}
	opts = withListeners(opts, ls)
	if f.blockedAfter != nil {
		opts.BlockedAfter = *f.blockedAfter
	}
	if f.sut != "" && f.sut != "model" {
		switch {
		case f.mutant != "":
			return o, opts, fmt.Errorf("--mutant %s with --sut %s: a mutant of the zoo is a variant of turnsim's model; DSH's own code is what --sut dsh runs (to check a change to it, give a copy of the install with --dsh-loop)", f.mutant, f.sut)
		case len(sim.Added(opts.Listeners)) > 0 || len(opts.Listeners) > 0:
			return o, opts, fmt.Errorf("--sut %s: listeners of one's own (%s) are Go code, which runs in the model only", f.sut, namesOr(opts.Listeners, "none"))
		}
		if f.faults == "all" {
			o.Kinds = dshloop.Kinds() // every kind it can enact
		}
		if o.Kinds != nil {
			can := dshloop.Kinds()
			for _, k := range o.Kinds {
				if !slices.Contains(can, k) {
					return o, opts, fmt.Errorf("--faults: %s cannot be enacted on DSH's loop (it can: %s)", k, strings.Join(can, ", "))
				}
			}
		}
		sys, pool, err := openSUT(f.sut, f.dshLoop, f.jobs)
		if err != nil {
			return o, opts, err
		}
		f.pool, opts.System = pool, sys
	} else if err := checkSUT(f.sut); err != nil {
		return o, opts, err
	}
	if f.dshView {
		checker, pool, err := openView(f.dshLoop, f.jobs)
		if err != nil {
			return o, opts, err
		}
		f.viewPool, opts.ViewCheck = pool, checker
	}
	return o, opts, nil
}

// checkSUT refuses a --sut that names no system.
func checkSUT(sut string) error {
	_, _, err := openSUT(sut, "", 0)
	return err
}

// inputs are the files a command reads: its arguments, and the policy
// file when there is one.
func (f *seedFlags) inputs(files []string) []string {
	if f.policy != "" {
		return append(slices.Clone(files), f.policy)
	}
	return files
}

// args are the flags as a reproduction line repeats them.
func (f *seedFlags) args() string {
	s := ""
	if f.policy != "" {
		s += " --policy " + shellWord(f.policy)
	}
	if f.faults != "" {
		s += " --faults " + f.faults
	}
	if f.mutant != "" {
		s += " --mutant " + f.mutant
	}
	if f.listeners != "" {
		s += " --listeners " + f.listeners
	}
	if f.sut != "" && f.sut != "model" {
		s += " --sut " + f.sut
	}
	if f.dshView {
		s += " --dsh-view"
	}
	if f.usesInstall() && f.dshLoop != dshloop.DefaultInstall {
		s += " --dsh-loop " + shellWord(f.dshLoop)
	}
	return s
}

// usesInstall: the flags run DSH's code from the install --dsh-loop names.
func (f *seedFlags) usesInstall() bool { return f.sut != "" && f.sut != "model" || f.dshView }

// plugged are the listeners --listeners names (all that Main registered
// when it is not given); a name Main did not register is an error.
func (f *seedFlags) plugged() ([]sim.Listener, error) {
	if f.listeners == "" {
		return plugged, nil
	}
	var out []sim.Listener
	for _, name := range strings.Split(f.listeners, ",") {
		i := slices.IndexFunc(plugged, func(l sim.Listener) bool { return l.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("--listeners: %q is not registered in this simrun (a simrun that knows a listener of your own is a main calling simrun.Main with it; registered here: %s)",
				strictjson.Printable(name), namesOr(plugged, "none"))
		}
		out = append(out, plugged[i])
	}
	return out, nil
}

// pluggedNames are the names of the listeners of Main's a seed draws with
// (not a mutant's): a reproduction line needs them registered.
func (f *seedFlags) pluggedNames() []string {
	ls, _ := f.plugged()
	var names []string
	for _, l := range ls {
		names = append(names, l.Name)
	}
	return names
}

// namesOr lists the listeners' names, or says none.
func namesOr(ls []sim.Listener, none string) string {
	var names []string
	for _, l := range ls {
		names = append(names, l.Name)
	}
	if len(names) == 0 {
		return none
	}
	return strings.Join(names, ", ")
}

// parseSeed reads a seed in decimal or 0x hexadecimal (campaign.ParseSeed).
func parseSeed(s string) (uint64, error) { return campaign.ParseSeed(s) }

// withPlugged is the options with the listeners Main was given plugged in
// beside the mutant's (a mutant replaces a built-in; a plug-in of the
// same name wins).
func withPlugged(opts sim.Options) sim.Options { return withListeners(opts, plugged) }

// withListeners is the options with listeners plugged in beside the
// mutant's.
func withListeners(opts sim.Options, with []sim.Listener) sim.Options {
	if len(with) == 0 {
		return opts
	}
	ls := slices.Clone(with)
	for _, l := range opts.Listeners {
		if !slices.ContainsFunc(ls, func(p sim.Listener) bool { return p.Name == l.Name }) {
			ls = append(ls, l)
		}
	}
	opts.Listeners = ls
	return opts
}

// setFlags are the flags given on the command line (not left at their
// defaults), by name: two that contradict each other are refused rather
// than one silently winning.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// entryFlags are the flags a corpus entry's replay line repeats: the
// entry names its system, but not which install of DSH's loop failed.
func (f *seedFlags) entryFlags() string {
	if f.usesInstall() && f.dshLoop != dshloop.DefaultInstall {
		return " --dsh-loop " + shellWord(f.dshLoop)
	}
	return ""
}

// shellWord is a path as one word of a shell line: as it is when it needs
// no quoting, else single-quoted (a reproduction line with a folder of
// spaces in it split into words when pasted).
func shellWord(text string) string {
	if text != "" && strings.IndexFunc(text, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,=@%", r))
	}) < 0 {
		return text
	}
	return "'" + strings.ReplaceAll(text, "'", `'\''`) + "'"
}
