package realdsh

import (
	"context"
	"path/filepath"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/conformance/webui"
	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/sim"
)

// Commands is the real DSH as simrun's commands that run it use it
// (conformance, dsh-web, webui): cmd/simrun hands it to simrun.Main, so
// that a main of one's own that does not links neither a browser's
// driver nor a web socket.
type Commands struct{}

// EnterRun readies the namespace of a run (see EnterRun).
func (Commands) EnterRun(dir string) error { return EnterRun(dir) }

// Chromium is the headless Chromium on PATH, or "".
func (Commands) Chromium() string { return webui.Find() }

// RunDSH runs one scenario against the real DSH (see RunDSH), reading
// its Web UI in chromium when chromium is not "".
func (Commands) RunDSH(ctx context.Context, install conformance.Install, s *sim.Scenario, dir, cwd, chromium string) error {
	var hooks Hooks
	if chromium != "" {
		h, closeBrowser := RenderHooks(chromium, dir)
		defer closeBrowser()
		hooks = h
	}
	return RunDSH(ctx, install, s, dir, cwd, hooks)
}

// StartDSH starts DSH's web host against the fake provider (see
// StartDSH): its address, DSH_HOME, and how to stop both.
func (Commands) StartDSH(ctx context.Context, install conformance.Install, s *sim.Scenario, dir, cwd string) (url, home string, stop func(), err error) {
	r, err := StartDSH(ctx, install, s, dir, cwd)
	if err != nil {
		return "", "", nil, err
	}
	return r.Host.URL, r.Home, r.Close, nil
}

// ReadSession opens the session titled title (the first one for "") in
// the Web UI of the web host at hostURL, and returns its rows; the
// screenshot (ui.png) and the chat pane (ui.html) land in dir.
func (Commands) ReadSession(ctx context.Context, chromium, dir, hostURL, title string) ([]view.Row, error) {
	b, err := webui.Open(ctx, chromium, filepath.Join(dir, "chromium"))
	if err != nil {
		return nil, err
	}
	defer b.Close()
	if err := b.OpenSessionTitled(hostURL, title); err != nil {
		return nil, err
	}
	rows, err := b.Rows()
	if err != nil {
		return nil, err
	}
	if err := b.Screenshot(filepath.Join(dir, "ui.png")); err != nil {
		return nil, err
	}
	if chat, err := b.Chat(); err == nil {
		if err := atomicfile.Write(filepath.Join(dir, "ui.html"), []byte(chat)); err != nil {
			return nil, err
		}
	}
	return rows, nil
}
