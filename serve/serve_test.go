package serve_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/serve"
	"github.com/turnsim/turnsim/sim"
)

func server(t *testing.T, scenario string) (*httptest.Server, *bytes.Buffer) {
	t.Helper()
	s, err := sim.ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatal(err)
	}
	srv := serve.New(s)
	var log bytes.Buffer
	srv.Log = &log
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts, &log
}

func post(t *testing.T, url string, header map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/chat/completions", strings.NewReader(`{"model":"deepseek-v4-flash","stream":true}`))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestHTTPFailures: each code is the status (and detail) that DSH's
// DeepSeek adapter maps back to it (docs/dsh.md#deepseek-adapter).
func TestHTTPFailures(t *testing.T) {
	tests := []struct {
		fail       string
		status     int
		retryAfter string
		detail     string
	}{
		{`{"code":"AUTH","message":"bad key"}`, 401, "", `{"error":{"message":"bad key"}}`},
		{`{"code":"AUTH","message":"forbidden","status":403}`, 403, "", `{"error":{"message":"forbidden"}}`},
		{`{"code":"RATE_LIMIT","message":"busy","retryAfterMs":2000}`, 429, "2", `{"error":{"message":"busy"}}`},
		{`{"code":"RATE_LIMIT","message":"busy","retryAfterMs":1500}`, 429, "2", `{"error":{"message":"busy"}}`},
		{`{"code":"QUOTA","message":"no credits"}`, 429, "", `{"error":{"code":"insufficient_quota","message":"no credits"}}`},
		{`{"code":"CONTEXT_WINDOW_EXCEEDED","message":"too long"}`, 400, "", `{"error":{"code":"context_length_exceeded","message":"too long","type":"invalid_request_error"}}`},
		{`{"code":"INVALID_REQUEST","message":"bad"}`, 400, "", `{"error":{"message":"bad"}}`},
		{`{"code":"SERVER","message":"upstream 503","status":503}`, 503, "", `{"error":{"message":"upstream 503"}}`},
		{`{"code":"SERVER","message":"oops"}`, 500, "", `{"error":{"message":"oops"}}`},
		{`{"code":"HTTP_418","message":"teapot"}`, 418, "", `{"error":{"message":"teapot"}}`},
	}
	for _, tt := range tests {
		ts, _ := server(t, `{"name":"x","requests":[{"fail":`+tt.fail+`}]}`)
		resp := post(t, ts.URL, nil)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || resp.Header.Get("Retry-After") != tt.retryAfter || string(body) != tt.detail {
			t.Errorf("%s: %d retry-after %q %s; want %d %q %s", tt.fail, resp.StatusCode, resp.Header.Get("Retry-After"), body, tt.status, tt.retryAfter, tt.detail)
		}
	}
}

// events reads a server-sent event stream's data lines.
func events(t *testing.T, r io.Reader) []string {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "data: ") {
			out = append(out, strings.TrimPrefix(line, "data: "))
		}
	}
	return out
}

func TestStreams(t *testing.T) {
	ts, log := server(t, `{"name":"x","requests":[
		{"toolCalls":[{"name":"bash","arguments":"{\"command\":\"ls\"}"}]},
		{"fail":{"code":"STREAM_CLOSED"},"afterChunks":1,"stream":{"text":"partial"}},
		{"fail":{"code":"EMPTY_RESPONSE"}},
		{"maxTokens":"cut"}],
		"summaries":[{"text":"condensed"}]}`)
	// A tool call: its id, name and arguments in one delta (one chunk in
	// DSH's adapter, as in the model), then tool_calls.
	resp := post(t, ts.URL, map[string]string{"Authorization": "Bearer sk-secret"})
	got := events(t, resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" || len(got) != 4 || got[3] != "[DONE]" ||
		!strings.Contains(got[0], `"id":"call_1_1"`) || !strings.Contains(got[0], `"arguments":"{\"command\":\"ls\"}"`) ||
		!strings.Contains(got[1], `"finish_reason":"tool_calls"`) || !strings.Contains(got[2], `"usage"`) {
		t.Errorf("tool-call stream:\n%s", strings.Join(got, "\n"))
	}
	// A summary request takes the summaries list, not the next request.
	resp = post(t, ts.URL, map[string]string{"x-deepseek-harness-compact": "1"})
	got = events(t, resp.Body)
	resp.Body.Close()
	if !strings.Contains(got[0], `"content":"condensed"`) {
		t.Errorf("summary stream: %v", got)
	}
	// STREAM_CLOSED: the first delta, then the end without [DONE].
	resp = post(t, ts.URL, nil)
	got = events(t, resp.Body)
	resp.Body.Close()
	if len(got) != 1 || !strings.Contains(got[0], `"content":"partial"`) {
		t.Errorf("STREAM_CLOSED stream: %v", got)
	}
	// EMPTY_RESPONSE: a stop without content.
	resp = post(t, ts.URL, nil)
	got = events(t, resp.Body)
	resp.Body.Close()
	if len(got) != 2 || !strings.Contains(got[0], `"finish_reason":"stop"`) || strings.Contains(got[0], "content") {
		t.Errorf("EMPTY_RESPONSE stream: %v", got)
	}
	// max tokens: finish_reason length.
	resp = post(t, ts.URL, nil)
	got = events(t, resp.Body)
	resp.Body.Close()
	if !strings.Contains(got[1], `"finish_reason":"length"`) {
		t.Errorf("max-tokens stream: %v", got)
	}
	// The list ran out: "ok".
	resp = post(t, ts.URL, nil)
	got = events(t, resp.Body)
	resp.Body.Close()
	if !strings.Contains(got[0], `"content":"ok"`) {
		t.Errorf("after the list: %v", got)
	}
	// The log: one line per request, kinds in order, no credential.
	var kinds []string
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var rec struct {
			Kind    string            `json:"kind"`
			Headers map[string]string `json:"headers"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, rec.Kind)
		if _, leaked := rec.Headers["Authorization"]; leaked {
			t.Errorf("the log keeps a credential header: %s", line)
		}
	}
	if diff := cmp.Diff([]string{"conversation", "summary", "conversation", "conversation", "conversation", "conversation"}, kinds); diff != "" {
		t.Errorf("logged kinds (-want +got):\n%s", diff)
	}
	if strings.Contains(log.String(), "sk-secret") {
		t.Errorf("the log contains the API key")
	}
}

// TestTransportCutsTheConnection: the client sees a transport error, not
// a response.
func TestTransportCutsTheConnection(t *testing.T) {
	ts, _ := server(t, `{"name":"x","requests":[{"fail":{"code":"TRANSPORT"}}]}`)
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/chat/completions", strings.NewReader(`{}`))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("got a %d response, want a transport error", resp.StatusCode)
	}
}

func TestCheck(t *testing.T) {
	s, _ := sim.ParseScenario([]byte(`{"name":"x","requests":[{"fail":{"code":"FLAKY"}},{"fail":{"code":"RATE_LIMIT","retryAfterMs":1500}},{"fail":{"code":"HTTP_404"}}]}`))
	got := serve.Check(s)
	if len(got) != 2 || !strings.Contains(got[0], `"FLAKY" has no wire form`) || !strings.Contains(got[1], "retry-after 2 s") {
		t.Errorf("Check = %q", got)
	}
}
