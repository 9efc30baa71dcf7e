package simrun

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop/session"
)

// TestScenarioBadFiles: a bad scenario names the file, the field path and
// the reason, and the run exits 2.
func TestScenarioBadFiles(t *testing.T) {
	tests := []struct {
		why, content, want string
	}{
		{"an unknown field", `{"name":"x","retries":3}`, "retries: unknown field"},
		{"a wrong type", `{"name":"x","contextWindow":"big"}`, "contextWindow: must be an integer ≥ 1"},
		{"an unknown cause", `{"name":"x","world":[{"do":"cancel","cause":"boredom","atMs":1}]}`, `world[0].cause: unknown cause "boredom"`},
		{"a fail without a code", `{"name":"x","requests":[{"text":"ok"},{"fail":{"message":"boom"}}]}`, "requests[1].fail.code: missing: a failure needs a code"},
		{"two outcomes in one request", `{"name":"x","requests":[{"text":"ok","hang":true}]}`, "requests[0]: needs exactly one of text, toolCalls, maxTokens, fail or hang"},
		{"a bad policy field", `{"name":"x","retryPolicy":{"backoff":{"jitterRatio":2}}}`, "retryPolicy.backoff.jitterRatio: must be in [0,1]"},
		{"an unknown listener", `{"name":"x","listenerOrder":["retry","magic"]}`, `listenerOrder[1]: unknown listener "magic"`},
		{"a latency that would overflow virtual time", `{"name":"x","requests":[{"text":"ok","latencyMs":1e13}]}`, "requests[0].latencyMs: 10000000000000 ms is over the limit of 2147483647 ms (raise it with --max-duration-ms)"},
		{"a tool result of 2 GB", `{"name":"x","requests":[{"toolCalls":[{"name":"t","resultChars":2000000000}]}]}`, "requests[0].toolCalls[0].resultChars: 2000000000 is over the limit of 16777216 (raise it with --max-result-chars)"},
		// Each under --max-result-chars, together 80,000,000: 20 such
		// once took a 1.2 KB scenario to 1.14 GB.
		{"five tool results of 16,000,000 characters", `{"name":"x","requests":[{"toolCalls":[` + strings.TrimSuffix(strings.Repeat(`{"name":"t","result":"`+strings.Repeat("r", 99)+`","resultChars":16000000},`, 5), ",") + `]}]}`,
			"requests[0].toolCalls[4].resultChars: the tool results' total of 80000000 characters is over the limit of 67108864 (raise it with --max-total-result-chars)"},
		{"a duplicate key", `{"name":"x","name":"y"}`, `line 1, column 13: duplicate key "name"`},
		{"data after the scenario", `{"name":"x"} {"name":"y"}`, "line 1, column 14: data after the JSON value"},
		{"invalid UTF-8 in a name", "{\"name\":\"x\xff\"}", "line 1, column 11: invalid UTF-8 in a string"},
		{"a runtime context both DSH's and written out", `{"name":"x","runtimeContext":{"cwd":"/w","text":"t"}}`, "runtimeContext: is either {cwd}"},
		{"a runtime context section without its text", `{"name":"x","runtimeContext":{"text":"t","sections":[{"name":"a","txt":"b"}]}}`, "runtimeContext.sections[0].txt: unknown field"},
		{"chunks before a text answer", `{"name":"x","requests":[{"text":"ok","afterChunks":2}]}`, "requests[0].afterChunks: only a failure (fail) or a hang streams chunks first"},
		{"a nested unknown field", `{"name":"x","requests":[{"toolCalls":[{"name":"bash","args":"{}"}]}]}`, "requests[0].toolCalls[0].args: unknown field"},
		{"control characters in an unknown key are escaped, not sent to the terminal", "{\"name\":\"x\",\"\x7f\u009b31mk\":1}", `\x7f\u009b31mk: unknown field`},
		{"invalid JSON", "{\"name\":\"x\",\n\"requests\": [}", "line 2, column 14: unexpected }"},
		{"no name", `{}`, "name: missing"},
		{"an offset without its event", `{"name":"x","world":[{"do":"cancel","atMs":5,"plusMs":10}]}`, "world[0].plusMs: needs after (the event it counts from); use atMs for a time from the start"},
		{"a negative offset", `{"name":"x","world":[{"do":"cancel","after":"llm/retry","plusMs":-1}]}`, "world[0].plusMs: must be"},
		{"a misspelled event type", `{"name":"x","world":[{"do":"cancel","after":"llm/retried"}]}`, `world[0].after: unknown event type "llm/retried"`},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		path := filepath.Join(dir, "bad"+string(rune('a'+i))+".json")
		if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		status, out, _ := simrun("scenario", path)
		if status != exitUsage || !strings.Contains(out, path+": error: "+tt.want) {
			t.Errorf("%s: status %d, want 2 and %q in:\n%s", tt.why, status, path+": error: "+tt.want, out)
		}
	}
}

