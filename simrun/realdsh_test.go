package simrun

import (
	"strings"
	"testing"
)

// TestWithoutTheRealDSHTheCommandsSaySo: a main of one's own that does not
// build in the real DSH's commands (and so links no browser driver and no
// web socket) refuses them with the line that adds them, rather than
// failing somewhere inside.
func TestWithoutTheRealDSHTheCommandsSaySo(t *testing.T) {
	saved := realDSH
	realDSH = nil
	t.Cleanup(func() { realDSH = saved })
	for _, args := range [][]string{
		{"conformance", "--dsh", ".cache/dsh", "../scenarios/conformance/auth.json"},
		{"dsh-web", "--scenario", "../scenarios/conformance/auth.json"},
		{"webui", "--host", "http://127.0.0.1:1", "--log", "testdata/does-not-matter.jsonl"},
	} {
		status, _, errOut := simrun(args...)
		if status != exitUsage || !strings.Contains(errOut, "built without the real DSH's commands") || !strings.Contains(errOut, "simrun.UseRealDSH(realdsh.Commands{})") {
			t.Errorf("%v: status %d, stderr %q; want 2 and the line that builds them in", args, status, errOut)
		}
	}
}
