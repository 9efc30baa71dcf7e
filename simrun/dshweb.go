package simrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/sim"
)

const dshWebUsage = `usage: simrun dsh-web --dsh DIR --scenario FILE [--dir DIR] [CMD [ARG…]]

Starts the real DSH's web host against 'simrun serve' answering from the
scenario, as 'simrun conformance' does (inside 'unshare -n -m': only
loopback, the session's folder at /mnt, the turnsim agent preset), and runs
CMD there (default: an interactive shell) with:

  DSH_WEB       the host's address (its API: POST $DSH_WEB/api/<method>)
  DSH_SESSIONS  where DSH writes session logs
  SIMRUN        this simrun

so that a session can be run by hand and checked, for example:

  curl -s $DSH_WEB/api/session.create -H 'content-type: application/json' \
    -d '{"type":"client-request","rpcId":"1","method":"session.create","payload":{"agentPreset":"turnsim"}}'
  curl -s $DSH_WEB/api/session.prompt -H 'content-type: application/json' \
    -d '{"type":"client-request","rpcId":"2","method":"session.prompt","payload":{"sessionId":"…","mode":"queue","content":[{"type":"text","text":"hello"}]}}'
  $SIMRUN webui --host $DSH_WEB --log $DSH_SESSIONS/*/*/session.jsonl

The host stops when CMD exits. Files land in --dir (default: a new
temporary folder, kept).

flags:
`

func runDSHWeb(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("dsh-web", stderr, dshWebUsage)
	dsh := fs.String("dsh", ".cache/dsh", "the folder 'make conformance' installed DSH into")
	file := fs.String("scenario", "", "the scenario the provider answers from (required)")
	dir := fs.String("dir", "", "where the host's files land")
	inner := fs.Bool("inner", false, "set by dsh-web itself when it runs again inside its own network namespace (not for use by hand)")
	cmdArgs, err := parseInterspersed(fs, args)
	if errors.Is(err, errHelp) {
		return exitClean
	}
	if err != nil {
		return exitUsage
	}
	rd, ok := needRealDSH("dsh-web", stderr)
	if !ok {
		return exitUsage
	}
	if *file == "" {
		fmt.Fprint(stderr, "simrun dsh-web: give --scenario FILE\n\n")
		fs.Usage()
		return exitUsage
	}
	s, err := sim.LoadScenario(*file)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", *file, err)
		return exitUsage
	}
	if len(cmdArgs) == 0 {
		shell := os.Getenv("SHELL")
		if shell == "" {
			shell = "/bin/sh"
		}
		cmdArgs = []string{shell, "-i"}
	}
	if !*inner {
		if *dir == "" {
			if *dir, err = os.MkdirTemp("", "dsh-web-"); err != nil {
				fmt.Fprintln(stderr, err)
				return exitInternal
			}
		}
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintln(stderr, err)
			return exitInternal
		}
		absDir, _ := filepath.Abs(*dir)
		absDSH, _ := filepath.Abs(*dsh)
		absFile, _ := filepath.Abs(*file)
		cmd := exec.Command("unshare", append([]string{"-n", "-m", self, "dsh-web", "--inner", "--dsh", absDSH, "--scenario", absFile, "--dir", absDir, "--"}, cmdArgs...)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
		if err := cmd.Run(); err != nil {
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				return exit.ExitCode()
			}
			fmt.Fprintf(stderr, "simrun dsh-web: %v (network and mount namespaces need root: unshare -n -m)\n", err)
			return exitInternal
		}
		return exitClean
	}
	if err := rd.EnterRun(*dir); err != nil {
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	hostURL, home, stop, err := rd.StartDSH(ctx, conformance.Install(*dsh), s, *dir, conformance.SessionCwd)
	cancel()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	defer stop()
	self, _ := os.Executable()
	fmt.Fprintf(stdout, "dsh web: %s (files in %s; its sessions in %s)\n", hostURL, *dir, filepath.Join(home, "sessions"))
	cmd := exec.Command(cmdArgs[0], cmdArgs[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	cmd.Env = append(os.Environ(), "DSH_WEB="+hostURL, "DSH_SESSIONS="+filepath.Join(home, "sessions"), "SIMRUN="+self)
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	return exitClean
}
