// Package headless loads a page in headless Chromium from a test: the
// rendered DOM, a screenshot under the test's temp folder, and any console
// error or uncaught exception the page raised. Without a Chromium the test
// is skipped, with a message saying how to get one.
package headless

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/turnsim/turnsim/internal/atomicfile"
)

// Page is what loading a page produced.
type Page struct {
	DOM        string
	Screenshot string
	// Errors are console errors and uncaught exceptions the page logged.
	Errors []string
}

var browsers = []string{"chromium", "chromium-browser", "google-chrome"}

// consoleError matches Chromium's stderr lines for a page's console errors
// and uncaught exceptions (its own D-Bus and GPU noise does not match).
var consoleError = regexp.MustCompile(`(?m)^.*(CONSOLE\(\d+\)|Uncaught).*$`)

// Load renders the HTML file at path.
func Load(t testing.TB, path string) Page {
	t.Helper()
	browser := ""
	for _, b := range browsers {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no Chromium on PATH (apt-get install -y chromium; .ci/run installs it)")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + abs
	run := func(args ...string) (stdout, stderr string) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
			"--user-data-dir=" + t.TempDir()}
		cmd := exec.CommandContext(ctx, browser, append(append(base, args...), url)...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", browser, err, errOut.String())
		}
		return out.String(), errOut.String()
	}
	page := Page{Screenshot: filepath.Join(t.TempDir(), filepath.Base(path)+".png")}
	var logs string
	page.DOM, logs = run("--dump-dom")
	_, more := run("--screenshot="+page.Screenshot, "--window-size=1280,1024")
	page.Errors = consoleError.FindAllString(logs+more, -1)
	return page
}

// Check is what every page test asks of a generated page: it is
// self-contained (no script, no network reference), and it loads in
// Chromium without console errors and with a screenshot. It returns the
// loaded page for the test's own assertions on the rendered DOM.
func Check(t testing.TB, name string, html []byte) Page {
	t.Helper()
	for _, banned := range []string{"<script", "http://", "https://"} {
		if bytes.Contains(html, []byte(banned)) {
			t.Errorf("%s contains %q: a page must be self-contained", name, banned)
		}
	}
	path := filepath.Join(t.TempDir(), name)
	if err := atomicfile.Write(path, html); err != nil {
		t.Fatal(err)
	}
	page := Load(t, path)
	if len(page.Errors) > 0 {
		t.Errorf("%s logged errors: %v", name, page.Errors)
	}
	if fi, err := os.Stat(page.Screenshot); err != nil || fi.Size() == 0 {
		t.Errorf("%s: no screenshot: %v", name, err)
	}
	t.Logf("%s: screenshot %s", name, page.Screenshot)
	return page
}
