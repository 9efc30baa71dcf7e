// Package atomicfile writes files whole or not at all: every file turnsim
// writes (corpus entries, logs, reports, pages, goldens) goes through it,
// so that a reader, or a run stopped half way by Ctrl-C, never sees part
// of one.
//
// A write replaces the file at its path by a rename, so it refuses a path
// that exists and is not a regular file: renaming over a device, a named
// pipe or a socket would replace the node itself (as root, --html
// /dev/full once replaced the system's /dev/full with a page) and nothing
// would reach what it stands for. A symbolic link to a regular file is
// written through: its target is replaced, and the link stays.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"syscall"

	"github.com/turnsim/turnsim/internal/inputfile"
)

// A new file gets the mode os.Create gives one, 0666 less the umask
// (os.CreateTemp's 0600 once made corpus entries unreadable to a CI job
// running as another user); a file written over keeps its mode, and, where
// the process may (as root), its owner: the rename puts a new file in its
// place, which would otherwise be the writer's, 0644.

// umask is the process's file mode creation mask, read once.
var umask = func() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}()

// modeFor is the mode and owner a write to target gives the file.
func modeFor(target string) (mode fs.FileMode, uid, gid int) {
	info, err := os.Stat(target)
	if err != nil {
		return 0o666 &^ umask, -1, -1
	}
	uid, gid = -1, -1
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		uid, gid = int(st.Uid), int(st.Gid)
	}
	return info.Mode().Perm(), uid, gid
}

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
func WriteWith(path string, write func(io.Writer) error) error {
	target, err := Target(path)
	if err != nil {
		return err
	}
	tmp, err := writeTemp(target, write)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// WriteNew writes data to path unless a file of that name is already
// there, and says whether it wrote it: the first writer wins, whichever
// process it is in (the temporary file is linked to the name, which fails
// when the name exists, where a rename would replace the earlier file).
// A failed write returns written false with the error.
func WriteNew(path string, data []byte) (written bool, err error) {
	target, err := Target(path)
	if err != nil {
		return false, err
	}
	if _, err := os.Lstat(target); err == nil {
		return false, nil // already there: no need to write it again
	}
	tmp, err := writeTemp(target, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, target)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrExist):
		// Another writer was first; what it wrote must be a file.
		if _, err := Target(target); err != nil {
			return false, err
		}
		return false, nil
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EOPNOTSUPP):
		// A file system without hard links (some FUSE and FAT mounts):
		// a rename after a look, which two processes may race.
		if _, err := os.Lstat(target); err == nil {
			return false, nil
		}
		if err := os.Rename(tmp, target); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, err
}

// Target is the file a write to path replaces: path itself, or the
// regular file a symbolic link at path leads to. A path that exists and
// is not a regular file, or a link that leads nowhere, is refused with
// what it is.
func Target(path string) (string, error) {
	refuse := func(what string) (string, error) {
		return "", &fs.PathError{Op: "write", Path: path, Err: errors.New(what)}
	}
	link, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil
	}
	if err != nil {
		return "", err
	}
	if fd, ok := openDescriptor(path); ok {
		// /dev/stdout and its kind: the file behind the descriptor, when
		// it is one, is what '>' or '>>' gave the shell, and a rename
		// over it would throw away what is already in it.
		return refuse(fmt.Sprintf("names an open file descriptor (%s), a stream turnsim does not write to: it writes files whole, by a rename, which would replace what the descriptor leads to; give a file's path", fd))
	}
	// What the path leads to, as the kernel follows it: also through a
	// link of /proc/self/fd, which names an open pipe or terminal no
	// path can (filepath.EvalSymlinks cannot follow "pipe:[…]").
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return refuse("a symbolic link to a file that does not exist: not followed (write to the file it names, or remove the link)")
	}
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return refuse(fmt.Sprintf("exists and is not a regular file (%s): not replaced", inputfile.Kind(info.Mode())))
	}
	if err := syscall.Access(path, 2 /* W_OK */); errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EROFS) {
		// A rename needs only the folder's permission, so a file its
		// owner made read-only was replaced all the same; as '>' would,
		// a file one may not write is refused (root may write any).
		return refuse(fmt.Sprintf("exists and may not be written (mode %04o): not replaced", info.Mode().Perm()))
	}
	if link.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		// A regular file with no path of its own (an open file's link
		// in /proc, deleted since): nothing to rename over.
		return refuse("a symbolic link to a file with no path a write can replace: not followed")
	}
	return target, nil
}

// writeTemp writes what write produces into a temporary file beside
// target, with the mode target has (modeFor), synced and closed, and
// returns its name; on an error
// it leaves none.
func writeTemp(target string, write func(io.Writer) error) (name string, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		// Named by the file asked for: the temporary name is turnsim's.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return "", &fs.PathError{Op: "write", Path: target, Err: pe.Err}
		}
		return "", err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return "", err
	}
	mode, uid, gid := modeFor(target)
	if err = tmp.Chmod(mode); err != nil {
		return "", err
	}
	if uid >= 0 && (uid != os.Getuid() || gid != os.Getgid()) {
		tmp.Chown(uid, gid) // only root may; otherwise the file is the writer's
	}
	if err = tmp.Sync(); err != nil {
		return "", err
	}
	if err = tmp.Close(); err != nil {
		return "", err
	}
	return tmp.Name(), nil
}

// fdPath is a link of the kernel's to an open file descriptor.
var fdPath = regexp.MustCompile(`^/(proc/[^/]+|dev)/fd/\d+$`)

// openDescriptor says whether path, or a link on the way to what it names,
// is a file descriptor's (/dev/stdout is a link to /proc/self/fd/1), and
// which.
func openDescriptor(path string) (string, bool) {
	for range 40 { // the kernel's own bound on links followed
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", false
		}
		if fdPath.MatchString(abs) {
			return abs, true
		}
		to, err := os.Readlink(abs)
		if err != nil {
			return "", false // not a link: the end of the way
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(abs), to)
		}
		path = to
	}
	return "", false
}
