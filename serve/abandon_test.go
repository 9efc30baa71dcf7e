package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/sim"
)

// These tests are inside the package to see when a request is parked
// (waiting for a shared buffer), so that they order their steps by the
// server's state rather than by sleeps.

// lockedLog is a request log that a test may read while the server
// writes it.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(l.b.String(), "\n"), "\n") // the server writes whole lines
}

// waitFor polls cond until it holds, or fails the test after a bound far
// above what it needs on a loaded machine.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// abandonServer serves a scenario whose first answer is "first", with a
// body timeout long enough that only a fix, never a timeout, lets a
// blocked request through within a test's client timeout.
func abandonServer(t *testing.T, configure func(*Server, *http.Server)) (*Server, *httptest.Server, *lockedLog) {
	t.Helper()
	s, err := sim.ParseScenario([]byte(`{"name":"x","requests":[{"text":"first"},{"text":"second"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := New(s)
	srv.BodyTimeout = 20 * time.Second
	log := &lockedLog{}
	srv.Log = log
	ts := httptest.NewUnstartedServer(srv)
	ts.Config = srv.HTTPServer()
	if configure != nil {
		configure(srv, ts.Config)
	}
	ts.Start()
	t.Cleanup(ts.Close) // after the connections' cleanups: Close waits for their handlers
	return srv, ts, log
}

// slowBody opens a connection that sends a request and the first bytes of
// its 79-byte body, and no more until the test ends (or close is called).
func slowBody(t *testing.T, addr string) (close func()) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprint(c, "POST /chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 79\r\n\r\n{\"model\":\"m\",")
	return func() { c.Close() }
}

// completeBody sends a whole request on a connection of its own and
// returns it unread.
func completeBody(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	body := `{"model":"deepseek-v4-flash","stream":true}`
	fmt.Fprintf(c, "POST /chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	return c
}

// answerID posts a complete request and returns its answer's chunk id
// (chatcmpl-N, N the answer's number) and content.
func answerID(client *http.Client, url string) (id, content string, err error) {
	resp, err := client.Post(url+"/chat/completions", "application/json", strings.NewReader(`{"model":"deepseek-v4-flash","stream":true}`))
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", "", err
	}
	m := regexp.MustCompile(`"content":"([^"]*)".*"id":"(chatcmpl-\d+)"`).FindSubmatch(b)
	if resp.StatusCode != http.StatusOK || m == nil {
		return "", "", fmt.Errorf("%d %s", resp.StatusCode, b)
	}
	return string(m[2]), string(m[1]), nil
}

// TestSlowBodiesDoNotBlockCompleteOnes: ten bodies still arriving do not
// make twenty complete requests wait, and none of them takes an answer (issue #22 H1: the four shared buffers were taken by
// the first slow bodies, a complete 41-byte request waited 28 s, twenty
// clients timed out at 30 s, and their answers were then spent on the
// abandoned requests).
func TestSlowBodiesDoNotBlockCompleteOnes(t *testing.T) {
	var active atomic.Int32
	_, ts, log := abandonServer(t, func(_ *Server, hs *http.Server) {
		hs.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateActive {
				active.Add(1) // a request line is read: its handler starts
			}
		}
	})
	addr := ts.Listener.Addr().String()
	var closeSlow []func()
	for range 10 {
		closeSlow = append(closeSlow, slowBody(t, addr))
	}
	waitFor(t, "the slow bodies' handlers", func() bool { return active.Load() == 10 })

	// Far under the body timeout (20 s): a request that had to wait for
	// a slow body to time out fails here.
	client := &http.Client{Timeout: 5 * time.Second}
	ids := make([]string, 20)
	errs := make([]error, 20)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() { ids[i], _, errs[i] = answerID(client, ts.URL) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("complete request %d beside ten slow bodies: %v", i+1, err)
		}
	}
	var want []string
	for n := range 20 {
		want = append(want, fmt.Sprintf("chatcmpl-%d", n+1))
	}
	slices.Sort(want)
	slices.Sort(ids) // the order they were answered in is the scheduler's
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("the complete requests' answers (-want +got):\n%s", diff)
	}

	// The slow bodies end unfinished: each is refused, and the next
	// answer is still the 21st.
	for _, c := range closeSlow {
		c()
	}
	waitFor(t, "the ten slow bodies' refusals", func() bool { return len(log.lines()) == 30 })
	if id, _, err := answerID(client, ts.URL); err != nil || id != "chatcmpl-21" {
		t.Errorf("after the slow bodies: %s %v, want chatcmpl-21", id, err)
	}
}

