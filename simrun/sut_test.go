package simrun

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/dshloop"
)

// dshInstall is the install of DSH's loop packages the tests run, or a
// skip saying how to make it.
func dshInstall(t *testing.T) string {
	t.Helper()
	i, err := dshloop.Found("..")
	if err != nil {
		t.Skip(err)
	}
	return string(i)
}

// TestReplayOnDSHIsByteIdentical: a seed replayed on DSH's loop writes
// the same log twice, and the log is DSH's (its JSONL persistence's),
// checked clean.
func TestReplayOnDSHIsByteIdentical(t *testing.T) {
	dir := dshInstall(t)
	for _, seed := range []string{"0x1", "0x2a", "0x6e70"} {
		var logs [2][]byte
		var trace string
		for i := range logs {
			trace = filepath.Join(t.TempDir(), "dsh.jsonl")
			status, out, errOut := simrun("replay", "--seed", seed, "--sut", "dsh", "--dsh-loop", dir, "--trace", trace)
			if status != exitClean {
				t.Fatalf("replay --seed %s --sut dsh: status %d\n%s%s", seed, status, out, errOut)
			}
			if !strings.Contains(out, "system") || !strings.Contains(out, "dsh") {
				t.Errorf("replay --seed %s --sut dsh does not say which system ran:\n%s", seed, out)
			}
			logs[i], _ = os.ReadFile(trace)
		}
		if len(logs[0]) == 0 || !bytes.Equal(logs[0], logs[1]) {
			t.Errorf("seed %s on DSH's loop: %d and %d bytes, not the same log twice", seed, len(logs[0]), len(logs[1]))
		}
		if status, out, errOut := simrun("check", trace); status != exitClean {
			t.Errorf("simrun check of seed %s's DSH log: status %d\n%s%s", seed, status, out, errOut)
		}
	}
}

// TestFaultsAllOnDSHIsWhatItCanEnact: --faults all with --sut dsh is
// every kind DSH's loop can enact (it was refused for the kinds it
// cannot), and a kind it cannot is still refused by name.
func TestFaultsAllOnDSHIsWhatItCanEnact(t *testing.T) {
	dir := dshInstall(t)
	if status, out, errOut := simrun("run", "--sut", "dsh", "--dsh-loop", dir, "--faults", "all", "--seeds", "5"); status != exitClean {
		t.Errorf("--faults all --sut dsh: status %d, want 0\n%s%s", status, out, errOut)
	}
	if status, _, errOut := simrun("run", "--sut", "dsh", "--dsh-loop", dir, "--faults", "listener-throw", "--seeds", "5"); status != exitUsage ||
		!strings.Contains(errOut, "--faults: listener-throw cannot be enacted on DSH's loop") {
		t.Errorf("--faults listener-throw --sut dsh: status %d, want 2 naming the kind\n%s", status, errOut)
	}
}
