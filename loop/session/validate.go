package session

import (
	"encoding/json"
	"fmt"
)

// decodeEvent applies the v0→v1 edge and decodes the payload.
func (r *Reader) decodeEvent(typ string, line json.RawMessage, seq int64, op *SurfaceOp, read *checkedData) (Event, error) {
	data := line
	legacy := false
	if r.migrator != nil {
		var err error
		var fields []Field
		if read != nil && read.fieldsRead && read.typ == typ {
			fields = read.fields
		}
		if typ, data, legacy, err = r.migrator.migrate(typ, data, seq, op, fields); err != nil {
			return Event{}, err
		}
	}
	if read != nil && read.payload != nil && read.typ == typ && &data[0] == &line[0] {
		// Read as the line was checked, from the reader's copy: what
		// decodePayload would read, decodeFast's reading.
		if err := validatePayload(read.payload); err != nil {
			return Event{}, fmt.Errorf("%s %v", typ, err)
		}
		return Event{Seq: seq, Data: read.payload, raw: read.data, Legacy: legacy}, nil
	}
	if &data[0] == &line[0] {
		// The line buffer is reused: the event keeps a copy. Data the
		// edge rewrote is an array of its own already.
		data = r.allocs.copyOf(data)
	}
	p, err := decodePayload(typ, data, &r.payloads, &r.allocs)
	if err != nil {
		return Event{}, err
	}
	return Event{Seq: seq, Data: p, raw: data, Legacy: legacy}, nil
}

// fastPayloads: decodePayload tries decodeFast first. A test turns it off
// to read every log once as encoding/json alone reads it.
var fastPayloads = true

// decodePayload decodes the data of a typed event and checks the fields that
// give it its place in the log; any other type is opaque.
func decodePayload(typ string, data json.RawMessage, slabs *payloadSlabs, allocs *readerAllocs) (Payload, error) {
	p := slabs.new(typ)
	if p == nil {
		if !json.Valid(data) {
			return nil, fmt.Errorf("%s data is not valid JSON", typ)
		}
		return &Opaque{Type: typ, Data: data}, nil
	}
	if !fastPayloads || !decodeFast(p, data, allocs) {
		p = newPayload(typ) // what decodeFast set is not encoding/json's to see
		if err := json.Unmarshal(data, p); err != nil {
			return nil, fmt.Errorf("%s %s", typ, describeJSONError("data", err))
		}
	}
	if err := validatePayload(p); err != nil {
		return nil, fmt.Errorf("%s %v", typ, err)
	}
	return p, nil
}

// validatePayload checks the identity fields a typed event cannot do
// without. Relational rules (numbering, nesting, budgets) are the oracle's.
func validatePayload(p Payload) error {
	turnStep := func(turn, step int) error {
		if turn < 1 {
			return fmt.Errorf("data.turn is missing or not ≥ 1")
		}
		if step < 1 {
			return fmt.Errorf("data.step is missing or not ≥ 1")
		}
		return nil
	}
	switch p := p.(type) {
	case *TurnStart:
		if p.Turn < 1 {
			return fmt.Errorf("data.turn is missing or not ≥ 1")
		}
	case *TurnEnd:
		if p.Turn < 1 {
			return fmt.Errorf("data.turn is missing or not ≥ 1")
		}
		return validateReason(&p.Reason)
	case *StepStart:
		return turnStep(p.Turn, p.Step)
	case *StepEnd:
		return turnStep(p.Turn, p.Step)
	case *AssistantMessage:
		return turnStep(p.Turn, p.Step)
	case *AssistantChunk:
		if err := turnStep(p.Turn, p.Step); err != nil {
			return err
		}
		c := &p.Chunk
		if c.Type == "" {
			return fmt.Errorf("data.chunk.type is missing")
		}
		if c.Type == ChunkFinish {
			if c.Reason == nil || c.Reason.Kind == "" {
				return fmt.Errorf("data.chunk.reason.kind is missing on a finish chunk")
			}
			if (c.Reason.Kind == FinishError || c.Reason.Kind == FinishAborted) && c.Reason.Failure == nil {
				return fmt.Errorf("data.chunk.reason.failure is missing on a %s finish", c.Reason.Kind)
			}
		}
	}
	return nil
}

func validateReason(r *TurnEndReason) error {
	switch r.Kind {
	case "":
		return fmt.Errorf("data.reason.kind is missing")
	case EndAborted:
		if r.Cause == nil || r.Cause.Kind == "" {
			return fmt.Errorf("data.reason.reason.kind is missing on an aborted turn end")
		}
	case EndError:
		if r.Error == nil {
			return fmt.Errorf("data.reason.error is missing on an error turn end")
		}
	}
	return nil
}
