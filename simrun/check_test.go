package simrun

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/turnsim/turnsim/internal/sharedlogs"
)

var update = flag.Bool("update", false, "rewrite golden files")

// simrun runs the command in-process and returns its exit status and
// outputs.
func simrun(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	status := run(args, &stdout, &stderr)
	return status, stdout.String(), stderr.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestCheckSharedLogs: the real DSH logs check clean.
func TestCheckSharedLogs(t *testing.T) {
	dir, files := sharedlogs.Files(t)
	status, out, errOut := simrun("check", dir)
	want := fmt.Sprintf("%d files, 0 violations, 0 errors", len(files))
	if status != exitClean || lastLine(out) != want {
		t.Errorf("status %d, last line %q, want 0 and %q\n%s%s", status, lastLine(out), want, out, errOut)
	}
	if got := strings.Count(out, ": ok\n"); got != len(files) {
		t.Errorf("%d ok lines for %d files", got, len(files))
	}
}

// TestCheckViewGolden: the sample logs with their derived nodes, as a user
// sees them. Rewrite with -update after reading the diff.
func TestCheckViewGolden(t *testing.T) {
	status, out, _ := simrun("check", "--view", filepath.Join("..", "examples", "logs"))
	if status != exitClean {
		t.Fatalf("status %d:\n%s", status, out)
	}
	golden := filepath.Join("testdata", "check-view.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), out); diff != "" {
		t.Errorf("check --view output (-want +got):\n%s", diff)
	}
}

const v1Header = `{"type":"session","version":1,"id":"s","createdAt":0,"delegationDepth":0}` + "\n"

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckBadInput: each malformed log is an input error with its line
// number, and the run exits 2.
func TestCheckBadInput(t *testing.T) {
	tests := []struct {
		name, content string
		want          string
	}{
		{"bad-json.jsonl", v1Header + `{"type":"turn/start","data":{"turn":1}}` + "\n" + `{"type":"turn/end","data":` + "\n", "bad-json.jsonl:3: error: invalid JSON at column 27: the input ends inside a value"},
		{"long-line.jsonl", v1Header + `{"type":"turn/start","data":{"turn":1,"pad":"` + strings.Repeat("x", 300) + `"}}` + "\n", "long-line.jsonl:2: error: a line of 349 bytes is over the limit of 200 bytes (raise it with --max-line-bytes)"},
		{"missing-type.jsonl", v1Header + `{"data":{"turn":1}}` + "\n", "missing-type.jsonl:2: error: missing type"},
		{"seq-gap.jsonl", v1Header + `{"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}` + "\n" + `{"type":"step/start","seq":5,"time":0,"data":{"turn":1,"step":1}}` + "\n", "seq-gap.jsonl:3: error: step/start: seq gap: seq 5, expected 1"},
		{"newer.jsonl", `{"type":"session","version":7,"id":"s","createdAt":0}` + "\n", "newer.jsonl:1: error: uses log format v7"},
		{"header-delta.jsonl", `{"type":"session","version":0,"id":"s","createdAt":0}` + "\n" + `{"type":"request/header-delta","data":{}}` + "\n", "header-delta.jsonl:2: error: request/header-delta"},
		{"mode-set.jsonl", `{"type":"session","version":0,"id":"s","createdAt":0}` + "\n" + `{"type":"mode/set","data":{}}` + "\n", "mode-set.jsonl:2: error: mode/set"},
		{"fallback.jsonl", `{"type":"session","version":0,"id":"s","createdAt":0}` + "\n" + `{"type":"turn/start","data":{"turn":1}}` + "\n" + `{"type":"request/header","data":{"header":{"config":{"provider":"p","model":"m"}},"reason":"fallback"}}` + "\n", `fallback.jsonl:3: error: request/header with reason "fallback"`},
		{"binary.jsonl", "\x00\x01\x02\n", "binary.jsonl:1: error:"},
		// encoding/json's own words once: "json: cannot unmarshal number
		// -1e+308 into Go value of type int64".
		{"created-at.jsonl", `{"type":"session","version":1,"id":"s","createdAt":-1e308,"delegationDepth":0}` + "\n", "created-at.jsonl:1: error: header createdAt must be an integer, got -1e308"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), tt.name, tt.content)
			status, out, _ := simrun("check", "--max-line-bytes", "200", path)
			if status != exitUsage {
				t.Errorf("status %d, want 2", status)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
			if lastLine(out) != "1 files, 0 violations, 1 errors" {
				t.Errorf("last line %q", lastLine(out))
			}
		})
	}
}

