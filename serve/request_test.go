package serve_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/turnsim/turnsim/serve"
	"github.com/turnsim/turnsim/sim"
)

// strictServer serves a scenario whose first answer is "first", with the
// bounds small enough to reach in a test.
func strictServer(t *testing.T) (*httptest.Server, *bytes.Buffer) {
	t.Helper()
	s, err := sim.ParseScenario([]byte(`{"name":"x","requests":[{"text":"first"},{"text":"second"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := serve.New(s)
	srv.MaxBodyBytes = 1 << 10
	srv.BodyTimeout = 200 * time.Millisecond
	srv.LogBodyBytes = 64
	var log bytes.Buffer
	srv.Log = &log
	ts := httptest.NewUnstartedServer(srv)
	ts.Config = srv.HTTPServer()
	ts.Start()
	t.Cleanup(ts.Close)
	return ts, &log
}

// raw sends bytes on a fresh connection and returns the status line.
func raw(t *testing.T, addr string, send func(net.Conn)) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	send(c)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

// TestBadBodiesTakeNoAnswer: a body serve cannot read or that is not one
// JSON object gets 4xx, and the scenario's next answer is still the first
// (it once got 200 and consumed it).
func TestBadBodiesTakeNoAnswer(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	for _, row := range []struct {
		why, body string
		status    int
		reason    string
	}{
		{"an empty body", "", 400, "no JSON value"},
		{"not JSON", "{model: 1}", 400, "line 1, column 2"},
		{"an array, not an object", "[]", 400, "not a JSON object"},
		{"absurdly nested", `{"messages":` + deep + `}`, 400, "raise it with --max-depth"},
		{"a duplicate key", `{"model":"a","model":"b"}`, 400, `duplicate key \"model\"`},
		{"data after the object", `{"model":"a"} {}`, 400, "data after the JSON value"},
		{"invalid UTF-8", "{\"model\":\"\xff\"}", 400, "UTF-8"},
		{"over the body limit", `{"pad":"` + strings.Repeat("x", 2000) + `"}`, 413, "raise it with --max-body-bytes"},
	} {
		ts, log := strictServer(t)
		resp, err := http.Post(ts.URL+"/chat/completions", "application/json", strings.NewReader(row.body))
		if err != nil {
			t.Fatalf("%s: %v", row.why, err)
		}
		detail, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != row.status || !strings.Contains(string(detail), row.reason) {
			t.Errorf("%s: %d %s, want %d and %q", row.why, resp.StatusCode, detail, row.status, row.reason)
		}
		resp = post(t, ts.URL, nil)
		got := events(t, resp.Body)
		resp.Body.Close()
		if len(got) == 0 || !strings.Contains(got[0], `"content":"first"`) {
			t.Errorf("%s: the next request was answered %v, want the scenario's first answer", row.why, got)
		}
		if first, _, _ := strings.Cut(log.String(), "\n"); !strings.Contains(first, `"kind":"refused"`) || !strings.Contains(first, fmt.Sprintf(`"answer":"%d `, row.status)) {
			t.Errorf("%s: the log's first line is %s", row.why, first)
		}
	}
}

// TestBrokenAndSlowBodies: what only a raw connection can send — a
// chunked body too big, a malformed chunked body, a body that stops
// arriving — is refused with its status, not answered 200.
func TestBrokenAndSlowBodies(t *testing.T) {
	ts, _ := strictServer(t)
	addr := ts.Listener.Addr().String()
	head := "POST /chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	for _, row := range []struct {
		why  string
		send func(net.Conn)
		want string
	}{
		{"a chunked body over the limit", func(c net.Conn) {
			fmt.Fprintf(c, "%sTransfer-Encoding: chunked\r\n\r\n", head)
			for range 3 {
				fmt.Fprintf(c, "200\r\n%s\r\n", strings.Repeat(" ", 0x200))
			}
			fmt.Fprint(c, "0\r\n\r\n")
		}, "HTTP/1.1 413 Request Entity Too Large"},
		{"a declared length over the limit, nothing sent", func(c net.Conn) {
			fmt.Fprintf(c, "%sContent-Length: 5000000\r\n\r\n", head)
		}, "HTTP/1.1 413 Request Entity Too Large"},
		{"a malformed chunk size", func(c net.Conn) {
			fmt.Fprintf(c, "%sTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", head)
		}, "HTTP/1.1 400 Bad Request"},
		{"a body that stops half way", func(c net.Conn) {
			fmt.Fprintf(c, "%sContent-Length: 100\r\n\r\n{\"model\":", head)
		}, "HTTP/1.1 408 Request Timeout"},
	} {
		if got := raw(t, addr, row.send); got != row.want {
			t.Errorf("%s: %q, want %q", row.why, got, row.want)
		}
	}
}

