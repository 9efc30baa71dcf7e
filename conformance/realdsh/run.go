package realdsh

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/conformance/dshweb"
	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/serve"
	"github.com/turnsim/turnsim/sim"
)

// Running is a DSH web host up against the fake provider, configured by
// a scenario.
type Running struct {
	Host *dshweb.Host
	// Home is DSH_HOME: sessions land under Home/sessions.
	Home     string
	provider *serve.Server
	close    []func()
}

// Close stops the host and the provider.
func (r *Running) Close() {
	for i := len(r.close) - 1; i >= 0; i-- {
		r.close[i]()
	}
}

// StartDSH starts the fake provider on loopback answering from the
// scenario and a DSH web host configured by the scenario's overlay and
// agent preset, working in cwd. Its files land in dir. It must run where
// nothing but loopback is reachable (inside 'unshare -n'); the caller
// brings loopback up.
func StartDSH(ctx context.Context, install conformance.Install, s *sim.Scenario, dir, cwd string) (_ *Running, err error) {
	r := &Running{Home: filepath.Join(dir, "home")}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	reqLog, err := os.Create(filepath.Join(dir, conformance.RequestsFile))
	if err != nil {
		return nil, err
	}
	r.close = append(r.close, func() { reqLog.Close() })
	provider := serve.New(s)
	provider.Log = reqLog
	r.provider = provider
	server := provider.HTTPServer()
	go server.Serve(ln)
	r.close = append(r.close, func() {
		shut, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		server.Shutdown(shut)
	})
	stub := filepath.Join(dir, "hmr-stub.mjs")
	if err := atomicfile.Write(stub, []byte(conformance.HMRStub)); err != nil {
		return nil, err
	}
	overlay, err := conformance.Overlay(s, "http://"+ln.Addr().String(), stub)
	if err != nil {
		return nil, err
	}
	overlayPath := filepath.Join(dir, conformance.OverlayFile)
	if err := atomicfile.Write(overlayPath, []byte(overlay)); err != nil {
		return nil, err
	}
	if err := writePreset(install, s, r.Home); err != nil {
		return nil, err
	}
	out, err := os.Create(filepath.Join(dir, conformance.HostOutput))
	if err != nil {
		return nil, err
	}
	r.close = append(r.close, func() { out.Close() })
	startCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	host, err := dshweb.Start(startCtx, dshweb.Command{Node: install.Node(), BinJS: install.BinJS(), Overlay: overlayPath,
		Dir: cwd, Env: dshweb.Environment(dshweb.PathWithNode(install.Node()), r.Home), Output: out})
	if err != nil {
		return nil, fmt.Errorf("%w (its output: %s)", err, tail(filepath.Join(dir, conformance.HostOutput)))
	}
	r.Host = host
	r.close = append(r.close, func() { host.Close() })
	return r, nil
}

// RunDSH runs one scenario against the real DSH (StartDSH): one session
// driven by the scenario's inputs and world actions, with the hooks
// around the drive. Its files land in dir; the session works in cwd
// (where the caller made WorkDir(dir) visible: SessionCwd).
func RunDSH(ctx context.Context, install conformance.Install, s *sim.Scenario, dir, cwd string, hooks Hooks) error {
	running, err := StartDSH(ctx, install, s, dir, cwd)
	if err != nil {
		return err
	}
	defer running.Close()
	host, home := running.Host, running.Home
	startCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	// Both streams open before the session exists: they have no replay.
	sessions, err := host.Events(startCtx, dshweb.SessionEvents)
	if err != nil {
		return err
	}
	defer sessions.Close()
	hostEvents, err := host.Events(startCtx, dshweb.HostEvents)
	if err != nil {
		return err
	}
	defer hostEvents.Close()
	id, err := host.CreateSession(startCtx, conformance.PresetID)
	if err != nil {
		return err
	}
	if hooks.BeforeDrive != nil {
		if err := hooks.BeforeDrive(ctx, host, id); err != nil {
			return err
		}
	}
	drive, driveErr := RunDrive(ctx, host, sessions, hostEvents, id, s, DriveOptions{Observe: hooks.Observe})
	if driveErr == nil && hooks.AfterDrive != nil {
		driveErr = hooks.AfterDrive(ctx, host, id)
	}
	if err := running.provider.Err(); err != nil && driveErr == nil {
		// What the provider received is half the comparison: a run whose
		// record of it is cut short is no run to judge.
		driveErr = fmt.Errorf("the fake provider: %w", err)
	}
	if b, err := json.MarshalIndent(drive, "", "  "); err == nil {
		// What the drive did is kept even when it failed: it says why.
		if err := atomicfile.Write(filepath.Join(dir, conformance.DriveFile), append(b, '\n')); err != nil && driveErr == nil {
			driveErr = err
		}
	}
	if driveErr != nil {
		return driveErr
	}
	logPath, err := findSession(filepath.Join(home, "sessions"), id)
	if err != nil {
		return fmt.Errorf("DSH wrote no session log for %s (%v); its output: %s", id, err, tail(filepath.Join(dir, conformance.HostOutput)))
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, conformance.SessionFile), data)
}

// writePreset writes the turnsim agent preset into DSH's home, where DSH
// finds a person's own presets ($DSH_HOME/.agent-presets).
func writePreset(install conformance.Install, s *sim.Scenario, home string) error {
	standard, err := os.ReadFile(install.StandardPreset())
	if err != nil {
		return fmt.Errorf("DSH's standard agent preset: %w", err)
	}
	preset, err := conformance.Preset(s, string(standard))
	if err != nil {
		return err
	}
	dir := filepath.Join(home, ".agent-presets", conformance.PresetID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, "agent.cordis.yml"), []byte(preset)); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "preset.yml"), []byte(conformance.PresetMetadata))
}

// Hooks let a caller act on a DSH run while its host is up: before the
// drive (the session exists, nothing was sent yet), at each observe
// action (see DriveOptions.Observe), and after it (the session idle).
type Hooks struct {
	BeforeDrive, AfterDrive func(ctx context.Context, host *dshweb.Host, sessionID string) error
	Observe                 func(field string, beforeSeq int64) error
}

// EnterRun readies the namespace a DSH run is in (the caller runs inside
// 'unshare -n -m'): loopback up, and WorkDir(dir) bound at SessionCwd. The
// mount namespace is the run's own (unshare makes mounts private), so the
// bind is gone when the run ends.
func EnterRun(dir string) error {
	if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		return fmt.Errorf("ip link set lo up: %v: %s", err, out)
	}
	work := WorkDir(dir)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if err := syscall.Mount(work, conformance.SessionCwd, "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("mount --bind %s %s: %v", work, conformance.SessionCwd, err)
	}
	return nil
}

// WorkDir is the DSH session's working folder (its cwd, which its
// runtime-context message names) for a run kept in dir.
func WorkDir(dir string) string { return filepath.Join(dir, "work") }

// findSession finds the log of one session under DSH's sessions root.
func findSession(root, id string) (string, error) {
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(path)) == id &&
			(d.Name() == "session.jsonl" || d.Name() == "session.jsonl.zstd") {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(found) != 1 {
		return "", fmt.Errorf("%d session logs named %s under %s", len(found), id, root)
	}
	return found[0], nil
}

// tail is the end of a file, for an error message.
func tail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	if s == "" {
		return "(nothing)"
	}
	return s
}
