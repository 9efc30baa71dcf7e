package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestWriteIsWholeAndReadable: the file holds what was written, with mode
// 0644 whatever the temporary file's was, and no temporary is left.
func TestWriteIsWholeAndReadable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "entry.json")
	if err := Write(path, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := info.Mode().Perm(), 0o666&^umask; got != want {
		t.Errorf("mode %v, want %v: 0666 less the umask, as os.Create gives (not os.CreateTemp's 0600)", got, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d files, want only the one written", len(entries))
	}
}

// TestFailedWriteLeavesTheOldFile: a writer that fails half way leaves
// the previous content, and no temporary file.
func TestFailedWriteLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := Write(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("interrupted")
	err := WriteWith(path, func(w io.Writer) error {
		w.Write([]byte("half of the new"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want the writer's", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the file holds %q, want the old content", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d files, want 1: a temporary was left", len(entries))
	}
}

// TestWriteRefusesWhatIsNotAFile: a path that exists and is not a
// regular file is refused and left as it was, since the rename would
// replace the node itself and nothing would reach what it stands for; a
// link to a file is written through.
func TestWriteRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// A character device of our own (the numbers of /dev/full), never a
	// system one: only root may make it.
	device := filepath.Join(dir, "full")
	haveDevice := syscall.Mknod(device, syscall.S_IFCHR|0o666, int(1<<8|7)) == nil
	symlink := func(name, to string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(to, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	toFifo := symlink("to-fifo", fifo)
	// An open pipe, as the shell gives stdout to 'simrun … | jq': its
	// /proc/self/fd link names "pipe:[N]", which no path reaches.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	toPipe := symlink("to-stdout", fmt.Sprintf("/proc/self/fd/%d", w.Fd()))
	// An open regular file, as '>> out.txt' gives stdout: a rename over
	// what the descriptor leads to would throw out what was there.
	redirected, err := os.OpenFile(filepath.Join(dir, "out.txt"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer redirected.Close()
	redirected.WriteString("keep\n")
	toFile2 := symlink("to-redirected", fmt.Sprintf("/proc/self/fd/%d", redirected.Fd()))
	toNothing := symlink("to-nothing", filepath.Join(dir, "missing"))
	toFile := symlink("to-file", file)
	folder := filepath.Join(dir, "folder")
	os.Mkdir(folder, 0o755)

	for _, c := range []struct {
		name, path string
		skip       bool
		wantErr    string // "" for a write that must land
	}{
		{"a device of our own, as /dev/full was", device, !haveDevice, "not a regular file (a device)"},
		{"a named pipe", fifo, false, "not a regular file (a named pipe)"},
		{"a link to a named pipe", toFifo, false, "not a regular file (a named pipe)"},
		{"a link to /proc/self/fd/N of an open pipe, as /dev/stdout is under a pipe", toPipe, false, "names an open file descriptor (/proc/self/fd/"},
		{"a link to /proc/self/fd/N of an open file, as /dev/stdout is under '>> out.txt'", toFile2, false, "names an open file descriptor (/proc/self/fd/"},
		{"a link to nothing: where it would write is a guess", toNothing, false, "does not exist: not followed"},
		{"a folder", folder, false, "not a regular file (a folder)"},
		{"a link to a file: written through", toFile, false, ""},
		{"a new name", filepath.Join(dir, "new.html"), false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.skip {
				t.Skip("mknod needs root")
			}
			before, _ := os.Lstat(c.path)
			err := Write(c.path, []byte("new"))
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("Write: %v", err)
				}
				if b, _ := os.ReadFile(c.path); string(b) != "new" {
					t.Errorf("reads %q, want the new content", b)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), c.path) {
				t.Fatalf("Write: %v, want an error naming %s and saying %q", err, c.path, c.wantErr)
			}
			after, _ := os.Lstat(c.path)
			if before.Mode() != after.Mode() {
				t.Errorf("the node changed from %v to %v", before.Mode(), after.Mode())
			}
			if _, err := WriteNew(c.path, []byte("new")); err == nil {
				t.Errorf("WriteNew took it")
			}
		})
	}
	if info, _ := os.Lstat(toFile); info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link to a file was replaced by a file: its target should have been written")
	}
	if b, _ := os.ReadFile(file); string(b) != "new" {
		t.Errorf("the link's target reads %q, want the new content", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(b) != "keep\n" {
		t.Errorf("the file behind the descriptor reads %q, want what was written to it", b)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestWriteNewFirstWriterWins: of many writers of one name at once,
// exactly one writes it and the file holds what that one wrote (a rename
// would let the last one win, so which seed a corpus entry holds would
// depend on scheduling).
func TestWriteNewFirstWriterWins(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "entry.json")
	const writers = 16
	written := make([]bool, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			ok, err := WriteNew(path, []byte(strconv.Itoa(i)))
			if err != nil {
				t.Error(err)
			}
			written[i] = ok
		})
	}
	wg.Wait()
	winner := slices.Index(written, true)
	if n := len(slices.DeleteFunc(slices.Clone(written), func(b bool) bool { return !b })); n != 1 {
		t.Fatalf("%d writers say they wrote it, want exactly 1", n)
	}
	if b, _ := os.ReadFile(path); string(b) != strconv.Itoa(winner) {
		t.Errorf("the file holds %q, want writer %d's", b, winner)
	}
	if ok, err := WriteNew(path, []byte("later")); ok || err != nil {
		t.Errorf("a later WriteNew: written %v, err %v; want false, nil", ok, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d files, want 1: temporaries were left", len(entries))
	}
}

// TestWriteNewFailureIsNotWritten: a write that fails says so, and
// written is false (an entry reported as written that was not once lost
// two of three corpus entries on a full disk).
func TestWriteNewFailureIsNotWritten(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	// A folder that cannot be: a file stands where it would be.
	ok, err := WriteNew(filepath.Join(blocker, "entry.json"), []byte("{}"))
	if ok || err == nil {
		t.Errorf("written %v, err %v; want false and the error", ok, err)
	}
}

// TestAFileWrittenOverKeepsItsMode: a file written over keeps its mode and
// owner (it came back 0644 and the writer's, a chmod 600 undone), and a new
// one follows the umask (a umask of 077 got 0644).
func TestAFileWrittenOverKeepsItsMode(t *testing.T) {
	dir := t.TempDir()
	private := filepath.Join(dir, "private.jsonl")
	os.WriteFile(private, []byte("old"), 0o600)
	os.Chmod(private, 0o600)
	if os.Getuid() == 0 {
		os.Chown(private, 65534, 65534) // nobody's
	}
	if err := Write(private, []byte("new")); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(private)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", info.Mode().Perm())
	}
	if st := info.Sys().(*syscall.Stat_t); os.Getuid() == 0 && st.Uid != 65534 {
		t.Errorf("owner %d, want the file's own, 65534", st.Uid)
	}
	saved := umask
	defer func() { umask = saved }()
	umask = 0o077
	fresh := filepath.Join(dir, "fresh.jsonl")
	if err := Write(fresh, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(fresh); info.Mode().Perm() != 0o600 {
		t.Errorf("a new file under umask 077: mode %v, want 0600", info.Mode().Perm())
	}
}

// TestAReadOnlyFileIsNotReplaced: a file its owner made read-only is
// refused, as '>' refuses it; a rename needs only the folder's
// permission, and it once replaced the file. (Root may write any file,
// and this test then skips: run it as another user.)
func TestAReadOnlyFileIsNotReplaced(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("as root every file may be written")
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, []byte("kept"), 0o444); err != nil {
		t.Fatal(err)
	}
	err := Write(path, []byte("new"))
	if err == nil || !strings.Contains(err.Error(), "may not be written (mode 0444): not replaced") {
		t.Errorf("Write over a read-only file: %v, want it refused", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "kept" {
		t.Errorf("the read-only file reads %q, want it kept", got)
	}
}

// TestAnErrorNamesTheFileAskedFor: a write that fails before the rename
// names the file asked for, not turnsim's temporary one.
func TestAnErrorNamesTheFileAskedFor(t *testing.T) {
	path := "/proc/self/turnsim-report.html" // /proc/self takes no new file, whoever asks
	err := Write(path, []byte("x"))
	if err == nil {
		os.Remove(path)
		t.Skip("/proc/self took a file")
	}
	if !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("Write(%s) = %v, want the error to name it and no temporary file", path, err)
	}
}
