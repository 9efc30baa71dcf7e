// Package webui reads what DSH's own Web UI renders for a session: it
// drives headless Chromium over the DevTools protocol (chromedp), opens
// the session in the page DSH's web host serves, and reads the rows a
// person sees for request recovery — retry rows and turn-error rows — by
// role, text and class-name substrings (the class names are hashed).
//
// The steps that reach a session (DSH 0.1.0-rc.8): dismiss the "Internal
// Testing Notice" ("Continue"), expand "Ungrouped" in the sidebar, click
// the session's row. There is no per-session URL.
package webui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/turnsim/turnsim/internal/atomicfile"
	"github.com/turnsim/turnsim/loop/view"

	"github.com/chromedp/chromedp"
)

// Browsers are the names Chromium goes by.
var Browsers = []string{"chromium", "chromium-browser", "google-chrome"}

// Find is the path of an installed Chromium, or "".
func Find() string {
	for _, b := range Browsers {
		if p, err := exec.LookPath(b); err == nil {
			return p
		}
	}
	return ""
}

// Browser is one headless Chromium with one tab.
type Browser struct {
	ctx    context.Context
	cancel []context.CancelFunc
}

// Open starts Chromium (path from Find) with its profile in profileDir.
// It runs as root inside the conformance namespace, hence no sandbox; the
// background-networking flags keep it from reaching for Google's hosts.
func Open(ctx context.Context, path, profileDir string) (*Browser, error) {
	if path == "" {
		return nil, fmt.Errorf("no Chromium on PATH (apt-get install -y chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.UserDataDir(profileDir), chromedp.WindowSize(1400, 1000), chromedp.Flag("lang", "en-US"),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-first-run", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tctx, cancelTab := chromedp.NewContext(actx)
	b := &Browser{ctx: tctx, cancel: []context.CancelFunc{cancelTab, cancelAlloc}}
	if err := chromedp.Do(tctx); err != nil { // starts the browser
		b.Close()
		return nil, fmt.Errorf("chromium did not start: %w", err)
	}
	return b, nil
}

// Close stops the browser.
func (b *Browser) Close() {
	for _, c := range b.cancel {
		c()
	}
}

// within bounds one step of the page.
func (b *Browser) within(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(b.ctx, d)
}

// OpenSession loads the host's page and opens its one session: the
// notice dismissed, "Ungrouped" expanded, the session's row clicked. It
// returns once the chat shows the session.
func (b *Browser) OpenSession(hostURL string) error { return b.OpenSessionTitled(hostURL, "") }

// OpenSessionTitled opens the session whose sidebar row reads title (the
// first session row when title is empty).
func (b *Browser) OpenSessionTitled(hostURL, title string) error {
	if err := b.Load(hostURL); err != nil {
		return err
	}
	return b.Select(title)
}

// Load loads the host's page and dismisses its notice; Select then opens
// a session quickly.
func (b *Browser) Load(hostURL string) error {
	ctx, cancel := b.within(30 * time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(hostURL)); err != nil {
		return fmt.Errorf("loading %s: %w", hostURL, err)
	}
	return b.page(ctx, loadJS, "")
}

// Select opens the session whose sidebar row reads title (the first one
// when title is empty) in the loaded page, and returns once the chat shows
// it.
func (b *Browser) Select(title string) error {
	ctx, cancel := b.within(30 * time.Second)
	defer cancel()
	return b.page(ctx, selectJS, title)
}

// page runs one of the page scripts, which answer "ok" or what they
// missed.
func (b *Browser) page(ctx context.Context, script, title string) error {
	quoted, _ := json.Marshal(title)
	js := "(async () => {\n" + pageHelpers + strings.Replace(script, "TITLE", string(quoted), 1) + "\n})()"
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err == nil && out != "ok" {
		err = errors.New(out)
	}
	if err != nil {
		return fmt.Errorf("opening the session in DSH's Web UI: %w", err)
	}
	return nil
}

// pageHelpers, inside each script's function, poll for an element (the page renders asynchronously) and
// find an element by its own text.
const pageHelpers = `const sleep = ms => new Promise(r => setTimeout(r, ms));
const poll = async (find, what, ms = 15000) => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    const e = find();
    if (e) return e;
  }
  throw new Error('no ' + what + ' on the page');
};
const leaf = text => [...document.querySelectorAll('body *')].filter(e => e.textContent.trim() === text).pop();
`

// loadJS dismisses the notice.
const loadJS = `
  try {
    const first = await poll(() => leaf('Continue') || document.querySelector('[class*="sessionRow"], [class*="projectText"]'), 'page');
    if (first.textContent.trim() === 'Continue') { first.click(); await sleep(200); }
    return 'ok';
  } catch (e) { return String(e.message || e); }`

// selectJS clicks the session's row and waits for the chat to show it.
const selectJS = `
  try {
    const title = TITLE;
    // A blank session's folder shows only once it has a title: expand
    // "Ungrouped" when it appears, once.
    let expanded = false;
    const row = await poll(() => {
      const r = [...document.querySelectorAll('[role="treeitem"][class*="sessionRow"]')]
        .find(r => title === '' || [...r.querySelectorAll('[class*="title"]')].some(t => t.textContent.trim() === title));
      const folder = leaf('Ungrouped');
      if (!r && folder && !expanded) { folder.click(); expanded = true; }
      return r;
    }, title === '' ? 'session row' : 'session row titled ' + JSON.stringify(title));
    row.click();
    // The chat has the session once it shows the composer's stats line
    // ("1 turns · 1 steps", shown while the session is idle) or the
    // runtime-context row of its first step ("Context injection").
    await poll(() => [...document.querySelectorAll('body *')].find(e => e.children.length === 0 &&
      (/^\d+ turns? · \d+ steps?$/.test(e.textContent.trim()) || e.textContent.trim() === 'Context injection')), 'chat of the session');
    await sleep(300);
    return 'ok';
  } catch (e) { return String(e.message || e); }`

// Rows reads the recovery rows the chat shows, in page order.
func (b *Browser) Rows() ([]view.Row, error) {
	ctx, cancel := b.within(10 * time.Second)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](rowsJS))
	if err != nil {
		return nil, fmt.Errorf("reading DSH's Web UI: %w", err)
	}
	var rows []view.Row
	if err := json.Unmarshal([]byte(raw), &rows); err != nil {
		return nil, fmt.Errorf("reading DSH's Web UI: %v", err)
	}
	return rows, nil
}

