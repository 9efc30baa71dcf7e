package session

import (
	"encoding/json"

	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/internal/strictjson"
)

// A line's strict check and the decoding of its data in one walk.
//
// The strict check walked every line whole, and the fast decoder walked
// its data once more: the data is most of a line, and the check was a
// sixth of reading a log. A reader now has the check hand it the line's
// data as it reaches it (strictjson's CheckMembersReading), and reads it
// there, checking what the strict check would (its keys, none twice in
// an object, its numbers, its nesting) and having the strict check check
// the values it does not read (unknown keys, raw values). Where anything
// is amiss, or the decoder cannot read the data, the reader checks the
// line whole and reads it as before, so that its events and errors are
// the same (FuzzCheckedFastPayload, FuzzCheckedPacked, FuzzSplitRead).

// checking is what a checking decoder checks with, and how a reader
// reads a line's data as the line's check reaches it (ReadMember).
type checking struct {
	strict   *strictjson.Splitter
	maxDepth int
	// keys are the keys of the objects open, outermost first, for the
	// check that none is there twice.
	keys [][]byte
	// raws are the raw values read from the line, to view the copy of
	// the data once it is read.
	raws []rawAt
	// fields are the members of the objects fieldsDepth deep, as Fields
	// (0: none kept): the v0 edge's of a line's data.
	fields      []Field
	fieldsDepth int
	// r is the reader whose line is checked, read what its data was
	// read into.
	r    *Reader
	read *checkedData
}

// rawAt is a raw value read from a line, and where in it.
type rawAt struct {
	m  *json.RawMessage
	at int
}

// checkedObject is the rest of object for a checking decoder, after the
// '{' of an object that is not empty: its keys must be strings without
// control characters (without escapes, which decodeFast leaves to
// encoding/json), none twice, and its values a level deeper than it.
func (d *fastDecoder) checkedObject(known []string, field func(key []byte) bool) bool {
	c := d.check
	if d.depth++; d.depth > c.maxDepth {
		return false
	}
	base := len(c.keys)
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return false
		}
		end, err := stringEnd(d.b, d.i)
		if err != nil {
			return false
		}
		key := d.b[d.i+1 : end-1]
		for _, b := range key {
			if b == '\\' || b < 0x20 {
				return false
			}
		}
		for _, k := range c.keys[base:] {
			if string(k) == string(key) {
				return false
			}
		}
		c.keys = append(c.keys, key)
		d.i = skipSpace(d.b, end)
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return false
		}
		d.i++
		d.space()
		valueAt := d.i
		if !d.member(key, known, field) {
			return false
		}
		if d.depth == c.fieldsDepth {
			c.fields = append(c.fields, Field{fieldKey(key), d.b[valueAt:d.i]})
		}
		d.space()
		if d.i >= len(d.b) {
			return false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			clear(c.keys[base:]) // they view the line
			c.keys = c.keys[:base]
			d.depth--
			return true
		default:
			return false
		}
	}
}

// valueEnd is where the value at d.i ends; a checking decoder has the
// strict check check it.
func (d *fastDecoder) valueEnd() (int, bool) {
	if d.check != nil {
		return d.check.strict.CheckValue(d.b, d.i, d.depth)
	}
	end, err := valueEnd(d.b, d.i)
	return end, err == nil
}

// checkedData is a line's data as it was read when checked.
type checkedData struct {
	// typ, data and payload: the data of a typed event, the reader's
	// copy, read into payload as typ (nil when it was only checked).
	typ     string
	data    json.RawMessage
	payload Payload
	// fields, when fieldsRead, are the data's, split as it was read,
	// viewing the line: what the v0 edge splits it into.
	fields     []Field
	fieldsRead bool
	// packed is the data of a packed row, when packedRead.
	packed     packedData
	packedRead bool
}

