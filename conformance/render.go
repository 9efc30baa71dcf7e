package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

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
