package dshweb_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnsim/turnsim/conformance/dshweb"
)

// TestStart: a host is up once it prints its address; one that exits
// first is an error that says so; Close stops the whole process group.
func TestStart(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Node is /bin/sh here, the launcher a script: "sh SCRIPT web …".
	listens := script("listens.sh", "echo 'some banner'\necho 'dsh web: http://127.0.0.1:4321'\nsleep 60 &\nwait\n")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h, err := dshweb.Start(ctx, dshweb.Command{Node: "/bin/sh", BinJS: listens, Overlay: "o.yml", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if h.URL != "http://127.0.0.1:4321" {
		t.Errorf("URL %q", h.URL)
	}
	start := time.Now()
	h.Close()
	select {
	case <-h.Exited():
	default:
		t.Errorf("Close returned before the host exited")
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("Close took %v: the child of the host kept it", time.Since(start))
	}

	dies := script("dies.sh", "echo 'Error: cannot load the profile' >&2\nexit 3\n")
	var out strings.Builder
	_, err = dshweb.Start(ctx, dshweb.Command{Node: "/bin/sh", BinJS: dies, Overlay: "o.yml", Dir: dir, Output: &out})
	if err == nil || !strings.Contains(err.Error(), "exited before it listened") {
		t.Errorf("a host that dies: %v", err)
	}
	if !strings.Contains(out.String(), "cannot load the profile") {
		t.Errorf("its output was not kept: %q", out.String())
	}
}

// TestCall: answers are values, refusals are *APIError with the host's
// code, anything else is an error that names the method.
func TestCall(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Origin") != "" {
			http.Error(w, "fence", http.StatusForbidden)
			return
		}
		switch r.URL.Path {
		case "/api/session.create":
			w.Write([]byte(`{"type":"server-response","rpcId":"1","result":{"ok":true,"value":{"sessionId":"session-1"}}}`))
		case "/api/session.cancel":
			w.Write([]byte(`{"type":"server-response","result":{"ok":false,"error":{"code":"session-not-found","message":"session \"x\" not found","details":{}}}}`))
		case "/api/session.prompt":
			w.Write([]byte(`<html>not json</html>`))
		default:
			http.Error(w, "no", http.StatusTeapot)
		}
	}))
	defer srv.Close()
	h := dshweb.Attach(srv.URL)
	ctx := context.Background()
	if id, err := h.CreateSession(ctx, "turnsim"); err != nil || id != "session-1" {
		t.Errorf("CreateSession: %q, %v", id, err)
	}
	var apiErr *dshweb.APIError
	if err := h.Cancel(ctx, "x"); !errors.As(err, &apiErr) || apiErr.Code != "session-not-found" || apiErr.Method != "session.cancel" {
		t.Errorf("a refusal: %v", err)
	}
	if err := h.Prompt(ctx, "x", dshweb.ModeQueue, "hi"); err == nil || !strings.Contains(err.Error(), "session.prompt") {
		t.Errorf("an answer that is not a server response: %v", err)
	}
	if err := h.Call(ctx, "host.describe", map[string]any{}, nil); err == nil || !strings.Contains(err.Error(), "HTTP 418") {
		t.Errorf("a status other than 200: %v", err)
	}
}
