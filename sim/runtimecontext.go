package sim

import (
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/loop"
)

// The runtime context DSH 0.1.0-rc.8's composition renders, headless and
// on its web host alike (read off their logs): a preamble, then the
// sandbox and approval policies, the first naming the session's working
// folder.
const (
	runtimeContextPreamble = "Current runtime context. This snapshot supersedes earlier runtime-context snapshots."
	sandboxPolicyFormat    = "Current DSH file policy: workspace-write. Any available operation enforced by the DSH file sandbox may modify files under the session workspace: %s. Some platform temporary areas may also be writable."
	approvalPolicy         = "Approval policy: ask. Operations that require approval may ask through the configured answerers; without an available answerer, the request fails closed."
)

// DSHRuntimeContext is the runtime context DSH's composition renders for a
// session working in cwd: 441 characters plus the folder's.
func DSHRuntimeContext(cwd string) *loop.RuntimeContext {
	sections := []loop.ContextSection{
		{Name: "sandbox:policy", Text: strings.Replace(sandboxPolicyFormat, "%s", strconv.Quote(cwd), 1)},
		{Name: "approval:policy", Text: approvalPolicy},
	}
	return RuntimeContextOf(sections)
}

// RuntimeContextOf joins sections the way DSH renders them.
func RuntimeContextOf(sections []loop.ContextSection) *loop.RuntimeContext {
	parts := []string{runtimeContextPreamble}
	for _, s := range sections {
		parts = append(parts, s.Text)
	}
	return &loop.RuntimeContext{Text: strings.Join(parts, "\n\n"), Sections: sections}
}
