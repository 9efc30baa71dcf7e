package webui_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/conformance/webui"
	"github.com/turnsim/turnsim/loop/view"
)

// page has the shape of DSH 0.1.0-rc.8's Web UI where it matters: a
// notice to dismiss, a folder to expand, a session row to click, and the
// rows, with hashed class names; the session's rows appear only once its
// row is clicked.
const page = `<!doctype html><html><body>
<div id="notice"><h2>Internal Testing Notice</h2><button onclick="document.getElementById('notice').remove()">Continue</button></div>
<nav><div class="Ab12_projectRow" onclick="document.getElementById('sessions').hidden=false"><span class="Ab12_projectText"><span class="Ab12_title">Ungrouped</span></span></div>
<div id="sessions" hidden><div class="Ab12_sessionRow" role="treeitem" onclick="show()"><span class="Ab12_title">Reply.</span></div></div></nav>
<main><textarea></textarea><div id="chat"></div><div id="stats"></div></main>
<script>
function show() {
  setTimeout(() => { document.getElementById('stats').innerHTML = '<span class="Ef56_context">Context injection</span>'; }, 300);
  document.getElementById('chat').innerHTML =
    '<div class="Cd34_message">Reply.</div>' +
    '<details class="Cd34_retryRow" data-active="true"><summary><span class="Cd34_retryText" role="status">Retrying model request (1/2) · 3s</span></summary>' +
    '<div class="Cd34_retryDetails"><div><span class="Cd34_retryDetailLabel">Retry delay: </span>3000ms</div><div><span class="Cd34_retryDetailLabel">Failure reason: </span>upstream 503</div></div></details>' +
    '<div class="Cd34_turnErrorRow" role="status"><div><span class="Cd34_turnErrorTitle">This turn failed</span><span class="Cd34_turnErrorMessage">API key is invalid</span></div><code class="Cd34_turnErrorCode">AUTH</code></div>' +
    '<div class="Cd34_turnErrorRow" role="status"><div><span class="Cd34_maxTokensTitle">Reached the output limit</span></div></div>';
}
</script></body></html>`

func TestOpenSessionAndRows(t *testing.T) {
	chromium := webui.Find()
	if chromium == "" {
		t.Skip("no Chromium on PATH (apt-get install -y chromium; .ci/run installs it)")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(page)) }))
	defer srv.Close()
	b, err := webui.Open(context.Background(), chromium, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.OpenSession(srv.URL); err != nil {
		t.Fatal(err)
	}
	rows, err := b.Rows()
	if err != nil {
		t.Fatal(err)
	}
	want := []view.Row{
		{Kind: "model-retry", Status: "Retrying model request (1/2) · 3s", Active: true, Details: []string{"Retry delay: 3000ms", "Failure reason: upstream 503"}},
		{Kind: "turn-error", Title: "This turn failed", Message: "API key is invalid", Code: "AUTH"},
		{Kind: "turn-max-tokens", Title: "Reached the output limit"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	shot := filepath.Join(t.TempDir(), "page.png")
	if err := b.Screenshot(shot); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(shot); err != nil || info.Size() < 1000 {
		t.Errorf("screenshot: %v", err)
	}
}
