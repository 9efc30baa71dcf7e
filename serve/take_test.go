package serve

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnsim/turnsim/internal/fulldisk"
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

// TestALogOnAFullDiskKeepsWholeLines: the line that does not fit is cut
// back off, so the log ends with the last line written whole (a full disk
// once left a torn line no reader takes).
func TestALogOnAFullDiskKeepsWholeLines(t *testing.T) {
	dir, ok := fulldisk.Dir(t, 8192)
	if !ok {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, "requests.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _ := sim.ParseScenario([]byte(`{"name":"x"}`))
	srv := New(s)
	srv.Log = f
	ts := httptest.NewServer(srv)
	defer ts.Close()
	body := `{"pad":"` + strings.Repeat("x", 3000) + `"}`
	for i := 0; i < 10 && srv.Err() == nil; i++ {
		resp, err := http.Post(ts.URL+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if srv.Err() == nil {
		t.Fatal("the log never filled the disk")
	}
	data, _ := os.ReadFile(f.Name())
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Errorf("the log (%d bytes) does not end with a whole line", len(data))
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("line %d is not whole JSON (%d bytes)", i+1, len(l))
		}
	}
}
