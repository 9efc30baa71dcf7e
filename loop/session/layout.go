package session

import (
	"bytes"
	"fmt"

	"github.com/turnsim/turnsim/internal/strictjson"
)

// splitMembers: a line's data is read as the line is checked (strict.go),
// and its envelope from the members the check split it into, not from a
// walk of its own. A test turns it off to read every line as before, and
// holds the two equal.
var splitMembers = true

// layout is how seq and time are carried.
type layout int

const (
	layoutUnknown  layout = iota
	layoutImplied         // DSH's fixture layout: seq by position, time 0
	layoutExplicit        // every line carries seq and time
)

// decodeLine appends one line's events to out (several for a packed row).
// members are the line's, split by its strict check, or nil when it is
// not an object (parseEnvelope refuses it); read is its data as it was
// read when checked (strict.go), or nil.
func (r *Reader) decodeLine(line []byte, members []strictjson.Member, read *checkedData, out []Event) ([]Event, error) {
	var env envelope
	switch {
	case r.streamJSON:
		event, err := unwrapStreamJSON(line)
		if err != nil || event == nil {
			return out, err // a nil event is a result or diagnostic record
		}
		if err := parseEnvelope(event, &env); err != nil {
			return out, err
		}
	case members != nil && splitMembers:
		if err := envelopeOf(members, &env, &r.allocs.ops); err != nil {
			return out, err
		}
	default:
		if err := parseEnvelope(line, &env); err != nil {
			return out, err
		}
	}
	if env.Type == "" {
		return out, fmt.Errorf("missing type")
	}
	typ := env.Type
	if env.Data == nil || bytes.Equal(env.Data, []byte("null")) {
		return out, fmt.Errorf("%s: missing data", typ)
	}
	if isPackedRow(typ) {
		var packed *packedData
		if read != nil && read.packedRead {
			packed = &read.packed
		}
		return r.decodePacked(out, typ, &env, packed)
	}
	if env.Seq0.set || env.Time0.set {
		return out, fmt.Errorf("%s: seq0/time0 belong to packed chunk rows only", typ)
	}
	seq, t, err := r.position(typ, env.Seq, env.Time)
	if err != nil {
		return out, err
	}
	e, err := r.decodeEvent(typ, env.Data, seq, env.SurfaceOp, read)
	if err != nil {
		return out, err
	}
	e.Time = t
	e.SurfaceOp = env.SurfaceOp
	e.SourceEventSeqs = env.SourceEventSeqs
	e.Ignorable = env.Ignorable.v
	r.nextSeq++
	return append(out, e), nil
}

// position checks seq and time against the layout, which the first event
// decides.
func (r *Reader) position(typ string, seq, t optInt) (int64, int64, error) {
	explicit := seq.set
	switch r.layout {
	case layoutUnknown:
		r.layout = layoutImplied
		if explicit {
			r.layout = layoutExplicit
		}
	case layoutImplied:
		if explicit || t.set {
			return 0, 0, fmt.Errorf("%s carries seq/time, but earlier lines use the implied layout", typ)
		}
	case layoutExplicit:
		if !explicit {
			return 0, 0, fmt.Errorf("%s: missing seq (earlier lines carry explicit seq and time)", typ)
		}
	}
	if r.layout == layoutImplied {
		if t.set {
			return 0, 0, fmt.Errorf("%s: time without seq", typ)
		}
		return r.nextSeq, 0, nil
	}
	if !t.set {
		return 0, 0, fmt.Errorf("%s: missing time", typ)
	}
	if seq.v != r.nextSeq {
		return 0, 0, seqError(typ, seq.v, r.nextSeq)
	}
	if t.v < 0 {
		// A time may go backwards (docs/dsh.md#log-file), never before the
		// epoch.
		return 0, 0, fmt.Errorf("%s: time %d is negative (epoch milliseconds)", typ, t.v)
	}
	return seq.v, t.v, nil
}

func seqError(typ string, got, want int64) error {
	if got > want {
		return fmt.Errorf("%s: seq gap: seq %d, expected %d", typ, got, want)
	}
	return fmt.Errorf("%s: seq %d goes back or repeats, expected %d", typ, got, want)
}

// decodePacked appends a packed row's events to out; on an error out is
// as given.
func (r *Reader) decodePacked(out []Event, typ string, env *envelope, read *packedData) ([]Event, error) {
	if env.Seq.set || env.Time.set || env.SurfaceOp != nil || env.SourceEventSeqs != nil || env.Ignorable.set {
		return out, fmt.Errorf("%s row: only type, seq0, time0 and data are allowed", typ)
	}
	var t0 int64
	switch r.layout {
	case layoutUnknown:
		r.layout = layoutImplied
		if env.Seq0.set {
			r.layout = layoutExplicit
		}
	case layoutImplied:
		if env.Seq0.set || env.Time0.set {
			return out, fmt.Errorf("%s row carries seq0/time0, but earlier lines use the implied layout", typ)
		}
	}
	if r.layout == layoutExplicit {
		if !env.Seq0.set || !env.Time0.set {
			return out, fmt.Errorf("%s row: missing seq0 or time0", typ)
		}
		if env.Seq0.v != r.nextSeq {
			return out, seqError(typ, env.Seq0.v, r.nextSeq)
		}
		t0 = env.Time0.v
		if t0 < 0 {
			return out, fmt.Errorf("%s row: time0 %d is negative (epoch milliseconds)", typ, t0)
		}
	}
	all, err := appendPacked(out, &r.payloads, typ, env.Data, read, r.nextSeq, t0)
	if err != nil {
		return out, err
	}
	events := all[len(out):]
	for i := range events {
		switch {
		case r.layout == layoutImplied:
			// Implied seq and time: every time is 0
			// (docs/dsh.md#fixture-layout), even where a fixture kept a
			// row's dt without its time0.
			events[i].Time = 0
		case events[i].Time < 0:
			// dt may be negative (time may go backwards), the times it
			// makes may not.
			return out, fmt.Errorf("%s row: member %d's time %d is negative (epoch milliseconds)", typ, i, events[i].Time)
		}
	}
	r.nextSeq += int64(len(events))
	return all, nil
}
