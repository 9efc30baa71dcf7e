package dshview

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/dshloop"
	"github.com/turnsim/turnsim/internal/sharedlogs"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/sim"
)

// These tests run DSH's own view code, from the install that
// scripts/dsh-loop.sh makes beside DSH's loop packages (.ci/run makes it
// before make test); without it they skip, saying how to make it.
// DSH_LOOP names another.
func install(t testing.TB) string {
	t.Helper()
	i, err := dshloop.Found("..")
	if err == nil {
		err = Check(string(i))
	}
	if err != nil {
		t.Skip(err)
	}
	return string(i)
}

func pool(t testing.TB, n int) *Pool {
	t.Helper()
	return poolOver(t, install(t), n)
}

func poolOver(t testing.TB, dir string, n int) *Pool {
	t.Helper()
	p, err := NewPool(dir, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// scenarioFiles are every scenario file of the repository.
func scenarioFiles(t testing.TB) []string {
	var files []string
	for _, glob := range []string{"*.json", "conformance/*.json", "dshview/*.json"} {
		more, err := filepath.Glob(filepath.Join("..", "scenarios", glob))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, more...)
	}
	return files
}

// TestScenariosAgreeWithDSHsView: DSH's view code derives every scenario's
// log as turnsim's view does, in every view; each finding scenario shows
// its class, and no scenario shows a finding no recorded one explains.
func TestScenariosAgreeWithDSHsView(t *testing.T) {
	c := Checker{Pool: pool(t, 2)}
	files := scenarioFiles(t)
	compared := 0
	for _, file := range files {
		rel, _ := filepath.Rel(filepath.Join("..", "scenarios"), file)
		events := scenarioLog(t, rel)
		cmp, err := c.Derive(events)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		compared += cmp.Compared
		vs, found := cmp.Verdict()
		for _, v := range vs {
			t.Errorf("%s: %s", file, v.Line())
		}
		if strings.HasPrefix(rel, "dshview/") {
			class := strings.TrimSuffix(filepath.Base(file), ".json")
			if !slices.ContainsFunc(found, func(f oracle.Finding) bool { return f.Class == class }) {
				t.Errorf("%s: the recorded finding %s is not shown (findings: %v)", file, class, found)
			}
		}
	}
	if len(files) < 100 || compared < 10*len(files) {
		t.Errorf("%d scenarios, %d snapshots compared: fewer than there are", len(files), compared)
	}
}

// TestSharedLogsAgreeWithDSHsView: the real DSH logs of ../shared are
// derived by DSH's view code as turnsim's view derives them, none shows a
// finding no recorded one explains, and an AUTH turn without retries
// (error-finish) shows none at all.
func TestSharedLogsAgreeWithDSHsView(t *testing.T) {
	dir := sharedlogs.Dir(t)
	c := Checker{Pool: pool(t, 2)}
	var logs []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".jsonl") {
			logs = append(logs, path)
		}
		return nil
	})
	nodes := 0
	for _, path := range logs {
		_, events, err := session.ReadFile(path, session.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		cmp, err := c.Derive(events)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		nodes += cmp.Nodes
		vs, found := cmp.Verdict()
		for _, v := range vs {
			t.Errorf("%s: %s", path, v.Line())
		}
		if strings.Contains(path, "error-finish") && len(found) > 0 {
			t.Errorf("%s: an AUTH turn without retries shows findings %v", path, found)
		}
	}
	if len(logs) < 80 || nodes < 1000 {
		t.Errorf("%d logs derived into %d nodes: fewer than there are", len(logs), nodes)
	}
}

