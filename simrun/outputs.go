package simrun

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/turnsim/turnsim/internal/atomicfile"
)

// output is a file a command writes, with the flag that names it.
type output struct{ flag, path string }

// checkOutputs refuses, before any work, output paths that cannot be
// meant: one that exists and is not a regular file (a device, a named
// pipe: the write's rename would replace the node), two outputs that are
// one file (one would overwrite the other), and an output that is one of
// the command's inputs (the run would overwrite what it read). Outputs
// without a path are not written and not checked.
func checkOutputs(inputs []string, outs ...output) error {
	type seen struct {
		name string
		file string // the file written, links followed
	}
	var taken []seen
	for _, in := range inputs {
		taken = append(taken, seen{"the input " + in, fileOf(in)})
	}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		target, err := atomicfile.Target(o.path)
		if err != nil {
			return fmt.Errorf("%s: %v", o.flag, err)
		}
		file, err := filepath.Abs(target)
		if err != nil {
			return fmt.Errorf("%s %s: %v", o.flag, o.path, err)
		}
		for _, t := range taken {
			if file == t.file || sameFile(file, t.file) {
				return fmt.Errorf("%s %s: the same file as %s: one would overwrite the other; give each its own path", o.flag, o.path, t.name)
			}
		}
		taken = append(taken, seen{o.flag + " " + o.path, file})
	}
	return nil
}

// fileOf is the file a path names: absolute, links followed where they
// lead somewhere.
func fileOf(path string) string {
	file, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if resolved, err := filepath.EvalSymlinks(file); err == nil {
		file = resolved
	}
	return file
}

// samePath reports whether two paths are one file, however spelled: the
// same file name once links are followed, or two names of one file.
func samePath(a, b string) bool {
	fa, fb := fileOf(a), fileOf(b)
	return fa == fb || sameFile(fa, fb)
}

// sameFile reports whether two existing paths are one file (hard links).
func sameFile(a, b string) bool {
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}
