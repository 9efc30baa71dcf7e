package simrun

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnsim/turnsim/conformance/realdsh"
)

// asCommand makes the test binary run simrun itself when the tests start
// it as a subprocess: signals are only testable on a process of their own.
const asCommand = "SIMRUN_TEST_AS_COMMAND"

// readyFile appears in the command's folder once it absorbs signals.
const readyFile = ".simrun-test-ready"

func TestMain(m *testing.M) {
	// As cmd/simrun is: the tests of conformance, dsh-web and webui run
	// them (realdsh_test holds what a simrun without them says).
	UseRealDSH(realdsh.Commands{})
	if os.Getenv(asCommand) == "1" {
		// Caught from the start and never acted on here: a signal sent
		// before the command installs its own handling is absorbed, not
		// fatal, so the test can send until the command hears one.
		signal.Notify(make(chan os.Signal, 1), os.Interrupt, syscall.SIGTERM)
		// Tell the test it may signal now: before this, a signal kills
		// the process outright (a loaded machine starts it slowly).
		os.WriteFile(readyFile, nil, 0o644)
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// interrupt runs simrun as a process, sends it sig every 100 ms until it
// exits, and returns its status and outputs.
func interrupt(t *testing.T, sig syscall.Signal, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), asCommand+"=1")
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(cmd.Dir, readyFile)); err == nil {
			break
		}
		select {
		case <-done: // ended before it was ready: nothing was interrupted
			return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
		default:
		}
		if time.Since(start) > time.Minute {
			cmd.Process.Kill()
			t.Fatalf("%v: never ready to be signalled", args)
		}
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	giveUp := time.After(2 * time.Minute)
	for {
		select {
		case <-done:
			return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
		case <-tick.C:
			cmd.Process.Signal(sig)
		case <-giveUp:
			cmd.Process.Kill()
			t.Fatalf("%v: still running two minutes after the first signal", args)
		}
	}
}

// TestInterruptedIsNotAPass: every long-running command stopped by SIGINT
// or SIGTERM says so in its exit status (130) and its output. A run once
// exited 0 when no violation had been found yet, so a CI job killed half
// way read as a pass; budget once died without a word.
func TestInterruptedIsNotAPass(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	// Three different policies (one given twice is refused), by paths
	// that hold in the folder interrupt runs in.
	two, _ := filepath.Abs(filepath.Join("..", "examples", "budget", "two-retries.json"))
	steady, _ := filepath.Abs(filepath.Join("..", "examples", "budget", "steady.json"))
	for _, row := range []struct {
		why    string
		sig    syscall.Signal
		args   []string
		stdout string // what the output must say
	}{
		{"run, nothing found yet", syscall.SIGTERM, []string{"run", "--seeds", "1000000000", "--corpus", "corpus"}, "(interrupted)"},
		{"run --json", syscall.SIGINT, []string{"run", "--seeds", "1000000000", "--corpus", "corpus", "--json"}, `"interrupted":true`},
		{"budget", syscall.SIGTERM, []string{"budget", "--policy", "default", "--fail", "SERVER/503=0.3", "--runs", "1000000000"}, "(interrupted: every figure is over these)"},
		{"budget --json", syscall.SIGINT, []string{"budget", "--policy", "default", "--runs", "1000000000", "--json"}, `"interrupted":true`},
		// With fewer slots than policies, the first policy is the one
		// running: its partial report is printed (the last one once ran
		// first, and nothing was).
		{"budget, three policies, -j 1", syscall.SIGINT, []string{"budget", "--policy", "default", "--policy", two, "--policy", steady, "--fail", "SERVER/503=0.3", "--runs", "1000000000", "-j", "1"}, "(interrupted: every figure is over these)"},
		{"explore", syscall.SIGTERM, []string{"explore", "--max-faults", "6"}, "(interrupted)"},
		{"explore --mutant all", syscall.SIGINT, []string{"explore", "--mutant", "all", "--max-faults", "4"}, "(interrupted after"},
	} {
		status, out, errOut := interrupt(t, row.sig, row.args...)
		if status != exitInterrupted || !strings.Contains(out, row.stdout) {
			t.Errorf("%s: exit %d, want 130 and %q in the output\nstdout:\n%s\nstderr:\n%s", row.why, status, row.stdout, out, errOut)
		}
	}
}

// TestMergeOfAnInterruptedShard: the merged run is not whole, and the
// status says so.
func TestMergeOfAnInterruptedShard(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "0.jsonl")
	cut := filepath.Join(dir, "1.jsonl")
	os.WriteFile(whole, []byte(`{"runs":5,"violations":0,"events":10,"corpusErrors":0,"interrupted":false,"shard":"0/2","campaign":"--start 0x1 --seeds 10 (turnsim 0.1.0)","start":"0x1","seeds":10}`+"\n"), 0o644)
	os.WriteFile(cut, []byte(`{"runs":2,"violations":0,"events":4,"corpusErrors":0,"interrupted":true,"shard":"1/2","campaign":"--start 0x1 --seeds 10 (turnsim 0.1.0)","start":"0x1","seeds":10}`+"\n"), 0o644)
	status, out, errOut := simrun("merge", whole, cut)
	if status != exitInterrupted || !strings.Contains(out, `"interrupted":true`) || !strings.Contains(errOut, "a shard was interrupted") {
		t.Errorf("exit %d\n%s%s", status, out, errOut)
	}
}

// TestCheckInterrupted: check stops between files (and inside a long log)
// on a signal, prints what it checked and exits 130, never 0.
func TestCheckInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	logs, _ := filepath.Glob(filepath.Join("..", "examples", "logs", "*.jsonl"))
	if len(logs) == 0 {
		t.Fatal("no example logs")
	}
	src, _ := filepath.Abs(logs[0])
	dir := t.TempDir()
	// Thousands of links to one log: a folder that takes seconds to check.
	for i := range 20000 {
		if err := os.Link(src, filepath.Join(dir, fmt.Sprintf("%05d.jsonl", i))); err != nil {
			t.Fatal(err)
		}
	}
	status, out, errOut := interrupt(t, syscall.SIGINT, "check", dir)
	if status != exitInterrupted || !strings.Contains(errOut, "simrun check: interrupted after") || !strings.Contains(out, " files, 0 violations, 0 errors") {
		t.Errorf("exit %d, want 130 with the files checked so far\nstdout tail:\n%s\nstderr:\n%s", status, out[max(0, len(out)-300):], errOut)
	}
}
