package realdsh_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/benbjohnson/clock"
	"github.com/coder/websocket"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/conformance/dshweb"
	"github.com/turnsim/turnsim/conformance/realdsh"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/realtime"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// fakeHost stands in for DSH's web host in tests of the driver: its HTTP
// API and its two event streams, over turnsim's own loop run in real time
// (loop/realtime), answering from a scenario. It serves one session.
type fakeHost struct {
	srv      *httptest.Server
	scenario *sim.Scenario
	id       string

	mu   sync.Mutex
	subs map[string][]chan []byte // stream path → subscribers

	driver   *realtime.Driver
	log      *session.Log
	requests [][]int64 // each request's surface seqs (the loop's goroutine only)

	idMu   sync.Mutex
	nextID int
}

func newFakeHost(t *testing.T, s *sim.Scenario) *fakeHost {
	f := &fakeHost{scenario: s, id: "session-fake", subs: map[string][]chan []byte{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/session.create", f.create)
	mux.HandleFunc("POST /api/session.prompt", f.prompt)
	mux.HandleFunc("POST /api/session.cancel", f.cancel)
	mux.HandleFunc("GET /api/events.mux", f.stream(dshweb.SessionEvents))
	mux.HandleFunc("GET /api/events.host", f.stream(dshweb.HostEvents))
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func ok(w http.ResponseWriter, value any) {
	json.NewEncoder(w).Encode(map[string]any{"type": "server-response", "result": map[string]any{"ok": true, "value": value}})
}

func (f *fakeHost) create(w http.ResponseWriter, r *http.Request) {
	wall := realtime.Clock{C: clock.New()}
	f.log = session.NewLog(session.Header{ID: f.id}, wall)
	ports := loop.Ports{Model: fakeModel{f}, Clock: wall, Random: half{}, IDs: f}
	s := f.scenario
	f.driver = realtime.New(f.log, loop.Config{Target: loop.Target{Provider: s.Provider, Model: s.Model},
		Routes: map[string]*loop.Route{s.Provider: {RetryPolicy: s.RetryPolicy}}, RuntimeContext: sim.DSHRuntimeContext("/mnt")}, ports)
	f.driver.Do(func(a *loop.Agent) {
		retry.Install(a)
		a.OnAppend(func(e *session.Event) {
			var b bytes.Buffer
			session.WriteLog(&b, f.log.Header(), []session.Event{*e})
			line := bytes.SplitN(b.Bytes(), []byte("\n"), 3)[1]
			f.publish(dshweb.SessionEvents, "session/event", map[string]any{"type": "session/event", "sessionId": f.id, "event": json.RawMessage(line)})
		})
		a.OnStatus(func(st loop.Status) {
			f.publish(dshweb.HostEvents, "host/session-status", map[string]any{"sessionId": f.id, "running": st == loop.StatusRunning})
		})
	})
	ok(w, map[string]string{"sessionId": f.id})
}

func (f *fakeHost) prompt(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Payload struct {
			Mode    string `json:"mode"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"payload"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	content := session.AppendString([]byte(`[{"type":"text","text":`), req.Payload.Content[0].Text)
	m := session.UserMessage{Content: append(content, `}]`...), Source: session.Source{Kind: "user"}, Role: "user", ID: f.NewID(loop.IDMessage)}
	if req.Payload.Mode == dshweb.ModeSteer {
		f.driver.Steer(m)
	} else {
		f.driver.Followup(m)
	}
	ok(w, map[string]bool{"accepted": true})
}

func (f *fakeHost) cancel(w http.ResponseWriter, r *http.Request) {
	f.driver.Cancel(session.Cause{Kind: session.CauseUser}, true) // as DSH's web host cancels
	ok(w, map[string]bool{"accepted": true})
}

// publish sends a frame to every subscriber of a stream. The loop calls it
// holding the driver's lock, so frames go out in log order.
func (f *fakeHost) publish(path, method string, payload any) {
	frame, _ := json.Marshal(map[string]any{"type": "server-request", "method": method, "payload": payload})
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ch := range f.subs[path] {
		ch <- frame
	}
}

func (f *fakeHost) stream(path string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Subscribed before the handshake completes: the client prompts
		// as soon as its dial returns.
		ch := make(chan []byte, 1024)
		f.mu.Lock()
		f.subs[path] = append(f.subs[path], ch)
		f.mu.Unlock()
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer conn.CloseNow()
		for {
			select {
			case frame := <-ch:
				if conn.Write(r.Context(), websocket.MessageText, frame) != nil {
					return
				}
			case <-r.Context().Done():
				return
			}
		}
	}
}

// NewID numbers ids (the loop's IDs port; prompts take ids too).
func (f *fakeHost) NewID(kind string) string {
	f.idMu.Lock()
	defer f.idMu.Unlock()
	f.nextID++
	return kind + "-" + strconv.Itoa(f.nextID)
}

// fakeModel answers the scenario's requests in real time.
type fakeModel struct{ f *fakeHost }

func (m fakeModel) Stream(ctx context.Context, req *loop.Request) (loop.Stream, error) {
	n := len(m.f.requests)
	seqs := make([]int64, len(req.Messages))
	for i, node := range req.Messages {
		seqs[i] = node.Seq
	}
	m.f.requests = append(m.f.requests, seqs)
	out := sim.Outcome{Text: new(string)}
	*out.Text = "ok"
	if n < len(m.f.scenario.Requests) {
		out = m.f.scenario.Requests[n]
	}
	return sim.Play(out, n, realtime.Clock{C: clock.New()}, m.f.scenario.StreamIdleTimeoutMs), nil
}

type half struct{}

func (half) Float64() float64 { return 0.5 }

// TestDriveAgainstAFakeHost: the driver puts a scenario's prompt, steer,
// cancel and second prompt through a web host's API at their triggers, and
// what the host's loop logs (run in real time) has the skeleton the model
// derives in virtual time, with each cancel where the model lands it; a
// trigger that never fires is reported on both sides.
func TestDriveAgainstAFakeHost(t *testing.T) {
	if testing.Short() {
		t.Skip("real time: about 3 s")
	}
	s, err := sim.ParseScenario([]byte(`{"name":"drive","compaction":false,
		"retryPolicy":{"maxRetries":3,"retryableCodes":["SERVER"],"backoff":{"initialDelayMs":700,"maxDelayMs":700,"jitterRatio":0}},
		"requests":[{"fail":{"code":"SERVER","message":"busy","status":500}},{"fail":{"code":"SERVER","message":"busy","status":500}},{"text":"recovered"}],
		"inputs":[{"send":"go"},{"steer":"and steer","after":"llm/retry","plusMs":200},{"send":"again","after":"turn/end","plusMs":600}],
		"world":[{"do":"cancel","keepInbox":true,"after":"llm/retry","nth":2,"plusMs":300},{"do":"cancel","keepInbox":true,"after":"compaction/start"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if problems := append(conformance.Expressible(s), conformance.Uncertain(s)...); len(problems) > 0 {
		t.Fatalf("the scenario is not one for DSH: %v", problems)
	}
	f := newFakeHost(t, s)
	h := dshweb.Attach(f.srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sessions, err := h.Events(ctx, dshweb.SessionEvents)
	if err != nil {
		t.Fatal(err)
	}
	defer sessions.Close()
	hostEvents, err := h.Events(ctx, dshweb.HostEvents)
	if err != nil {
		t.Fatal(err)
	}
	defer hostEvents.Close()
	id, err := h.CreateSession(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := realdsh.RunDrive(ctx, h, sessions, hostEvents, id, s, realdsh.DriveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.driver.Wait()
	var events []session.Event
	f.driver.Do(func(a *loop.Agent) { events = slices.Clone(a.Log().Events()) })
	host := conformance.Side{Events: events, Unfired: d.Unfired}
	for _, a := range d.Applied {
		if a.Error != "" {
			t.Errorf("%s was refused: %s", a.Field, a.Error)
		}
		if strings.HasPrefix(a.Field, "world[") {
			host.Actions = append(host.Actions, conformance.Landing{BeforeSeq: a.BeforeSeq, What: a.What})
		}
	}
	for _, seqs := range f.requests {
		host.Requests = append(host.Requests, conformance.ModelRequestTags(events, seqs))
	}
	model, _ := conformance.ModelSide(s, "/mnt", sim.Options{})
	if diff := cmp.Diff(model.Lines(), host.Lines()); diff != "" {
		t.Errorf("(-model +host):\n%s", diff)
	}
	// The drive ends only once the session is done: DSH's log is read,
	// and its host stopped, when it returns.
	if d.Running || d.OpenTurns != 0 || len(d.Applied) != 4 || d.Events != len(events) {
		t.Errorf("the drive ended running=%v with %d turns open, %d of 4 actions applied, %d of %d events seen",
			d.Running, d.OpenTurns, len(d.Applied), d.Events, len(events))
	}
}