// TestLogBoundsBodies: the request log keeps a body up to LogBodyBytes
// and only the size of a larger one, so it grows with requests, not with
// what clients send.
func TestLogBoundsBodies(t *testing.T) {
	ts, log := strictServer(t)
	small := `{"model":"m"}`
	big := `{"model":"m","pad":"` + strings.Repeat("x", 200) + `"}`
	for _, body := range []string{small, big} {
		resp, err := http.Post(ts.URL+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	type record struct {
		N         int             `json:"n"`
		Body      json.RawMessage `json:"body"`
		BodyBytes int             `json:"bodyBytes"`
	}
	var recs []record
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var rec record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if len(recs) != 2 || string(recs[0].Body) != small || recs[0].BodyBytes != len(small) ||
		recs[1].Body != nil || recs[1].BodyBytes != len(big) || recs[1].N != 2 {
		t.Errorf("log:\n%s", log)
	}
}

// TestBodiesEitherSideOfSmall: a body is read whole whether it fits in
// memory of its own (up to SmallBodyBytes), goes straight to a shared
// buffer (a declared length over it), or outgrows its own memory half way
// (a chunked body over it, whose first bytes move to the shared buffer).
func TestBodiesEitherSideOfSmall(t *testing.T) {
	s, err := sim.ParseScenario([]byte(`{"name":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := serve.New(s)
	srv.MaxBodyBytes, srv.SmallBodyBytes, srv.LogBodyBytes = 1<<10, 32, 1<<10
	var log bytes.Buffer
	srv.Log = &log
	ts := httptest.NewServer(srv)
	defer ts.Close()
	small := `{"model":"m"}`
	big := `{"model":"m","pad":"` + strings.Repeat("x", 500) + `"}`
	for _, row := range []struct {
		why     string
		body    string
		chunked bool
	}{
		{"a declared length within SmallBodyBytes", small, false},
		{"a declared length over SmallBodyBytes", big, false},
		{"a chunked body within SmallBodyBytes", small, true},
		{"a chunked body that outgrows SmallBodyBytes", big, true},
		{"a chunked body one byte over SmallBodyBytes", `{"model":"` + strings.Repeat("m", 32-11) + `"}`, true},
		{"a chunked body of exactly SmallBodyBytes", `{"model":"` + strings.Repeat("m", 32-12) + `"}`, true},
	} {
		log.Reset()
		var body io.Reader = strings.NewReader(row.body)
		if row.chunked {
			body = io.MultiReader(body) // no length known: sent chunked
		}
		resp, err := http.Post(ts.URL+"/chat/completions", "application/json", body)
		if err != nil {
			t.Fatalf("%s: %v", row.why, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		var rec struct {
			Kind string          `json:"kind"`
			Body json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(log.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v in %s", row.why, err, log.String())
		}
		if resp.StatusCode != http.StatusOK || rec.Kind != "conversation" || string(rec.Body) != row.body {
			t.Errorf("%s: %d, logged %s %s; want 200 and the body whole", row.why, resp.StatusCode, rec.Kind, rec.Body)
		}
	}
}
