package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/turnsim/turnsim/internal/limits"
)

// Packed chunk row types: a storage encoding of ≥3 consecutive
// assistant/chunk deltas of one block (docs/dsh.md#packed-rows), never an
// event.
const (
	rowTextChunks      = "text-chunks"
	rowReasoningChunks = "reasoning-chunks"
	rowToolCallChunks  = "tool-call-chunks"
)

func isPackedRow(typ string) bool {
	return typ == rowTextChunks || typ == rowReasoningChunks || typ == rowToolCallChunks
}

type packedData struct {
	Turn  int      `json:"turn"`
	Step  int      `json:"step"`
	Index int      `json:"index"`
	ID    string   `json:"id"`
	Name  *string  `json:"name"`
	Dt    []int64  `json:"dt"`
	Texts []string `json:"texts"`
	Args  []string `json:"args"`
}

// expandPacked expands a packed row into its assistant/chunk events, seqs
// from seq0 and times from time0 plus the running sum of dt.
func expandPacked(typ string, data json.RawMessage, seq0, time0 int64) ([]Event, error) {
	return appendPacked(nil, nil, typ, data, nil, seq0, time0)
}

// appendPacked is expandPacked appending the events to out, their
// payloads from slabs (nil: each on its own). On an error out is as given.
//
// With slabs, data is a reader's, from a line the strict check passed:
// only then is decodePackedFast's reading encoding/json's (it does not
// check the grammar again); data of any other origin is encoding/json's
// to read. read is data read already, as the line was checked, or nil.
func appendPacked(out []Event, slabs *payloadSlabs, typ string, data json.RawMessage, read *packedData, seq0, time0 int64) ([]Event, error) {
	var d packedData
	if read != nil {
		d = *read
	} else if slabs == nil || !fastPayloads || !decodePackedFast(data, &d) {
		d = packedData{}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			return nil, fmt.Errorf("%s row: %s", typ, describeJSONError("data", err))
		}
		// A decoder stops after the first value; data is one value, as
		// encoding/json.Unmarshal holds it (FuzzExpandPacked found a row
		// with a stray byte after its object expanded, not refused).
		if _, err := dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("%s row: data has more than one JSON value", typ)
		}
	}
	var members []string
	chunkType := ChunkTextDelta
	switch typ {
	case rowTextChunks:
		members = d.Texts
	case rowReasoningChunks:
		members, chunkType = d.Texts, ChunkReasoningDelta
	case rowToolCallChunks:
		members, chunkType = d.Args, ChunkToolCallDelta
		if d.ID == "" {
			return nil, fmt.Errorf("%s row: data.id is missing", typ)
		}
	}
	if d.Turn < 1 || d.Step < 1 {
		return nil, fmt.Errorf("%s row: data.turn and data.step must be integers ≥ 1", typ)
	}
	if len(members) == 0 {
		return nil, fmt.Errorf("%s row has no members", typ)
	}
	if max := limits.Current.PackedMembers; len(members) > max {
		return nil, &limits.Exceeded{What: fmt.Sprintf("a %s row of %d members", typ, len(members)), Limit: fmt.Sprint(max), Flag: limits.FlagPackedMembers}
	}
	if len(d.Dt) != len(members)-1 {
		return nil, fmt.Errorf("%s row: dt has %d entries for %d members, want %d", typ, len(d.Dt), len(members), len(members)-1)
	}
	t := time0
	for k, m := range members {
		if k > 0 {
			t += d.Dt[k-1]
		}
		c := StreamChunk{Type: chunkType, Index: d.Index}
		if chunkType == ChunkToolCallDelta {
			c.ID, c.Name, c.ArgumentsDelta = d.ID, d.Name, m
		} else {
			c.Text = m
		}
		var p *AssistantChunk
		if slabs != nil {
			p = slabs.chunks.next()
		} else {
			p = new(AssistantChunk)
		}
		*p = AssistantChunk{Turn: d.Turn, Step: d.Step, Chunk: c}
		out = append(out, Event{Seq: seq0 + int64(k), Time: t, Data: p})
	}
	return out, nil
}