// TestAbandonedRequestsTakeNoAnswer: a request whose client is gone
// before its answer is taken leaves the answer to the next request (issue
// #22 H1: answers were spent on requests no one would read).
func TestAbandonedRequestsTakeNoAnswer(t *testing.T) {
	for _, row := range []struct {
		why       string
		configure func(*Server)
		// abandon makes the abandoned request (and any it needs) and
		// returns how many lines they log.
		abandon    func(t *testing.T, srv *Server, addr string) int
		wantAnswer string // the abandoned request's logged answer, a regexp
	}{
		{
			why:       "a body that never completes: its client goes half way",
			configure: func(*Server) {},
			abandon: func(t *testing.T, srv *Server, addr string) int {
				slowBody(t, addr)()
				return 1
			},
			wantAnswer: `^400 the body could not be read: unexpected EOF$`,
		},
		{
			why: "a complete body whose client gives up while it waits for a shared buffer (TCP shows the close only once the body is read)",
			configure: func(s *Server) {
				s.SmallBodyBytes = 0 // every body goes to the shared buffers
				// Far above what the server needs to see a closed
				// connection, and paid only by a request that waited while
				// its client is still there: none here.
				s.GoneGrace = 10 * time.Second
			},
			abandon: func(t *testing.T, srv *Server, addr string) int {
				// Slow bodies hold every buffer.
				var closeSlow []func()
				for range cap(srv.bodies.free) {
					closeSlow = append(closeSlow, slowBody(t, addr))
				}
				waitFor(t, "the slow bodies to hold every buffer", func() bool { return len(srv.bodies.free) == 0 })
				c := completeBody(t, addr)
				waitFor(t, "the complete body to wait for a buffer", func() bool { return srv.bodies.waiting.Load() == 1 })
				c.Close()
				for _, c := range closeSlow {
					c()
				}
				return 1 + len(closeSlow)
			},
			wantAnswer: `^none: the client went away (before its answer was taken|while its body waited to be read)$`,
		},
	} {
		t.Run(row.why, func(t *testing.T) {
			srv, ts, log := abandonServer(t, func(s *Server, _ *http.Server) { row.configure(s) })
			lines := row.abandon(t, srv, ts.Listener.Addr().String())
			waitFor(t, "the abandoned requests to be logged", func() bool { return len(log.lines()) >= lines })
			id, content, err := answerID(http.DefaultClient, ts.URL)
			if err != nil || id != "chatcmpl-1" || content != "first" {
				t.Errorf("the request after: %s %q %v, want chatcmpl-1 and the first answer\nlog:\n%s", id, content, err, strings.Join(log.lines(), "\n"))
			}
			got := log.lines()
			if len(got) != lines+1 {
				t.Fatalf("%d log lines, want %d:\n%s", len(got), lines+1, strings.Join(got, "\n"))
			}
			// The abandoned request is refused with its reason, as are
			// the slow bodies it needed (in the order they ended).
			var answers []string
			for _, line := range got[:lines] {
				var rec struct{ Kind, Answer string }
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatal(err)
				}
				if rec.Kind != "refused" {
					t.Errorf("an abandoned request was answered: %s", line)
				}
				if regexp.MustCompile(row.wantAnswer).MatchString(rec.Answer) {
					answers = append(answers, rec.Answer)
				}
			}
			if len(answers) != 1 {
				t.Errorf("%d lines' answers match %s, want 1:\n%s", len(answers), row.wantAnswer, strings.Join(got, "\n"))
			}
		})
	}
}

// TestBufferWaitEnds: a wait for a shared buffer ends with the request's
// deadline (answered 503: the server was busy) or its client (nothing is
// answered), never later.
func TestBufferWaitEnds(t *testing.T) {
	p := newBufferPool(1)
	held, waited, why := p.take(context.Background(), time.Now().Add(time.Hour))
	if waited || why != 0 {
		t.Fatalf("a free buffer: waited %v, %v", waited, why)
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for _, row := range []struct {
		why      string
		ctx      context.Context
		deadline time.Time
		want     errPoolWait
	}{
		{"the deadline passes while every buffer is held", context.Background(), time.Now().Add(10 * time.Millisecond), poolDeadline},
		{"the client is gone while every buffer is held", gone, time.Now().Add(time.Hour), poolGone},
	} {
		if _, waited, why := p.take(row.ctx, row.deadline); !waited || why != row.want {
			t.Errorf("%s: waited %v, %v; want waited and %v", row.why, waited, why, row.want)
		}
	}
	p.put(held)
	if _, waited, why := p.take(context.Background(), time.Now()); waited || why != 0 {
		t.Errorf("the buffer given back: waited %v, %v", waited, why)
	}
}