// TestScenarioTrace: spec63-exhausted-server, a turn that exhausts its
// retries (docs/dsh.md#retry-row), prints its timeline, writes a log that
// 'simrun check --view' accepts, and renders its nodes.
func TestScenarioTrace(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "exhausted.jsonl")
	status, out, errOut := simrun("scenario", "--view", "--trace", trace, filepath.Join("..", "scenarios", "spec63-exhausted-server.json"))
	if status != exitClean {
		t.Fatalf("status %d\n%s%s", status, out, errOut)
	}
	for _, want := range []string{
		"llm/retry             retry 1/2 delay 25ms SERVER 503",
		"llm/retry             retry 2/2 delay 50ms SERVER 503",
		"turn/end              error SERVER 503",
		"1 scenarios, 0 violations, 0 errors",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	status, out, _ = simrun("check", "--view", trace)
	for _, want := range []string{"Retried model request (2/2) · 1s", "This turn failed · upstream 503 · SERVER", "1 files, 0 violations, 0 errors"} {
		if status != exitClean || !strings.Contains(out, want) {
			t.Errorf("check --view: status %d, lacks %q:\n%s", status, want, out)
		}
	}
	_, events, err := session.ReadFile(trace, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for _, e := range events {
		if e.Type() == session.TypeStepStart {
			steps++
		}
	}
	if steps != 1 {
		t.Errorf("%d step/start events, want one", steps)
	}
}

// TestScenarioSeveralTraces: several scenarios write into a folder.
func TestScenarioSeveralTraces(t *testing.T) {
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join("..", "scenarios", "fact0*.json"))
	args := append([]string{"scenario", "--quiet", "--trace", dir}, files...)
	if status, out, _ := simrun(args...); status != exitClean {
		t.Fatalf("status %d\n%s", status, out)
	}
	written, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(written) != len(files) {
		t.Errorf("%d logs written for %d scenarios", len(written), len(files))
	}
	// One scenario and an existing folder: the log goes inside it (it
	// once failed on a rename over the folder).
	one := t.TempDir()
	if status, out, errOut := simrun("scenario", "--quiet", "--trace", one, files[0]); status != exitClean {
		t.Fatalf("one scenario into a folder: status %d\n%s%s", status, out, errOut)
	}
	if written, _ := filepath.Glob(filepath.Join(one, "*.jsonl")); len(written) != 1 {
		t.Errorf("one scenario into a folder wrote %v", written)
	}
}

func TestServeUsage(t *testing.T) {
	file := filepath.Join("..", "scenarios", "fact01-rate-limit-retry.json")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "give one --scenario FILE"},
		{[]string{"serve", "--scenario", file, "--listen", "0.0.0.0:8080"}, "only loopback addresses are served"},
		{[]string{"serve", "--scenario", file, "--listen", "10.0.0.1:8080"}, "only loopback addresses are served"},
		{[]string{"serve", "--scenario", filepath.Join(t.TempDir(), "missing.json")}, "missing.json: error"},
	} {
		status, _, errOut := simrun(tt.args...)
		if status != exitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("simrun %v: status %d, stderr %q; want 2 and %q", tt.args, status, errOut, tt.want)
		}
	}
}

