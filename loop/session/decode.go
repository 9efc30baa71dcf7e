package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// envelope is every key a persisted line may carry. Events use type, seq,
// time, data, surfaceOp, sourceEventSeqs and ignorable; packed rows use
// type, seq0, time0 and data.
type envelope struct {
	Type            *string
	Seq             *int64
	Time            *int64
	Data            json.RawMessage
	SurfaceOp       *SurfaceOp
	SourceEventSeqs []int64
	Ignorable       *bool
	Seq0            *int64
	Time0           *int64
}

// parseEnvelope reads a line's envelope in one pass; the data stays raw.
func parseEnvelope(line []byte) (envelope, error) {
	var env envelope
	err := scanObject(line, func(key, value []byte) error {
		var err error
		switch string(key) {
		case "type":
			env.Type = new(string)
			err = unquote(value, env.Type)
		case "seq":
			env.Seq, err = parseInteger(value)
		case "time":
			env.Time, err = parseInteger(value)
		case "seq0":
			env.Seq0, err = parseInteger(value)
		case "time0":
			env.Time0, err = parseInteger(value)
		case "data":
			env.Data = value
		case "surfaceOp":
			env.SurfaceOp = new(SurfaceOp)
			err = json.Unmarshal(value, env.SurfaceOp)
		case "sourceEventSeqs":
			env.SourceEventSeqs, err = parseIntegers(value)
		case "ignorable":
			env.Ignorable = new(bool)
			err = json.Unmarshal(value, env.Ignorable)
		default:
			return fmt.Errorf("unknown field %q in the event envelope", key)
		}
		if err != nil {
			return fmt.Errorf("%s", describeJSONError(string(key), err))
		}
		return nil
	})
	return env, err
}

// parseInteger reads a JSON integer (seq and time are integers).
func parseInteger(value []byte) (*int64, error) {
	n, err := strconv.ParseInt(string(value), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("expected an integer, got %.40s", value)
	}
	return &n, nil
}

// unquote reads a JSON string, without encoding/json when it has no escapes.
func unquote(value []byte, s *string) error {
	if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' && !hasBackslash(value) {
		for _, c := range value[1 : len(value)-1] {
			if c < 0x20 || c == '"' {
				return json.Unmarshal(value, s) // let encoding/json describe it
			}
		}
		*s = string(value[1 : len(value)-1])
		return nil
	}
	return json.Unmarshal(value, s)
}

