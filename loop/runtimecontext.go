package loop

import (
	"encoding/json"
	"slices"

	"github.com/turnsim/turnsim/loop/session"
)

// RuntimeContext is the rendered runtime context of a composition: the
// text of its snapshot message and the named sections it joins.
type RuntimeContext struct {
	Text     string
	Sections []ContextSection
}

// ContextSection is one named contribution to the runtime context.
type ContextSection struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// RuntimeContextPlugin is the source plugin of snapshot messages.
const RuntimeContextPlugin = "@deepseek-ai/dsh-system-prompt"

// clearedContext replaces a runtime context that became empty.
const clearedContext = "Current runtime context: none. Earlier runtime-context snapshots no longer apply."

// contextProjection is DSH's RuntimeContextProjection: which snapshot the
// surface still carries. A snapshot is projected when the rendered context
// differs from the retained one; a surface replacement that shadows the
// retained snapshot (a compaction checkpoint) leaves none retained, so the
// next step projects it again.
type contextProjection struct {
	// ever: a snapshot was ever appended; retained: one is on the surface.
	ever, retained bool
	seq            int64
	text           string
}

// observe follows an appended event.
func (p *contextProjection) observe(e *session.Event) {
	if d, ok := e.Data.(*session.UserMessage); ok && d.Source.Kind == "plugin" && d.Source.Plugin == RuntimeContextPlugin {
		p.ever, p.retained, p.seq, p.text = true, true, e.Seq, contentText(d.Content)
		return
	}
	// A replacement that shadows the snapshot (a checkpoint is a user
	// message too) leaves none retained.
	if p.retained && e.SurfaceOp != nil && e.SurfaceOp.Op == session.SurfaceReplace && slices.Contains(e.SourceEventSeqs, p.seq) {
		p.retained = false
	}
}

// project is the snapshot message a step enters with, or nil.
func (p *contextProjection) project(rc *RuntimeContext, ids IDs) *session.UserMessage {
	if rc == nil || (!p.ever && rc.Text == "") {
		return nil
	}
	text := rc.Text
	if text == "" {
		text = clearedContext
	}
	if p.retained && p.text == text {
		return nil
	}
	src := session.Source{Kind: "plugin", Plugin: RuntimeContextPlugin}
	if len(rc.Sections) > 0 && rc.Text != "" {
		src.Form = "snapshot"
		src.Sections, _ = session.Marshal(rc.Sections)
	}
	content := session.AppendString([]byte(`[{"type":"text","text":`), text)
	return &session.UserMessage{Content: json.RawMessage(append(content, `}]`...)), Source: src, Role: "user", ID: ids.NewID(IDMessage)}
}
