// Package inputfile opens the files turnsim reads: regular files only. A
// named pipe, a device, a socket or a folder given where a file is read is
// refused with its path and what it is, without blocking on it (a pipe
// with no writer would block an open forever).
package inputfile

import (
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"syscall"

	"github.com/turnsim/turnsim/internal/limits"
)

// Open opens a regular file for reading.
func Open(path string) (*os.File, error) {
	// O_NONBLOCK: opening a pipe must not wait for a writer; it changes
	// nothing for a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("not a regular file (%s)", Kind(info.Mode()))}
	}
	return f, nil
}

// Read reads a regular file whole, up to limits.Current.FileBytes.
func Read(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	max := limits.Current.FileBytes
	// One byte past the bound tells a file over it; at the largest
	// bound, max+1 would wrap negative and read nothing.
	data, err := io.ReadAll(io.LimitReader(f, min(max, math.MaxInt64-1)+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &limits.Exceeded{What: "the file", Limit: limits.Bytes(max), Flag: limits.FlagFileBytes}}
	}
	return data, nil
}

// Kind names what a file that is not a regular one is, for a message:
// "a named pipe", "a device".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return m.Type().String()
}
