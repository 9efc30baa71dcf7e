// Package atomicfile writes files whole or not at all: every file turnsim
// writes (corpus entries, logs, reports, pages, goldens) goes through it,
// so that a reader, or a run stopped half way by Ctrl-C, never sees part
// of one.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Mode is the mode of every file written, whatever the umask: readable by
// all (os.CreateTemp's 0600 made corpus entries unreadable to a CI job
// running as another user). A folder turnsim makes follows the umask.
const Mode = 0o644

// Write writes data to path: a temporary file beside it, synced, then
// renamed over path.
func Write(path string, data []byte) error {
	return WriteWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteWith writes what write produces to path, atomically: if write
// fails, path is left as it was.
func WriteWith(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return err
	}
	if err = tmp.Chmod(Mode); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