// violating is a log whose third retry exceeds maxRetries 2.
func violating() string {
	var b strings.Builder
	b.WriteString(v1Header)
	lines := []string{`{"type":"turn/start","data":{"turn":1}}`, `{"type":"step/start","data":{"turn":1,"step":1}}`,
		`{"type":"request/header","data":{"header":{"config":{"provider":"mock","model":"m"}},"reason":"initial"}}`}
	for n := 1; n <= 3; n++ {
		lines = append(lines,
			`{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"busy","code":"SERVER"}}}}}`,
			fmt.Sprintf(`{"type":"llm/retry","data":{"retryId":"r","turn":1,"step":1,"provider":"mock","mode":"normal","policyKey":"k","retry":%d,"maxRetries":2,"delayMs":25,"failure":{"message":"busy","code":"SERVER"}}}`, n),
			fmt.Sprintf(`{"type":"llm/retry-started","data":{"retryId":"r","turn":1,"step":1,"retry":%d}}`, n))
	}
	lines = append(lines, `{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"busy","code":"SERVER"}}}}}`,
		`{"type":"step/end","data":{"turn":1,"step":1}}`,
		`{"type":"turn/end","data":{"turn":1,"reason":{"kind":"error","error":{"message":"busy","code":"SERVER"}}}}`)
	b.WriteString(strings.Join(lines, "\n") + "\n")
	return b.String()
}

func TestCheckExitStatus(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("..", "examples", "logs", "exhausted-server.jsonl")
	bad := writeFile(t, dir, "violating.jsonl", violating())
	broken := writeFile(t, dir, "broken.jsonl", v1Header+"{\n")
	tests := []struct {
		why    string
		args   []string
		status int
		last   string
	}{
		{"a clean log", []string{"check", good}, exitClean, "1 files, 0 violations, 0 errors"},
		{"a violation", []string{"check", bad}, exitViolation, "1 files, 1 violations, 0 errors"},
		{"violations outrank input errors", []string{"check", bad, broken}, exitViolation, "2 files, 1 violations, 1 errors"},
		{"only an input error", []string{"check", good, broken}, exitUsage, "2 files, 0 violations, 1 errors"},
		{"a path that does not exist", []string{"check", filepath.Join(dir, "nope")}, exitUsage, "0 files, 0 violations, 1 errors"},
		{"flags may follow the paths", []string{"check", bad, "--strict"}, exitViolation, "1 files, 1 violations, 0 errors"},
	}
	for _, tt := range tests {
		status, out, errOut := simrun(tt.args...)
		if status != tt.status || lastLine(out) != tt.last {
			t.Errorf("%s: status %d, last line %q; want %d, %q\n%s%s", tt.why, status, lastLine(out), tt.status, tt.last, out, errOut)
		}
	}
	_, out, _ := simrun("check", bad)
	if want := "violating.jsonl: retry-budget turn 1 step 1 seqs 10: retry 3 exceeds maxRetries 2"; !strings.Contains(out, want) {
		t.Errorf("the violation line is not %q:\n%s", want, out)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"check"}, {"check", "--nope", "x"}, {"frobnicate"}} {
		if status, _, errOut := simrun(args...); status != exitUsage || errOut == "" {
			t.Errorf("simrun %v: status %d, stderr %q; want 2 and a usage message", args, status, errOut)
		}
	}
	if status, out, _ := simrun("help"); status != exitClean || !strings.Contains(out, "check PATH") {
		t.Errorf("help: status %d\n%s", status, out)
	}
	if status, _, errOut := simrun("check", "-h"); status != exitClean || !strings.Contains(errOut, "--view") {
		t.Errorf("check -h: status %d\n%s", status, errOut)
	}
	// simrun help run is run's help, as run -h (it printed the commands).
	if status, _, errOut := simrun("help", "run"); status != exitClean || !strings.HasPrefix(errOut, "usage: simrun run ") {
		t.Errorf("help run: status %d\n%s", status, errOut)
	}
}

