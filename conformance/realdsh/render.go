package realdsh

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/turnsim/turnsim/conformance"
	"github.com/turnsim/turnsim/conformance/dshweb"
	"github.com/turnsim/turnsim/conformance/webui"
	"github.com/turnsim/turnsim/internal/atomicfile"
)

// RenderHooks are the hooks that read DSH's Web UI during a run: the
// browser starts before the drive; each observe action opens the session
// in the page if it is not open yet and reads it; after the drive the page
// is loaded again and the session read from its history. Files land in
// dir. Close stops the browser.
func RenderHooks(chromium, dir string) (Hooks, func()) {
	var b *webui.Browser
	var hostURL string
	opened := false
	read := func(name, field string, beforeSeq int64, looked time.Time) error {
		r := conformance.Render{Field: field, BeforeSeq: beforeSeq, Screenshot: name + ".png", From: looked.UnixMilli()}
		var err error
		if r.Rows, err = b.Rows(); err != nil {
			return err
		}
		r.To = time.Now().UnixMilli()
		if err := b.Screenshot(filepath.Join(dir, name+".png")); err != nil {
			return err
		}
		if chat, err := b.Chat(); err == nil {
			if err := atomicfile.Write(filepath.Join(dir, name+".html"), []byte(chat)); err != nil {
				return err
			}
		}
		data, _ := json.MarshalIndent(r, "", "  ")
		return atomicfile.Write(filepath.Join(dir, name+".json"), append(data, '\n'))
	}
	hooks := Hooks{
		BeforeDrive: func(ctx context.Context, h *dshweb.Host, _ string) error {
			var err error
			hostURL = h.URL
			b, err = webui.Open(ctx, chromium, filepath.Join(dir, "chromium"))
			return err
		},
		Observe: func(field string, beforeSeq int64) error {
			// The page is loaded at the first look, not before the drive:
			// a page loaded on a blank session lists it only seconds after
			// it has a title.
			looked := time.Now()
			if !opened {
				if err := b.OpenSession(hostURL); err != nil {
					return err
				}
				opened = true
			}
			time.Sleep(300 * time.Millisecond) // the page's own event stream catches up
			return read("ui-"+strings.NewReplacer("[", "-", "]", "").Replace(field), field, beforeSeq, looked)
		},
		AfterDrive: func(ctx context.Context, h *dshweb.Host, _ string) error {
			if err := b.OpenSession(hostURL); err != nil { // a fresh load: the history
				return err
			}
			return read(conformance.FinalRender, "", -1, time.Now())
		},
	}
	return hooks, func() {
		if b != nil {
			b.Close()
		}
	}
}