// rowsJS extracts each row: a retry row's status text (role=status),
// whether it is live (data-active) and its details (text content: the
// <details> element is collapsed); a turn-error row's title, message and
// code.
const rowsJS = `JSON.stringify([...document.querySelectorAll('[class*="retryRow"], [class*="turnErrorRow"]')].map(e => {
  const text = sel => { const n = e.querySelector(sel); return n ? n.textContent.replace(/\s+/g, ' ').trim() : ''; };
  if (String(e.className).includes('retryRow')) {
    return {kind: 'model-retry', status: text('[role="status"]'), active: e.getAttribute('data-active') === 'true',
      details: [...e.querySelectorAll('[class*="retryDetails"] > div')].map(d => d.textContent.replace(/\s+/g, ' ').trim())};
  }
  const maxTokens = e.querySelector('[class*="maxTokensTitle"]') !== null;
  return {kind: maxTokens ? 'turn-max-tokens' : 'turn-error', title: text('[class*="turnErrorTitle"], [class*="maxTokensTitle"]'),
    message: text('[class*="turnErrorMessage"]'), code: text('code')};
}))`

// Screenshot writes the whole page as a PNG.
func (b *Browser) Screenshot(path string) error {
	ctx, cancel := b.within(15 * time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return err
	}
	return atomicfile.Write(path, png)
}

// Chat is the chat pane's HTML, the DOM extract kept beside a finding.
func (b *Browser) Chat() (string, error) {
	ctx, cancel := b.within(10 * time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('main') || document.body).outerHTML`))
}