// TestCheckJSON: one object per file, then the summary object; the text
// summary goes to stderr so stdout stays JSON lines.
func TestCheckJSON(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "a-violating.jsonl", violating())
	broken := writeFile(t, dir, "b-broken.jsonl", v1Header+`{"type":"turn/start","data":{"turn":1}}`+"\n{\n")
	good := filepath.Join("..", "examples", "logs", "auth-error.jsonl")
	status, out, errOut := simrun("check", "--json", "--view", bad, broken, good)
	if status != exitViolation {
		t.Errorf("status %d, want 1", status)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 3 results and a summary:\n%s", len(lines), out)
	}
	var results []checkResult
	for _, l := range lines[:3] {
		var r checkResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("not JSON: %s: %v", l, err)
		}
		results = append(results, r)
	}
	if len(results[0].Violations) != 1 || results[0].Violations[0].Invariant != "retry-budget" {
		t.Errorf("first result: %+v", results[0])
	}
	if results[1].Error == nil || results[1].Error.Line != 3 {
		t.Errorf("second result's error: %+v, want line 3", results[1].Error)
	}
	if len(results[2].Nodes) != 1 || results[2].Nodes[0].Text != "This turn failed · API key is invalid · AUTH" {
		t.Errorf("third result's nodes: %+v", results[2].Nodes)
	}
	var summary map[string]int
	if err := json.Unmarshal([]byte(lines[3]), &summary); err != nil || summary["files"] != 3 || summary["violations"] != 1 || summary["errors"] != 1 {
		t.Errorf("summary %s (%v)", lines[3], err)
	}
	if strings.TrimSpace(errOut) != "3 files, 1 violations, 1 errors" {
		t.Errorf("stderr %q", errOut)
	}
}