// installWith is a copy of the install whose package pkg (of
// @deepseek-ai) is a folder of its own with its lib/client.js edited;
// everything else links to the install.
func installWith(t *testing.T, pkg string, edit func(bundle []byte) []byte) string {
	t.Helper()
	src := install(t)
	dst := t.TempDir()
	link := func(from, to string) {
		if err := os.Symlink(from, to); err != nil {
			t.Fatal(err)
		}
	}
	abs, _ := filepath.Abs(src)
	link(filepath.Join(abs, "tools"), filepath.Join(dst, "tools"))
	entries, _ := os.ReadDir(filepath.Join(abs, "node_modules"))
	os.MkdirAll(filepath.Join(dst, "node_modules", "@deepseek-ai"), 0o755)
	for _, e := range entries {
		if e.Name() != "@deepseek-ai" {
			link(filepath.Join(abs, "node_modules", e.Name()), filepath.Join(dst, "node_modules", e.Name()))
		}
	}
	scoped, _ := os.ReadDir(filepath.Join(abs, "node_modules", "@deepseek-ai"))
	for _, e := range scoped {
		from := filepath.Join(abs, "node_modules", "@deepseek-ai", e.Name())
		to := filepath.Join(dst, "node_modules", "@deepseek-ai", e.Name())
		if e.Name() != pkg {
			link(from, to)
			continue
		}
		os.MkdirAll(filepath.Join(to, "lib"), 0o755)
		for _, name := range []string{"package.json", "lib/client.js"} {
			data, err := os.ReadFile(filepath.Join(from, name))
			if err != nil {
				t.Fatal(err)
			}
			if name == "lib/client.js" {
				data = edit(data)
			}
			if err := os.WriteFile(filepath.Join(to, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dst
}

// TestABundleItDoesNotKnowFailsNamingIt: a bundle changed so that the
// shim cannot read what it reads is refused when the evaluator starts,
// naming the file, never derived from (a shim that derived nothing would
// agree with every log without a recovery node).
func TestABundleItDoesNotKnowFailsNamingIt(t *testing.T) {
	const conv, rt = "dsh-client-ui-conversation", "dsh-client-runtime"
	replace := func(old, new string) func([]byte) []byte {
		return func(b []byte) []byte {
			if !bytes.Contains(b, []byte(old)) {
				t.Fatalf("the bundle has no %q to change", old)
			}
			return bytes.Replace(b, []byte(old), []byte(new), 1)
		}
	}
	tests := []struct {
		name, pkg string
		edit      func([]byte) []byte
		says      string
	}{
		{"not a module-loader bundle", conv, func([]byte) []byte { return []byte("export const x = 1\n") }, "declared no module"},
		{"another module's id", conv, replace(`id: "@deepseek-ai/dsh-client-ui-conversation"`, `id: "@deepseek-ai/dsh-client-ui-chat"`), "not the module-loader bundle"},
		{"a module the shim does not provide", conv, replace(`require("react/jsx-runtime")`, `require("react-dom/client")`), `requires "react-dom/client"`},
		{"the turn-error Definition no longer registered", conv, replace("registerTurnErrorConversationNode(ctx);\n\t\t\tregisterTurnMaxTokens", "registerTurnMaxTokens"), "without registering the turn-error Definition"},
		{"registrations after the page's services", conv, replace("registerConversationNodes(ctx);\n\t\t\tregisterChatNodeRenderers(ctx);", "ctx.settingsScope.bind({});\n\t\t\tregisterConversationNodes(ctx);\n\t\t\tregisterChatNodeRenderers(ctx);"), "reached settingsScope.bind without registering"},
		{"Definitions that build no node", conv, replace("function chatNode(context, kind, anchorSeq, data, options = {}) {", "function chatNode(context, kind, anchorSeq, data, options = {}) {\n\t\t\treturn null;"), "derive no Chat node"},
		{"a runtime without the assembler", rt, replace("exports.ConversationNodeAssembler = ConversationNodeAssembler;", ""), "exports no ConversationNodeAssembler"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := installWith(t, tt.pkg, tt.edit)
			_, err := NewPool(dir, 1)
			if err == nil {
				t.Fatal("the evaluator started")
			}
			t.Log(err)
			file := filepath.Join(dir, "node_modules", "@deepseek-ai", tt.pkg, "lib", "client.js")
			if msg := err.Error(); !strings.Contains(msg, file) || !strings.Contains(msg, tt.says) {
				t.Errorf("error %q, want it to name %s and say %q", msg, file, tt.says)
			}
		})
	}
}

// TestPatchedViewCodeIsFound: each patch of dshview/patches (a bug put
// into DSH's view code) makes DSH's view code part from turnsim's view on
// the scenarios, and the untouched install does not.
func TestPatchedViewCodeIsFound(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("no patch command")
	}
	patches, _ := filepath.Glob("patches/*.patch")
	if len(patches) < 3 {
		t.Fatalf("%d patches", len(patches))
	}
	var logs [][]session.Event
	for _, file := range scenarioFiles(t) {
		rel, _ := filepath.Rel(filepath.Join("..", "scenarios"), file)
		logs = append(logs, scenarioLog(t, rel))
	}
	for _, p := range patches {
		t.Run(filepath.Base(p), func(t *testing.T) {
			text, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			pkg := strings.SplitN(strings.TrimPrefix(string(text[bytes.Index(text, []byte("--- a/")):]), "--- a/"), "/", 2)[0]
			abs, _ := filepath.Abs(p)
			dir := installWith(t, pkg, func(b []byte) []byte { return b })
			cmd := exec.Command("patch", "--quiet", "--forward", "--batch", "-p2", "-d", filepath.Join(dir, "node_modules", "@deepseek-ai", pkg), "-i", abs)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s does not apply: %v %s", p, err, out)
			}
			c := Checker{Pool: poolOver(t, dir, 1)}
			differ := 0
			for _, events := range logs {
				cmp, err := c.Derive(events)
				if err != nil {
					t.Fatal(err)
				}
				if vs, _ := cmp.Verdict(); len(vs) > 0 {
					differ++
					break // one log found it: the others would cost make test seconds each patch
				}
			}
			if differ == 0 {
				t.Errorf("no scenario's log parts from turnsim's view under %s", p)
			}
		})
	}
}

// TestTheSameLogGivesTheSameAnswer: two evaluators, one of them with a
// history of other logs behind it, answer a log with the same bytes.
func TestTheSameLogGivesTheSameAnswer(t *testing.T) {
	dir := install(t)
	busy, fresh := poolOver(t, dir, 1), poolOver(t, dir, 1)
	logs := campaignLogs(40)
	for _, events := range logs[1:] {
		if _, err := busy.Evaluate(events, Views(events)); err != nil {
			t.Fatal(err)
		}
	}
	for _, events := range logs[:10] {
		a, err := busy.Evaluate(events, Views(events))
		if err != nil {
			t.Fatal(err)
		}
		b, err := fresh.Evaluate(events, Views(events))
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("two evaluators answered differently:\n%s\n%s", ja, jb)
		}
	}
}

