// Package fulldisk runs a test against a folder on a file system that
// fills up: a tmpfs of a few kilobytes, mounted in a mount namespace of
// the test's own (unshare), so that writes fail with ENOSPC as on a full
// disk, and nothing of the machine's is touched.
//
// A test asks for the folder and goes on only where it gets one:
//
//	dir, ok := fulldisk.Dir(t, 8<<10)
//	if !ok {
//		return // the parent: it ran this test again, in the namespace
//	}
//	… write into dir, which holds 8 KiB …
//
// In the test's process, Dir runs the test binary again with just this
// test, under unshare with the tmpfs mounted, reports the child's failures
// as its own and returns false; in the child it returns the folder. Where
// unshare or the mount is not available, the test is skipped, saying so.
package fulldisk

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// envDir carries the mounted folder to the child.
const envDir = "TURNSIM_FULLDISK_DIR"

// mountFailed is the child's status when the mount could not be made.
const mountFailed = 97

// Dir returns a folder on a file system of size bytes (rounded up to
// pages) in the child, and false in the parent, after running the child.
func Dir(t *testing.T, size int) (string, bool) {
	t.Helper()
	if dir := os.Getenv(envDir); dir != "" {
		return dir, true
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("fulldisk: no unshare on PATH: a full file system cannot be made without touching the machine's")
	}
	dir := t.TempDir()
	script := `mount -t tmpfs -o size=` + strconv.Itoa(size) + ` tmpfs "$` + envDir + `" || exit ` + strconv.Itoa(mountFailed) + `; exec "$@"`
	cmd := exec.Command(unshare, "-rm", "sh", "-c", script, "sh",
		os.Args[0], "-test.run", pattern(t.Name()), "-test.count", "1", "-test.v")
	cmd.Env = append(os.Environ(), envDir+"="+dir)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == mountFailed:
		t.Skipf("fulldisk: no tmpfs could be mounted in a namespace of the test's own (unshare -rm): %s", strings.TrimSpace(string(out)))
	case err != nil:
		t.Errorf("in a namespace with a %d-byte tmpfs at %s: %v\n%s", size, dir, err, out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Errorf("in a namespace with a %d-byte tmpfs: the test did not run there:\n%s", size, out)
	}
	return "", false
}

// pattern is go test's -run pattern of exactly this test.
func pattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