// TestCheckWalksFolders: folders are walked for *.jsonl and *.jsonl.zstd
// in lexical order; other files are left alone; a torn tail is noted.
func TestCheckWalksFolders(t *testing.T) {
	dir := t.TempDir()
	sample, err := os.ReadFile(filepath.Join("..", "examples", "logs", "recovered-rate-limit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	enc, _ := zstd.NewWriter(&z)
	enc.Write(sample)
	enc.Close()
	writeFile(t, dir, "b/session.jsonl.zstd", z.String())
	writeFile(t, dir, "a/session.jsonl", string(sample[:len(sample)-1])) // torn last line
	writeFile(t, dir, "a/notes.txt", "not a log")
	torn, zst := filepath.Join(dir, "a", "session.jsonl"), filepath.Join(dir, "b", "session.jsonl.zstd")
	// Without its last line the turn never ends; crash repair closes it.
	status, out, _ := simrun("check", dir)
	want := torn + ": note: (torn last line 19 ignored)\n" +
		torn + ": log-well-formed turn 1 seqs 16: turn 1 never ends: the log stops inside it (after a crash, --repair closes it as DSH's loader does)\n" +
		zst + ": ok\n" +
		"2 files, 1 violations, 0 errors\n"
	if status != exitViolation || out != want {
		t.Errorf("status %d, output (-want +got):\n%s", status, cmp.Diff(want, out))
	}
	status, out, _ = simrun("check", "--repair", dir)
	want = torn + ": ok (torn last line 19 ignored)\n" + zst + ": ok\n" + "2 files, 0 violations, 0 errors\n"
	if status != exitClean || out != want {
		t.Errorf("--repair: status %d, output (-want +got):\n%s", status, cmp.Diff(want, out))
	}
	empty := t.TempDir()
	if status, out, _ := simrun("check", empty); status != exitUsage || !strings.Contains(out, "no *.jsonl") {
		t.Errorf("an empty folder: status %d\n%s", status, out)
	}
}

// zstdLog compresses lines as one zstd frame, repeated frames times: the
// frames decode as one stream, so a log of many events takes little to
// make.
func zstdLog(t *testing.T, lines string, frames int) []byte {
	t.Helper()
	var z bytes.Buffer
	enc, err := zstd.NewWriter(&z)
	if err != nil {
		t.Fatal(err)
	}
	enc.Write([]byte(lines))
	enc.Close()
	return bytes.Repeat(z.Bytes(), frames)
}

const titleSet = `{"type":"title/set","data":{"title":"t"}}` + "\n"

// TestCheckBoundsATurn: a turn longer than --max-turn-events is an input
// error at the line of the event past the bound, naming the bound and
// its flag; the same events outside a turn are read in little memory and
// pass. A 77 KB zstd log of 20 million title/set events inside one turn
// once took check past 1.5 GB.
func TestCheckBoundsATurn(t *testing.T) {
	dir := t.TempDir()
	const v0Header = `{"type":"session","version":0,"id":"s","createdAt":0}` + "\n"
	inTurn := writeFile(t, dir, "in-turn.jsonl.zstd", string(zstdLog(t, v0Header+`{"type":"turn/start","data":{"turn":1}}`+"\n"+strings.Repeat(titleSet, 300), 1)))
	outside := writeFile(t, dir, "outside.jsonl.zstd", string(zstdLog(t, v0Header+strings.Repeat(titleSet, 300), 1)))
	for _, row := range []struct {
		why    string
		args   []string
		status int
		out    string
	}{
		{"a turn past the bound", []string{"--max-turn-events", "100", inTurn}, exitUsage,
			inTurn + ":102: error: turn 1, still open after 100 events, is over the limit of 100 events a turn (raise it with --max-turn-events)\n1 files, 0 violations, 1 errors\n"},
		{"the same turn within the default bound: it never ends", []string{inTurn}, exitViolation,
			inTurn + ": log-well-formed turn 1 seqs 300: turn 1 never ends: the log stops inside it (after a crash, --repair closes it as DSH's loader does)\n1 files, 1 violations, 0 errors\n"},
		{"events outside a turn are not counted", []string{"--max-turn-events", "100", outside}, exitClean,
			outside + ": ok\n1 files, 0 violations, 0 errors\n"},
	} {
		status, out, errOut := simrun(append([]string{"check"}, row.args...)...)
		if status != row.status || out != row.out {
			t.Errorf("%s: status %d, want %d; output (-want +got):\n%s%s", row.why, status, row.status, cmp.Diff(row.out, out), errOut)
		}
	}
}

// TestCheckLimitFlags: a limit that is not a positive number, or is over
// its ceiling, is bad usage naming the flag (exit 2), before any input is
// read. NaN disabled --max-duration-ms; --max-depth 100000000 let a
// 3,000,000-deep scenario overflow the stack.
func TestCheckLimitFlags(t *testing.T) {
	good := filepath.Join("..", "examples", "logs", "auth-error.jsonl")
	for _, row := range []struct {
		why  string
		args []string
		want string // in stderr
	}{
		{"NaN bounds no duration", []string{"check", "--max-duration-ms", "NaN", good}, `invalid value "NaN" for flag -max-duration-ms: must be a finite number of ms`},
		{"Inf bounds no duration", []string{"check", "--max-duration-ms", "Inf", good}, "-max-duration-ms: must be a finite number of ms"},
		{"a negative duration", []string{"scenario", "--max-duration-ms", "-1", good}, "-max-duration-ms: must be > 0"},
		{"a negative depth", []string{"scenario", "--max-depth", "-1", good}, "-max-depth: must be ≥ 1"},
		{"a depth past the ceiling", []string{"scenario", "--max-depth", "100000000", good}, "-max-depth: must be at most 1000, the ceiling of this bound"},
		{"no events a turn", []string{"check", "--max-turn-events", "0", good}, "-max-turn-events: must be ≥ 1"},
	} {
		status, out, errOut := simrun(row.args...)
		if status != exitUsage || !strings.Contains(errOut, row.want) || out != "" {
			t.Errorf("%s: status %d, stderr %q, stdout %q; want 2 and %q", row.why, status, errOut, out, row.want)
		}
	}
	// At the ceiling, a deeper input is refused as input, saying that the
	// bound can go no higher.
	deep := writeFile(t, t.TempDir(), "deep.json", strings.Repeat("[", 5000)+strings.Repeat("]", 5000))
	status, out, _ := simrun("scenario", "--max-depth", "1000", deep)
	if want := deep + ": error: line 1, column 1002: nesting 1001 deep is over the limit of 1000, the most --max-depth allows\n"; status != exitUsage || !strings.HasPrefix(out, want) {
		t.Errorf("a scenario past the ceiling: status %d, output %q, want 2 and %q", status, out, want)
	}
}

// escLog is a log whose exhausted turn's failure code and message hold
// ESC sequences, and whose retry answers a code its policy does not list.
func escLog() string {
	const code, msg = `\u001b[2J`, `\u001b[31mred`
	return v1Header + strings.Join([]string{
		`{"type":"turn/start","data":{"turn":1}}`,
		`{"type":"step/start","data":{"turn":1,"step":1}}`,
		`{"type":"request/header","data":{"header":{"config":{"provider":"mock","model":"m"}},"reason":"initial"}}`,
		`{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"` + msg + `","code":"` + code + `"}}}}}`,
		`{"type":"llm/retry","data":{"retryId":"r\u001b]0;x\u0007","turn":1,"step":1,"provider":"mock","mode":"normal","policyKey":"[\"normal\",2,[\"SERVER\"],25,50,1]","retry":1,"maxRetries":2,"delayMs":25,"failure":{"message":"` + msg + `","code":"` + code + `"}}}`,
		`{"type":"llm/retry-started","data":{"retryId":"r\u001b]0;x\u0007","turn":1,"step":1,"retry":1}}`,
		`{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"` + msg + `","code":"` + code + `"}}}}}`,
		`{"type":"step/end","data":{"turn":1,"step":1}}`,
		`{"type":"turn/end","data":{"turn":1,"reason":{"kind":"error","error":{"message":"` + msg + `","code":"` + code + `"}}}}`,
	}, "\n") + "\n"
}

// TestCheckEscapesTheLog: the nodes and violations check --view prints
// quote the log through the one escaper (strictjson.Printable); a
// failure's code and message once reached the terminal raw, ESC and all.
func TestCheckEscapesTheLog(t *testing.T) {
	path := writeFile(t, t.TempDir(), "esc.jsonl", escLog())
	_, out, _ := simrun("check", "--view", path)
	for _, want := range []string{
		`non-retryable-stays-terminal turn 1 step 1 seqs 4: a normal-mode policy retried \x1b[2J, which its retryable codes [SERVER] do not list`,
		`turn-error  seq 8 turn 1 step 1: This turn failed · \x1b[31mred · \x1b[2J`,
		`model-retry seq 4 turn 1 step 1: Retried model request (1/2) · 1s [started]`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("a raw control character reached the output:\n%q", out)
	}
	// JSON escapes it its own way, and keeps the log's text.
	_, out, _ = simrun("check", "--json", "--view", path)
	if !strings.Contains(out, `"code":"\u001b[2J"`) {
		t.Errorf("--json lost the code:\n%s", out)
	}
}

// TestCheckInterruptedIsMarked: check stopped by SIGTERM or SIGINT marks
// its summary, as run, explore and budget do: --json's last object once
// lacked "interrupted": true and the text summary read like a whole run.
func TestCheckInterruptedIsMarked(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	// A hundred million events: far more than a check reads before the
	// first signal.
	path := writeFile(t, t.TempDir(), "long.jsonl.zstd", string(zstdLog(t, v1Header, 1))+string(zstdLog(t, strings.Repeat(titleSet, 100_000), 1000)))
	for _, row := range []struct {
		why  string
		sig  syscall.Signal
		args []string
		last string // the last line of stdout
	}{
		{"--json", syscall.SIGTERM, []string{"check", "--json", path}, `{"errors":0,"files":0,"interrupted":true,"violations":0}`},
		{"text", syscall.SIGINT, []string{"check", path}, "0 files, 0 violations, 0 errors (interrupted)"},
	} {
		status, out, errOut := interrupt(t, row.sig, row.args...)
		if status != exitInterrupted || lastLine(out) != row.last {
			t.Errorf("%s: exit %d, last line %q; want 130 and %q\nstdout:\n%s\nstderr:\n%s", row.why, status, lastLine(out), row.last, out, errOut)
		}
	}
}