// TestACampaignBesideDSHsView: a campaign with --dsh-view's checker
// derives every log, finds no difference, counts the recorded findings
// by class apart from violations, and exercises differs-from-dsh-view.
func TestACampaignBesideDSHsView(t *testing.T) {
	const seeds = 150 // the first recorded finding is in seed 0x6
	c := campaign.Config{First: 1, Count: seeds, Workers: 2, Sim: sim.Options{ViewCheck: Checker{Pool: pool(t, 2)}}, Stats: true}
	sum := campaign.Run(context.Background(), c, func(res *campaign.Result) {
		for _, v := range res.Violations {
			t.Errorf("seed %s: %s", res.Seed, v.Line())
		}
		if res.Internal != "" {
			t.Errorf("seed %s: %s", res.Seed, res.Internal)
		}
	})
	if sum.Runs != seeds || sum.Violations != 0 {
		t.Fatalf("%s", sum)
	}
	if len(sum.ViewFindings) == 0 || sum.ViewFindings[0].Reproduce == "" {
		t.Errorf("no recorded finding counted, or without its reproduction: %+v", sum.ViewFindings)
	}
	report := sum.Coverage.Report()
	if !slices.ContainsFunc(report.Invariants, func(r campaign.CoverageRow) bool {
		return r.Name == string(oracle.DiffersFromDSHView) && r.Count == seeds
	}) {
		t.Errorf("differs-from-dsh-view not exercised in every run: %v", report.Invariants)
	}
}
