package simrun

import (
	"context"
	"fmt"
	"io"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/sim"
)

// RealDSH is what the commands that run the real DSH through its web
// host (conformance, dsh-web, webui) need of a browser and of the host.
// Package conformance/realdsh has it (realdsh.Commands); cmd/simrun
// gives it to UseRealDSH. A main of one's own that leaves it out links
// neither a browser's driver nor a web socket, and those commands say
// so.
type RealDSH interface {
	// EnterRun readies a run's network and mount namespace.
	EnterRun(dir string) error
	// Chromium is the headless Chromium on PATH, or "".
	Chromium() string
	// RunDSH runs a scenario against DSH, its files in dir, reading its
	// Web UI in chromium unless that is "".
	RunDSH(ctx context.Context, install conformance.Install, s *sim.Scenario, dir, cwd, chromium string) error
	// StartDSH starts DSH's web host against the fake provider.
	StartDSH(ctx context.Context, install conformance.Install, s *sim.Scenario, dir, cwd string) (url, home string, stop func(), err error)
	// ReadSession reads a session's rows in a running host's Web UI.
	ReadSession(ctx context.Context, chromium, dir, hostURL, title string) ([]view.Row, error)
}

// realDSH is what UseRealDSH gave (nil: those commands are not built in).
var realDSH RealDSH

// UseRealDSH builds the commands that run the real DSH into Main:
//
//	simrun.UseRealDSH(realdsh.Commands{})
//	os.Exit(simrun.Main(os.Args[1:]))
func UseRealDSH(r RealDSH) { realDSH = r }

// needRealDSH is the real DSH for a command, or says why there is none.
func needRealDSH(command string, stderr io.Writer) (RealDSH, bool) {
	if realDSH == nil {
		fmt.Fprintf(stderr, "simrun %s: this simrun was built without the real DSH's commands (cmd/simrun has them; a main of one's own adds them with simrun.UseRealDSH(realdsh.Commands{}))\n", command)
		return nil, false
	}
	return realDSH, true
}
