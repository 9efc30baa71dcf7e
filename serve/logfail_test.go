package serve_test

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/serve"
	"github.com/turnsim/turnsim/sim"
)

// failingLog takes its first good lines, then fails every write as a
// file on a full filesystem does (os.File's error, without needing one).
type failingLog struct {
	good  int
	short bool // a short write without an error, as a careless Writer gives
}

func (l *failingLog) Write(p []byte) (int, error) {
	if l.good > 0 {
		l.good--
		return len(p), nil
	}
	if l.short {
		return len(p) / 2, nil
	}
	return 0, &fs.PathError{Op: "write", Path: "requests.jsonl", Err: syscall.ENOSPC}
}

// TestLogFailureIsAnswered: the first line the request log cannot take
// is answered 500 with the write's error, as is every request after it;
// the server says so (Failed, Err) so that its runner can stop (issue #22
// L3: serve answered 200 with the log at 0 bytes and said nothing).
func TestLogFailureIsAnswered(t *testing.T) {
	for _, row := range []struct {
		why     string
		log     *failingLog
		body    string // every request's
		want    []int  // the statuses of four requests
		line    int
		message string
	}{
		{"a full filesystem from the first line", &failingLog{}, `{}`, []int{500, 500, 500, 500}, 1, "line 1 of the request log could not be written: write requests.jsonl: no space left on device"},
		{"a full filesystem after two lines", &failingLog{good: 2}, `{}`, []int{200, 200, 500, 500}, 3, "line 3 of the request log could not be written: write requests.jsonl: no space left on device"},
		{"a refused request's line: the refusal is not sent either", &failingLog{good: 1}, `[]`, []int{400, 500, 500, 500}, 2, "line 2 of the request log could not be written"},
		{"a short write without an error", &failingLog{short: true}, `{}`, []int{500, 500, 500, 500}, 1, "line 1 of the request log could not be written: short write"},
	} {
		s, err := sim.ParseScenario([]byte(`{"name":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		srv := serve.New(s)
		srv.Log = row.log
		ts := httptest.NewServer(srv)
		var got []int
		var last string
		for range row.want {
			resp, err := http.Post(ts.URL+"/chat/completions", "application/json", strings.NewReader(row.body))
			if err != nil {
				t.Fatalf("%s: %v", row.why, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got = append(got, resp.StatusCode)
			last = string(b)
		}
		ts.Close()
		if diff := cmp.Diff(row.want, got); diff != "" {
			t.Errorf("%s: statuses (-want +got):\n%s", row.why, diff)
		}
		if !strings.Contains(last, row.message) {
			t.Errorf("%s: the last answer %s does not say %q", row.why, last, row.message)
		}
		select {
		case <-srv.Failed():
		default:
			t.Errorf("%s: Failed is not closed", row.why)
		}
		var logErr *serve.LogError
		if err := srv.Err(); !errors.As(err, &logErr) || logErr.Line != row.line || !strings.Contains(err.Error(), row.message) {
			t.Errorf("%s: Err() = %v, want line %d and %q", row.why, err, row.line, row.message)
		}
	}
}
