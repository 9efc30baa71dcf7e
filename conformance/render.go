package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/turnsim/turnsim/internal/atomicfile"

	"github.com/turnsim/turnsim/conformance/dshweb"
	"github.com/turnsim/turnsim/conformance/webui"
	"github.com/turnsim/turnsim/loop/view"
)

// A rendered run keeps, beside DSH's log, what DSH's Web UI showed: the
// session opened afresh once the drive was done (its history), and at each
// observe action the page that had the session open while it ran (live).
const (
	FinalRender = "ui-final" // .json rows, .png screenshot, .html chat pane
)

// Render is what the Web UI showed at one point.
type Render struct {
	// Field is the observe action (world[i]), or "" for the final render.
	Field string `json:"field,omitempty"`
	// BeforeSeq is the first seq the driver had not yet seen when the page
	// was read: the page shows the log before it.
	BeforeSeq int64      `json:"beforeSeq"`
	Rows      []view.Row `json:"rows"`
	// From and To bound the look in wall-clock epoch ms, as DSH's log
	// times events: a look is certain only if no event falls between.
	From int64 `json:"from"`
	To   int64 `json:"to"`
	// Screenshot is the PNG beside it, by file name.
	Screenshot string `json:"screenshot"`
}

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
		r := Render{Field: field, BeforeSeq: beforeSeq, Screenshot: name + ".png", From: looked.UnixMilli()}
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
			return read(FinalRender, "", -1, time.Now())
		},
	}
	return hooks, func() {
		if b != nil {
			b.Close()
		}
	}
}

// ReadRenders reads what a rendered run kept: the final render and the
// observations, or nil when the run was not rendered.
func ReadRenders(dir string) (final *Render, observed []Render, err error) {
	names, err := filepath.Glob(filepath.Join(dir, "ui-*.json"))
	if err != nil {
		return nil, nil, err
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, nil, err
		}
		var r Render
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", name, err)
		}
		if r.Field == "" {
			final = &r
		} else {
			observed = append(observed, r)
		}
	}
	slices.SortFunc(observed, func(a, b Render) int { return int(a.BeforeSeq - b.BeforeSeq) })
	return final, observed, nil
}

// HasRender reports whether a run in dir was rendered.
func HasRender(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, FinalRender+".json"))
	return !errors.Is(err, fs.ErrNotExist)
}
