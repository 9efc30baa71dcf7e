package serve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/sim"
)

// TestManyClientsHeldStreamsAndDisconnects: what the issue #22 sweep
// found to hold, and must go on holding beside the fixes for slow bodies
// and abandoned requests: 200 concurrent clients each get their own
// answer, held streams (hangs) end when their clients go, clients that go
// half way through their bodies take no answer, and nothing is left
// running.
func TestManyClientsHeldStreamsAndDisconnects(t *testing.T) {
	const clients, held, halfWay = 200, 20, 20
	// Every tenth answer is a hang: its first delta, then nothing.
	var answers []string
	for n := range clients {
		if n%(clients/held) == 0 {
			answers = append(answers, `{"hang":true,"afterChunks":1,"stream":{"text":"held"}}`)
		} else {
			answers = append(answers, fmt.Sprintf(`{"text":"answer %d"}`, n+1))
		}
	}
	s, err := sim.ParseScenario([]byte(`{"name":"x","requests":[` + strings.Join(answers, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := New(s)
	log := &lockedLog{}
	srv.Log = log
	ts := httptest.NewUnstartedServer(srv)
	ts.Config = srv.HTTPServer()
	ts.Start()
	t.Cleanup(ts.Close) // waits for every handler: a held stream whose client went away must have ended
	addr := ts.Listener.Addr().String()

	for range halfWay {
		slowBody(t, addr)() // gone half way: refused, no answer
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 20 * time.Second}
	id := regexp.MustCompile(`"id":"(chatcmpl-\d+)"`)
	got := make([]string, clients)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			resp, err := client.Post(ts.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`))
			if err != nil {
				got[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			// A held stream sends its first delta and then nothing: read
			// that much and hang up, as a client's idle watchdog does.
			b := make([]byte, 4096)
			n, _ := resp.Body.Read(b)
			if m := id.FindSubmatch(b[:n]); resp.StatusCode == http.StatusOK && m != nil {
				got[i] = string(m[1])
			} else {
				got[i] = fmt.Sprintf("%d %s", resp.StatusCode, b[:n])
			}
		})
	}
	wg.Wait()
	var want []string
	for n := range clients {
		want = append(want, fmt.Sprintf("chatcmpl-%d", n+1))
	}
	slices.Sort(want)
	slices.Sort(got) // the order they were answered in is the scheduler's
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the clients' answers (-want +got):\n%s", diff)
	}
	waitFor(t, "every request logged", func() bool { return len(log.lines()) == clients+halfWay })
	if id, content, err := answerID(client, ts.URL); err != nil || id != fmt.Sprintf("chatcmpl-%d", clients+1) || content != "ok" {
		t.Errorf("after them: %s %q %v, want chatcmpl-%d and ok: the half-way bodies took answers", id, content, err, clients+1)
	}
}
