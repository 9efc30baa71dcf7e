// Package timeline renders a session log as one line per event: virtual
// time first, then the open turn and step, the event type and its
// essentials. World actions are interleaved where they were applied,
// marked with "»". The legend is in docs/scenarios.md.
package timeline

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop/session"
)

// Mark is a world action applied before the event with seq Seq.
type Mark struct {
	Seq    int64
	TimeMs float64
	Text   string
}

// Render writes the timeline. Times are milliseconds since epochMs. Every
// line is made printable (strictjson.Printable): a log's codes, ids,
// causes and names are shown as they are, and an ESC among them must not
// reach the terminal; quoted text is already escaped by its quotes.
func Render(w io.Writer, events []session.Event, marks []Mark, epochMs int64) error {
	var b strings.Builder
	turn, step := 0, 0
	m := 0
	flush := func(seq int64) {
		for ; m < len(marks) && marks[m].Seq <= seq; m++ {
			line := fmt.Sprintf("%9s  %-7s  » %s", strconv.FormatFloat(marks[m].TimeMs, 'f', -1, 64), where(turn, step), marks[m].Text)
			b.WriteString(strictjson.Printable(line))
			b.WriteByte('\n')
		}
	}
	for i := range events {
		e := &events[i]
		flush(e.Seq)
		switch p := e.Data.(type) {
		case *session.TurnStart:
			turn, step = p.Turn, 0
		case *session.StepStart:
			step = p.Step
		}
		line := fmt.Sprintf("%9d  %-7s  %4d %-21s %s", e.Time-epochMs, where(turn, step), e.Seq, e.Type(), details(e))
		b.WriteString(strictjson.Printable(strings.TrimRight(line, " ")))
		b.WriteByte('\n')
		switch e.Data.(type) {
		case *session.TurnEnd:
			turn, step = 0, 0
		case *session.StepEnd:
			step = 0
		}
	}
	flush(1 << 62)
	_, err := io.WriteString(w, b.String())
	return err
}

func where(turn, step int) string {
	switch {
	case turn == 0:
		return "·"
	case step == 0:
		return fmt.Sprintf("t%d", turn)
	}
	return fmt.Sprintf("t%d s%d", turn, step)
}

func details(e *session.Event) string {
	switch p := e.Data.(type) {
	case *session.InboxSpliced:
		s := p.Target
		if n := len(p.Inserted); n > 0 {
			s += fmt.Sprintf(" +%d", n)
			for _, m := range p.Inserted {
				s += " " + quote(text(m.Content))
			}
		}
		if p.RemovedCount > 0 {
			s += fmt.Sprintf(" -%d", p.RemovedCount)
		}
		if p.Outcome != "" {
			s += " " + p.Outcome
		}
		return s
	case *session.TurnEnd:
		return reason(&p.Reason)
	case *session.UserMessage:
		if p.Source.CompactionID != "" && e.SurfaceOp != nil {
			return fmt.Sprintf("checkpoint of %s replaces seqs %d..%d", p.Source.CompactionID, e.SurfaceOp.Start, e.SurfaceOp.End)
		}
		return quote(text(p.Content))
	case *session.RequestHeader:
		return fmt.Sprintf("%s/%s %s", p.Header.Config.Provider, p.Header.Config.Model, p.Reason)
	case *session.RequestContext:
		s := p.Provider + "/" + p.Model
		if p.ContextWindow != nil {
			s += fmt.Sprintf(" window %d", *p.ContextWindow)
		}
		return s
	case *session.AssistantChunk:
		return chunk(&p.Chunk)
	case *session.AssistantMessage:
		s := quote(text(p.Message.Content))
		if p.Interrupted {
			s = "interrupted " + s
		}
		return s + " cites " + seqs(e.SourceEventSeqs)
	case *session.ToolCall:
		return fmt.Sprintf("%s %s %s", p.CallID, p.Name, quote(p.Arguments))
	case *session.ToolResult:
		s := p.CallID()
		if e.SurfaceOp != nil && e.SurfaceOp.Op == session.SurfaceReplace {
			s += " (pruned)"
		}
		if p.Error != nil {
			s += " " + p.Error.Code
		}
		return s
	case *session.LLMRetry:
		max := "∞"
		if p.MaxRetries != nil {
			max = strconv.Itoa(*p.MaxRetries)
		}
		return fmt.Sprintf("retry %d/%s delay %sms %s %s", p.Retry, max, strconv.FormatFloat(p.DelayMs, 'f', -1, 64), failure(&p.Failure), p.RetryID)
	case *session.LLMRetryStarted:
		return fmt.Sprintf("retry %d %s", p.Retry, p.RetryID)
	case *session.CompactionStart:
		return p.CompactionID
	case *session.CompactionSummary:
		return fmt.Sprintf("%s shadows %s (%d tokens)", p.CompactionID, seqs(p.ShadowedSeqs), p.ShadowedTokenCount)
	case *session.CompactionEnd:
		if p.Error != "" {
			return p.CompactionID + " error " + quote(p.Error)
		}
		return p.CompactionID
	case *session.CompactionPrune:
		return fmt.Sprintf("shadows %s (%d tokens)", seqs(p.ShadowedSeqs), p.ShadowedTokenCount)
	}
	return ""
}

func reason(r *session.TurnEndReason) string {
	switch {
	case r.Cause != nil:
		s := r.Kind + " " + r.Cause.Kind
		if r.Cause.Reason != "" {
			s += " " + quote(r.Cause.Reason)
		}
		return s
	case r.Error != nil:
		return r.Kind + " " + failure(r.Error)
	}
	return r.Kind
}

func chunk(c *session.StreamChunk) string {
	switch c.Type {
	case session.ChunkTextDelta, session.ChunkReasoningDelta:
		return c.Type + " " + quote(c.Text)
	case session.ChunkToolCallDelta:
		return c.Type + " " + c.ID + " " + quote(c.ArgumentsDelta)
	case session.ChunkBlockStart:
		return fmt.Sprintf("%s %d %s", c.Type, c.Index, c.BlockType)
	case session.ChunkBlockEnd:
		return fmt.Sprintf("%s %d", c.Type, c.Index)
	case session.ChunkFinish:
		if c.Reason == nil {
			return c.Type
		}
		if c.Reason.Failure != nil {
			return c.Type + " " + c.Reason.Kind + " " + failure(c.Reason.Failure)
		}
		return c.Type + " " + c.Reason.Kind
	}
	return c.Type
}

func failure(f *session.LlmFailure) string {
	s := f.Code
	if f.Status != nil {
		s += fmt.Sprintf(" %d", *f.Status)
	}
	if f.ProviderRetryAfterMs != nil {
		s += " retry-after " + strconv.FormatFloat(*f.ProviderRetryAfterMs, 'f', -1, 64) + "ms"
	}
	return s + " " + quote(f.Message)
}

func seqs(s []int64) string {
	if len(s) == 0 {
		return "[]"
	}
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// quote shortens and quotes a text for one line.
func quote(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > 40 {
		s = string(r[:37]) + "..."
	}
	return strconv.Quote(s)
}

// text joins a content's text blocks.
func text(content []byte) string {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(content, &blocks); err != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}