// TestTraceNamesStayInTheFolder: a scenario's name is untrusted (corpus
// entries come from CI artifacts); its trace lands inside --trace DIR
// whatever the name says.
func TestTraceNamesStayInTheFolder(t *testing.T) {
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces")
	var files []string
	for i, name := range []string{"../escaped", "a/b", ".."} {
		f := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		os.WriteFile(f, []byte(`{"name":`+strconv.Quote(name)+`}`), 0o644)
		files = append(files, f)
	}
	if code, out, errOut := simrun(append([]string{"scenario", "--quiet", "--trace", traces}, files...)...); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	var written []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			written = append(written, p)
		}
		return nil
	})
	for _, p := range written {
		if filepath.Dir(p) != traces {
			t.Errorf("a trace landed outside %s: %s", traces, p)
		}
	}
	if len(written) != 3 {
		t.Errorf("%d traces written, want 3: %v", len(written), written)
	}
	// Two names that clean to one file name: the second is refused, not
	// written over the first.
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	os.WriteFile(a, []byte(`{"name":"x/y"}`), 0o644)
	os.WriteFile(b, []byte(`{"name":"x:y"}`), 0o644)
	code, out, _ := simrun("scenario", "--quiet", "--trace", filepath.Join(dir, "two"), a, b)
	if code != exitUsage || !strings.Contains(out, "would replace the one of "+a) {
		t.Errorf("two names, one file: exit %d\n%s", code, out)
	}
}

// TestNotRegularFiles: a named pipe given where a file is read is refused
// with its path and exit 2, at once (an open of a pipe with no writer
// would wait forever), alone or in a checked folder, as a policy or as a
// corpus entry.
func TestNotRegularFiles(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "x.jsonl")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	corpus := filepath.Join(dir, "corpus")
	os.MkdirAll(corpus, 0o755)
	syscall.Mkfifo(filepath.Join(corpus, "entry.json"), 0o644)
	for _, args := range [][]string{
		{"check", pipe},
		{"check", dir},
		{"run", "--seeds", "1", "--policy", pipe},
		{"run", "--seeds", "1", "--corpus", corpus},
		{"scenario", pipe},
	} {
		done := make(chan struct{})
		var code int
		var out, errOut string
		go func() { code, out, errOut = simrun(args...); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%v blocked on the pipe", args)
		}
		if code != 2 || !strings.Contains(out+errOut, "not a regular file (a named pipe)") {
			t.Errorf("%v: exit %d, %s%s", args, code, out, errOut)
		}
	}
}

// TestInputTextNeverRawOnTheTerminal: text from a scenario or a log
// (a name, an event type) reaches the terminal escaped: a name with an
// escape sequence once recoloured the timeline's header, an event type
// once printed raw in check's error.
func TestInputTextNeverRawOnTheTerminal(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "esc.json")
	os.WriteFile(scenario, []byte(`{"name":"n\u001b[31mred","requests":[{"text":"ok"}]}`), 0o644)
	log := filepath.Join(dir, "typ.jsonl")
	os.WriteFile(log, []byte(`{"type":"session","version":1,"id":"x","createdAt":0,"delegationDepth":0}`+"\n"+`{"type":"a\u007f\u009bb","seq":0,"time":0}`+"\n"), 0o644)
	for _, args := range [][]string{{"scenario", scenario}, {"check", log}} {
		_, out, errOut := simrun(args...)
		for _, line := range strings.Split(out+errOut, "\n") {
			if raw := strictjson.Unreadable(line); raw != "" {
				t.Errorf("simrun %s prints %s: %q", args[0], raw, line)
			}
		}
	}
}

// TestScenarioEscapesItsText: what scenario --view prints of a run (the
// timeline, the nodes, the violations) quotes the scenario's codes and
// messages through the one escaper: a failure's code and message once
// reached the terminal raw.
func TestScenarioEscapesItsText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "esc.json")
	scenario := `{"name":"esc \u001b[1m","requests":[{"fail":{"code":"\u001b[2J","message":"\u001b[31mred","status":500}}]}`
	if err := os.WriteFile(path, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, errOut := simrun("scenario", "--view", path)
	for _, want := range []string{
		`== esc \x1b[1m (` + path + ")",
		`turn/end              error \x1b[2J 500 "\x1b[31mred"`,
		`turn-error  seq 9 turn 1 step 1: This turn failed · \x1b[31mred · \x1b[2J`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s%s", want, out, errOut)
		}
	}
	if strings.ContainsRune(out, 0x1b) {
		t.Errorf("a raw ESC reached the output:\n%q", out)
	}
}
