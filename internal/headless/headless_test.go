package headless

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoadSeesScriptErrors: a page whose script logs an error and throws
// comes back with both; a quiet page with none.
func TestLoadSeesScriptErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(bad, []byte(`<!doctype html><html><body><p>x</p><script>console.error("boom"); undefinedFn();</script></body></html>`), 0o644)
	if page := Load(t, bad); len(page.Errors) < 2 {
		t.Errorf("errors %q, want the console error and the uncaught exception", page.Errors)
	}
	good := filepath.Join(dir, "good.html")
	os.WriteFile(good, []byte(`<!doctype html><html><body><p id="p">quiet</p></body></html>`), 0o644)
	if page := Load(t, good); len(page.Errors) > 0 {
		t.Errorf("a quiet page logged %q", page.Errors)
	}
}
