// Package simrun is turnsim's command line, as a library: cmd/simrun is
// Main with nothing plugged in, and a small main of your own is Main with
// your listeners registered by name, so that 'simrun scenario' replays a
// plan whose listenerOrder names them, and 'run', 'replay', 'shrink',
// 'hunt', 'explore' and 'budget' draw them into the waterfall.
//
// Its 13 commands:
//
//	simrun run            draw fault plans from seeds, run and check them, shrink and record failures (the main job)
//	simrun replay         replay one seed or corpus entry: configuration, plan, timeline, violations
//	simrun shrink         shrink one seed's or entry's failing plan to a 1-minimal scenario file
//	simrun merge FILE…    merge the --json outputs of sharded runs into the unsharded run's output
//	simrun hunt           search for every mutant of the zoo and keep each one's smallest plan
//	simrun explore        run every fault plan of at most K faults over a bounded workload
//	simrun budget         measure what a retry policy buys under a fault environment
//	simrun check PATH…    check session logs (files or folders) against the oracle
//	simrun scenario FILE… run scenario files in the deterministic world
//	simrun serve          serve a fake DeepSeek provider on loopback, answering from a scenario
//	simrun conformance    run scenarios or seeded plans on the real DSH and on the model, and compare
//	simrun dsh-web        start the real DSH's web host against 'simrun serve', for runs by hand
//	simrun webui          read a session in a running DSH web host's Web UI and hold its rows to turnsim's view
//
// and 'simrun version' prints turnsim's version. conformance, dsh-web and
// webui run the real DSH through its web host: they need UseRealDSH, which
// cmd/simrun calls and a main of one's own may leave out. The README and
// the guides under docs/ describe each command.
//
// Exit status: 0 clean, 1 an invariant was violated, 2 bad usage or bad
// input, 3 an internal error of turnsim itself, 130 a long-running command
// (check of many logs, run, explore, hunt, budget, conformance) stopped by
// SIGINT or SIGTERM before its end.
package simrun

import (
	"strings"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/sim"

	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// Exit statuses (docs/running.md#exit-codes).
const (
	exitClean     = 0
	exitViolation = 1
	exitUsage     = 2
	exitInternal  = 3
	// exitInterrupted: a long-running command stopped by SIGINT or
	// SIGTERM before its end, whatever it found so far (the shell's
	// 128 + SIGINT), so that CI never reads a killed run as a pass.
	exitInterrupted = 130
)

// Main runs simrun with its arguments (without the program's name) and
// returns the exit status, with listeners of one's own plugged in.
//
//	func main() { os.Exit(simrun.Main(os.Args[1:], mylistener.Plugin())) }
func Main(args []string, listeners ...sim.Listener) int {
	if err := sim.CheckListeners(listeners); err != nil {
		fmt.Fprintf(os.Stderr, "simrun: %v\n", err)
		return exitUsage
	}
	plugged = listeners
	return run(args, os.Stdout, os.Stderr)
}

// plugged are the listeners Main was given: one process, one set.
var plugged []sim.Listener

// The collector's settings for commands that run seeds by the million,
// unless the environment sets GOGC or GOMEMLIMIT.
const (
	gcPercent   = 400
	memoryLimit = 48 << 20
)

// tuneGCForRuns: a run's garbage dies with the run and the live heap is a
// few megabytes, so collecting a quarter as often costs little memory and
// buys more runs per second (BenchmarkRun with GOGC=400); a soft ceiling
// keeps the rare large run (an outage in always mode, a shrink) from
// raising the heap goal for the millions after it, so memory stays flat in
// the number of seeds. Not for explore: its set of reached states is a
// large live heap, under which a 48 MiB limit would keep the collector
// running without pause and GOGC=400 would quintuple the memory.
func tuneGCForRuns() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}

// tuneGCForBudget: a budget's turns leave garbage that dies with each
// turn, as runs do, but a horizon keeps every turn's outcome until its
// report (tens of megabytes over days), so it takes the rarer collection
// without the ceiling, which that live heap would keep the collector
// pressed against.
func tuneGCForBudget() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

const usage = `usage: simrun <command> [arguments]

commands:
  run           draw fault plans from seeds, run them, check every invariant,
                shrink and record failures (the main job)
  replay        one seed (or corpus entry): configuration, plan, timeline, verdict
  shrink        one seed's (or entry's) failing plan, made minimal
  hunt          run the search against every mutant of the zoo: seeds and
                time to find each, the size of its shrunk reproduction
  explore [--max-faults K]
                every fault plan of at most K faults over a one-turn,
                two-step workload: plans, distinct logs, violations
  merge FILE…   merge the --json output of sharded runs (run --shard i/n)
  budget --policy FILE [--env FILE]
                what a retry policy buys under a fault environment:
                exhaustion with its interval, recovery time, attempts
  check PATH…   check session logs (files, or folders walked for *.jsonl and
                *.jsonl.zstd) against turnsim's log-level invariants
  scenario FILE…
                run scenario files in the deterministic world: timeline,
                session log (--trace), oracle
  serve --scenario FILE
                a fake DeepSeek provider on loopback answering from a scenario
  conformance --dsh DIR FILE…
                run scenarios against the real DSH and the model, and compare
                (make conformance installs DSH and runs it)
  dsh-web --scenario FILE [CMD]
                the real DSH's web host against 'simrun serve', for runs by
                hand: CMD (a shell) runs beside it with $DSH_WEB
  webui --host URL --log FILE
                read a session in a running DSH web host's own Web UI and
                hold its rows to turnsim's view of the log
  version       print turnsim's version

Run 'simrun <command> -h' (or 'simrun help <command>') for a command's flags.
`

// version is turnsim's version; corpus entries and reports carry it.
const version = campaign.Version

// run is simrun with its arguments and streams, returning the exit status.
// A panic inside turnsim is reported as an internal error, never a crash.
func run(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "simrun: internal error: %v\n%s", r, debug.Stack())
			status = exitInternal
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "check":
		return runCheck(args[1:], stdout, stderr)
	case "scenario":
		return runScenario(args[1:], stdout, stderr)
	case "run":
		return runRun(args[1:], stdout, stderr)
	case "replay":
		return runReplay(args[1:], stdout, stderr)
	case "shrink":
		return runShrink(args[1:], stdout, stderr)
	case "hunt":
		return runHunt(args[1:], stdout, stderr)
	case "explore":
		return runExplore(args[1:], stdout, stderr)
	case "budget":
		return runBudget(args[1:], stdout, stderr)
	case "merge":
		return runMerge(args[1:], stdout, stderr)
	case "serve":
		return runServe(args[1:], stdout, stderr)
	case "conformance":
		return runConformance(args[1:], stdout, stderr)
	case "webui":
		return runWebUI(args[1:], stdout, stderr)
	case "dsh-web":
		return runDSHWeb(args[1:], stdout, stderr)
	case "dsh-run": // the inner half of conformance, inside unshare -n
		return runDSH(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintf(stdout, "simrun %s\n", version)
		return exitClean
	case "help", "-h", "--help":
		if len(args) > 1 && args[1] != "help" && !strings.HasPrefix(args[1], "-") {
			// simrun help run: run's own help, as simrun run -h.
			return run([]string{args[1], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return exitClean
	}
	fmt.Fprintf(stderr, "simrun: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}