// parseIntegers reads a JSON array of integers, never nil.
func parseIntegers(value []byte) ([]int64, error) {
	out := []int64{}
	if len(value) < 2 || value[0] != '[' || value[len(value)-1] != ']' {
		return nil, fmt.Errorf("expected an array of integers")
	}
	inner := value[1 : len(value)-1]
	for i := 0; ; {
		i = skipSpace(inner, i)
		if i == len(inner) && len(out) == 0 {
			return out, nil
		}
		j := i
		for j < len(inner) && inner[j] != ',' && inner[j] != ' ' && inner[j] != '\t' && inner[j] != '\n' && inner[j] != '\r' {
			j++
		}
		n, err := strconv.ParseInt(string(inner[i:j]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("expected an array of integers")
		}
		out = append(out, n)
		j = skipSpace(inner, j)
		if j == len(inner) {
			return out, nil
		}
		if inner[j] != ',' {
			return nil, fmt.Errorf("expected an array of integers")
		}
		i = j + 1
	}
}

// unwrapStreamJSON returns the event of a stream-json session_event line,
// or nil for the output's other records (result, diagnostics).
func unwrapStreamJSON(line []byte) (json.RawMessage, error) {
	var typ string
	var event json.RawMessage
	err := scanObject(line, func(key, value []byte) error {
		switch string(key) {
		case "type":
			return json.Unmarshal(value, &typ)
		case "event":
			event = value
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if typ != "session_event" {
		return nil, nil
	}
	if event == nil {
		return nil, fmt.Errorf("session_event without event")
	}
	return event, nil
}

// decodeLine turns one line into its events (several for a packed row).
func (r *Reader) decodeLine(line []byte) ([]Event, error) {
	if r.streamJSON {
		event, err := unwrapStreamJSON(line)
		if err != nil || event == nil {
			return nil, err // a nil event is a result or diagnostic record
		}
		line = event
	}
	env, err := parseEnvelope(line)
	if err != nil {
		return nil, err
	}
	if env.Type == nil || *env.Type == "" {
		return nil, fmt.Errorf("missing type")
	}
	typ := *env.Type
	if env.Data == nil || bytes.Equal(env.Data, []byte("null")) {
		return nil, fmt.Errorf("%s: missing data", typ)
	}
	if isPackedRow(typ) {
		return r.decodePacked(typ, &env)
	}
	if env.Seq0 != nil || env.Time0 != nil {
		return nil, fmt.Errorf("%s: seq0/time0 belong to packed chunk rows only", typ)
	}
	seq, t, err := r.position(typ, env.Seq, env.Time)
	if err != nil {
		return nil, err
	}
	e, err := r.decodeEvent(typ, env.Data, seq, env.SurfaceOp)
	if err != nil {
		return nil, err
	}
	e.Time = t
	e.SurfaceOp = env.SurfaceOp
	e.SourceEventSeqs = env.SourceEventSeqs
	e.Ignorable = env.Ignorable != nil && *env.Ignorable
	r.nextSeq++
	return []Event{e}, nil
}

// position checks seq and time against the layout, which the first event
// decides.
func (r *Reader) position(typ string, seq, t *int64) (int64, int64, error) {
	explicit := seq != nil
	switch r.layout {
	case layoutUnknown:
		r.layout = layoutImplied
		if explicit {
			r.layout = layoutExplicit
		}
	case layoutImplied:
		if explicit || t != nil {
			return 0, 0, fmt.Errorf("%s carries seq/time, but earlier lines use the implied layout", typ)
		}
	case layoutExplicit:
		if !explicit {
			return 0, 0, fmt.Errorf("%s: missing seq (earlier lines carry explicit seq and time)", typ)
		}
	}
	if r.layout == layoutImplied {
		if t != nil {
			return 0, 0, fmt.Errorf("%s: time without seq", typ)
		}
		return r.nextSeq, 0, nil
	}
	if t == nil {
		return 0, 0, fmt.Errorf("%s: missing time", typ)
	}
	if *seq != r.nextSeq {
		return 0, 0, seqError(typ, *seq, r.nextSeq)
	}
	if *t < 0 {
		// A time may go backwards (docs/dsh.md#log-file), never before the
		// epoch.
		return 0, 0, fmt.Errorf("%s: time %d is negative (epoch milliseconds)", typ, *t)
	}
	return *seq, *t, nil
}

func seqError(typ string, got, want int64) error {
	if got > want {
		return fmt.Errorf("%s: seq gap: seq %d, expected %d", typ, got, want)
	}
	return fmt.Errorf("%s: seq %d goes back or repeats, expected %d", typ, got, want)
}

func (r *Reader) decodePacked(typ string, env *envelope) ([]Event, error) {
	if env.Seq != nil || env.Time != nil || env.SurfaceOp != nil || env.SourceEventSeqs != nil || env.Ignorable != nil {
		return nil, fmt.Errorf("%s row: only type, seq0, time0 and data are allowed", typ)
	}
	var t0 int64
	switch r.layout {
	case layoutUnknown:
		r.layout = layoutImplied
		if env.Seq0 != nil {
			r.layout = layoutExplicit
		}
	case layoutImplied:
		if env.Seq0 != nil || env.Time0 != nil {
			return nil, fmt.Errorf("%s row carries seq0/time0, but earlier lines use the implied layout", typ)
		}
	}
	if r.layout == layoutExplicit {
		if env.Seq0 == nil || env.Time0 == nil {
			return nil, fmt.Errorf("%s row: missing seq0 or time0", typ)
		}
		if *env.Seq0 != r.nextSeq {
			return nil, seqError(typ, *env.Seq0, r.nextSeq)
		}
		t0 = *env.Time0
		if t0 < 0 {
			return nil, fmt.Errorf("%s row: time0 %d is negative (epoch milliseconds)", typ, t0)
		}
	}
	events, err := expandPacked(typ, env.Data, r.nextSeq, t0)
	if err != nil {
		return nil, err
	}
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
			return nil, fmt.Errorf("%s row: member %d's time %d is negative (epoch milliseconds)", typ, i, events[i].Time)
		}
	}
	r.nextSeq += int64(len(events))
	return events, nil
}

// decodeEvent applies the v0→v1 edge and decodes the payload.
func (r *Reader) decodeEvent(typ string, data json.RawMessage, seq int64, op *SurfaceOp) (Event, error) {
	data = append(json.RawMessage(nil), data...) // the line buffer is reused
	legacy := false
	if r.migrator != nil {
		var err error
		if typ, data, legacy, err = r.migrator.migrate(typ, data, seq, op); err != nil {
			return Event{}, err
		}
	}
	p, err := decodePayload(typ, data)
	if err != nil {
		return Event{}, err
	}
	return Event{Seq: seq, Data: p, raw: data, Legacy: legacy}, nil
}

// decodePayload decodes the data of a typed event and checks the fields that
// give it its place in the log; any other type is opaque.
func decodePayload(typ string, data json.RawMessage) (Payload, error) {
	p := newPayload(typ)
	if p == nil {
		if !json.Valid(data) {
			return nil, fmt.Errorf("%s data is not valid JSON", typ)
		}
		return &Opaque{Type: typ, Data: data}, nil
	}
	if err := json.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("%s %s", typ, describeJSONError("data", err))
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
