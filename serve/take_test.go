package serve

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/sim"
)

// brokenLog fails every write.
type brokenLog struct{}

func (brokenLog) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestAnAnswerIsTakenOnlyWithItsLine: a request whose log line cannot be
// written has taken no answer (the answer was once taken, then the write
// failed): the scenario's lists stay where they were.
func TestAnAnswerIsTakenOnlyWithItsLine(t *testing.T) {
	s, err := sim.ParseScenario([]byte(`{"name":"x","requests":[{"text":"first"},{"text":"second"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := New(s)
	srv.Log = brokenLog{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if resp.StatusCode != http.StatusInternalServerError || srv.requests != 0 || srv.seq != 0 {
		t.Errorf("status %d; %d answers taken (seq %d), want 500 and none", resp.StatusCode, srv.requests, srv.seq)
	}
}

// TestReadSmallGrowsWithWhatArrives: a declared length alone allocates
// little; the memory follows the bytes sent (a client that declared 256
// KiB and sent one byte held 256 KiB, so ten thousand such held 2.5 GB).
func TestReadSmallGrowsWithWhatArrives(t *testing.T) {
	b, complete, err := readSmall(strings.NewReader("{"), 256<<10, 256<<10)
	if err != nil || !complete || string(b) != "{" || cap(b) > 4097 {
		t.Errorf("read %q (complete %v, %v) into %d bytes, want at most 4097", b, complete, err, cap(b))
	}
	big := strings.Repeat("x", 100_000)
	b, complete, err = readSmall(strings.NewReader(big), int64(len(big)), 256<<10)
	if err != nil || !complete || string(b) != big || cap(b) > 2*len(big)+2 {
		t.Errorf("read %d bytes (complete %v, %v) into %d", len(b), complete, err, cap(b))
	}
}