// fillChecked is fill for a line checked as its data is read: false when
// the line is to be checked whole and read as before (any doubt about it
// at all), with nothing of the reader's changed but its memory.
func (r *Reader) fillChecked(line []byte, out []Event) ([]Event, bool, error) {
	c := &r.checking
	c.strict, c.maxDepth, c.r = &r.splitter, min(limits.Current.Depth, limits.MaxDepth), r
	r.read = checkedData{}
	c.read = &r.read
	members, object, err := r.splitter.CheckMembersReading(line, r.members[:0], "data", c)
	r.members = members
	defer clear(members) // they view the line
	if err != nil || !object {
		return out, false, nil
	}
	if members == nil {
		members = []strictjson.Member{} // an empty object: no members, still split
	}
	read := r.read
	r.read = checkedData{} // the reader keeps no payload of it
	if out, err = r.decodeLine(line, members, &read, out); err != nil {
		return out, true, r.fail(r.line, "%v", err)
	}
	return out, true, nil
}

// ReadMember checks and reads a line's data as the line's check reaches
// it: a typed event's (but one the v0 edge may rewrite, which is read once
// rewritten) into a payload, a packed row's into its members; any other
// it only checks. The type is the line's member before it: DSH writes it
// first.
func (c *checking) ReadMember(members []strictjson.Member, line []byte, i, depth int) (int, bool) {
	r, read := c.r, c.read
	var typ string
	for _, m := range members {
		if m.Key == "type" {
			typ = knownType(m.Value) // any other is only checked here
		}
	}
	clear(c.keys)
	clear(c.raws)
	clear(c.fields)
	c.keys, c.raws, c.fields, c.fieldsDepth = c.keys[:0], c.raws[:0], c.fields[:0], 0
	if isPackedRow(typ) {
		// Its texts from the reader's runs and interned words.
		d := fastDecoder{b: line, i: i, in: &r.allocs, check: c, depth: depth}
		// Its lists in the room of the last row's: the row's events take
		// their members, not the lists.
		room := &r.packedRoom
		read.packed = packedData{Dt: room.Dt[:0], Texts: room.Texts[:0], Args: room.Args[:0]}
		read.packedRead = d.packed(&read.packed)
		room.Dt = keepRoom(room.Dt, read.packed.Dt)
		room.Texts = keepRoom(room.Texts, read.packed.Texts)
		room.Args = keepRoom(room.Args, read.packed.Args)
		return d.i, read.packedRead
	}
	if readsFast(typ) {
		// An event the v0 edge may rewrite is read too: the edge leaves
		// most as they are (all but 55 of 2,379 lines of DSH's logs),
		// and it is handed the data's fields as they are read.
		edited := r.migrator != nil && mayBeV0Only(typ)
		if edited {
			c.fieldsDepth = depth + 1
		}
		p := r.payloads.new(typ)
		d := fastDecoder{b: line, i: i, in: &r.allocs, check: c, depth: depth}
		if !d.payload(p) {
			return 0, false
		}
		// The event keeps a copy of its data, which its raw values view.
		own := r.allocs.copyOf(line[i:d.i])
		for _, v := range c.raws {
			from, to := v.at-i, v.at-i+len(*v.m)
			*v.m = own[from:to:to]
		}
		read.typ, read.data, read.payload = typ, own, p
		read.fields, read.fieldsRead = c.fields, edited
		return d.i, true
	}
	// Opaque (or a compaction record, encoding/json's): checked alone.
	return c.strict.CheckValue(line, i, depth)
}

// knownType is the constant of a typed event type or a packed row type
// that value spells plainly, without making a string; "" for any other.
func knownType(value []byte) string {
	if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' {
		return ""
	}
	name := value[1 : len(value)-1]
	if t, ok := typedEventType(name); ok {
		return t
	}
	switch string(name) {
	case rowTextChunks:
		return rowTextChunks
	case rowReasoningChunks:
		return rowReasoningChunks
	case rowToolCallChunks:
		return rowToolCallChunks
	}
	return ""
}

// keepRoom is the larger of two lists' rooms, for the next row.
func keepRoom[T any](room, used []T) []T {
	if cap(used) > cap(room) {
		return used
	}
	return room
}

// readsFast: decodeFast reads data of typ (every typed event but the
// rare compaction records, which encoding/json reads).
func readsFast(typ string) bool {
	switch typ {
	case "", TypeCompactionSummary, TypeCompactionPrune:
		return false
	}
	_, typed := typedEventType([]byte(typ))
	return typed
}
