package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Event is one session event: the persisted envelope around a payload.
type Event struct {
	Seq  int64 // index in the log, from 0
	Time int64 // epoch milliseconds at append (virtual in simulation)
	Data Payload
	// SurfaceOp is set on surface events, the only source of model-visible
	// history.
	SurfaceOp *SurfaceOp
	// SourceEventSeqs are the seqs an event was derived from: an
	// assistant/message's chunks, a tool/result's call, a checkpoint's
	// compaction events and shadowed nodes.
	SourceEventSeqs []int64
	Ignorable       bool
	// Legacy reports that the v0→v1 edge rewrote this event from a retired
	// shape. Its citations (SourceEventSeqs) are kept as written; DSH's
	// hand-minimized web fixtures did not maintain them.
	Legacy bool

	// raw is the data exactly as read (after the v0→v1 edge); writing an
	// event that was read reuses it, so foreign fields survive untouched.
	raw json.RawMessage
}

// Type is the event's type.
func (e *Event) Type() string { return e.Data.EventType() }

// RawData is the event's data as JSON: the bytes that were read, or the
// payload marshalled.
func (e *Event) RawData() (json.RawMessage, error) {
	if e.raw != nil {
		return e.raw, nil
	}
	return marshal(e.Data)
}

// SurfaceOp is "append", or a replacement of the surface range
// [Start, End] (compaction checkpoints and pruned tool results).
type SurfaceOp struct {
	Op    string // "append" or "replace"
	Start int64
	End   int64
}

// Surface operations.
const (
	SurfaceAppend  = "append"
	SurfaceReplace = "replace"
)

// MarshalJSON writes "append" or {"op":"replace","start":S,"end":E}.
func (s SurfaceOp) MarshalJSON() ([]byte, error) {
	if s.Op == SurfaceAppend {
		return []byte(`"append"`), nil
	}
	return fmt.Appendf(nil, `{"op":%q,"start":%d,"end":%d}`, s.Op, s.Start, s.End), nil
}

// UnmarshalJSON reads either form.
func (s *SurfaceOp) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s.Op); err != nil {
			return err
		}
		if s.Op != SurfaceAppend {
			return fmt.Errorf("surfaceOp %q is neither \"append\" nor a replacement", s.Op)
		}
		return nil
	}
	var r struct {
		Op    string `json:"op"`
		Start *int64 `json:"start"`
		End   *int64 `json:"end"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	if r.Op != SurfaceReplace || r.Start == nil || r.End == nil {
		return fmt.Errorf("surfaceOp must be \"append\" or {\"op\":\"replace\",\"start\",\"end\"}")
	}
	*s = SurfaceOp{Op: r.Op, Start: *r.Start, End: *r.End}
	return nil
}

// WriteLine writes the event as one v1 JSONL line (with its newline), keys
// in DSH's writer order: type, seq, time, data, sourceEventSeqs, surfaceOp,
// then ignorable.
func (e *Event) WriteLine(buf *bytes.Buffer) error {
	data, err := e.RawData()
	if err != nil {
		return fmt.Errorf("seq %d (%s): %w", e.Seq, e.Type(), err)
	}
	buf.WriteString(`{"type":`)
	writeJSONString(buf, e.Type())
	buf.WriteString(`,"seq":`)
	buf.WriteString(strconv.FormatInt(e.Seq, 10))
	buf.WriteString(`,"time":`)
	buf.WriteString(strconv.FormatInt(e.Time, 10))
	buf.WriteString(`,"data":`)
	buf.Write(data)
	if e.SourceEventSeqs != nil {
		buf.WriteString(`,"sourceEventSeqs":[`)
		for i, s := range e.SourceEventSeqs {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(strconv.FormatInt(s, 10))
		}
		buf.WriteByte(']')
	}
	if e.SurfaceOp != nil {
		op, _ := e.SurfaceOp.MarshalJSON()
		buf.WriteString(`,"surfaceOp":`)
		buf.Write(op)
	}
	if e.Ignorable {
		buf.WriteString(`,"ignorable":true`)
	}
	buf.WriteString("}\n")
	return nil
}
