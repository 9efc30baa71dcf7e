package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/turnsim/turnsim/internal/strictjson"
)

// envelope is every key a persisted line may carry. Events use type, seq,
// time, data, surfaceOp, sourceEventSeqs and ignorable; packed rows use
// type, seq0, time0 and data. It holds no pointer of its own making, so
// that reading one allocates nothing (a pointer per field, and the
// envelope that held them, were a third of a line's allocations).
type envelope struct {
	Type            string // "" when missing
	Seq, Time       optInt
	Data            json.RawMessage
	SurfaceOp       *SurfaceOp
	SourceEventSeqs []int64
	Ignorable       optBool
	Seq0, Time0     optInt
}

// optInt is an integer field that may be missing.
type optInt struct {
	v   int64
	set bool
}

// optBool is a boolean field that may be missing.
type optBool struct {
	v   bool
	set bool
}

// parseEnvelope reads a line's envelope into env in one pass; the data
// stays raw.
func parseEnvelope(line []byte, env *envelope) error {
	*env = envelope{}
	return scanObject(line, func(key, value []byte) error {
		return env.set(string(key), value, nil)
	})
}

// envelopeOf reads the envelope of a line the strict check has split into
// its members, as parseEnvelope reads it from the line: the members are
// the key and value bytes that scanObject finds in a line that passed the
// check. A surfaceOp is taken from ops.
func envelopeOf(members []strictjson.Member, env *envelope, ops *slab[SurfaceOp]) error {
	*env = envelope{}
	for _, m := range members {
		if err := env.set(m.Key, m.Value, ops); err != nil {
			return err
		}
	}
	return nil
}

// set reads one key of the envelope; a surfaceOp from ops (nil: on its
// own).
func (env *envelope) set(key string, value []byte, ops *slab[SurfaceOp]) error {
	var err error
	switch key {
	case "type":
		env.Type, err = eventType(value)
	case "seq":
		env.Seq, err = parseOptInt(value)
	case "time":
		env.Time, err = parseOptInt(value)
	case "seq0":
		env.Seq0, err = parseOptInt(value)
	case "time0":
		env.Time0, err = parseOptInt(value)
	case "data":
		env.Data = value
	case "surfaceOp":
		if ops != nil {
			env.SurfaceOp = ops.next()
		} else {
			env.SurfaceOp = new(SurfaceOp)
		}
		if string(value) == `"append"` {
			// What UnmarshalJSON reads it as, without encoding/json: all
			// but a few surface events append.
			env.SurfaceOp.Op = SurfaceAppend
		} else {
			err = json.Unmarshal(value, env.SurfaceOp)
		}
	case "sourceEventSeqs":
		env.SourceEventSeqs, err = parseIntegers(value)
	case "ignorable":
		env.Ignorable.set = true
		env.Ignorable.v, err = parseBool(value)
	default:
		return fmt.Errorf("unknown field %q in the event envelope", key)
	}
	if err != nil {
		return fmt.Errorf("%s", describeJSONError(key, err))
	}
	return nil
}

// parseBool reads a boolean as encoding/json reads one into a bool
// (null leaves it false), which also words the error.
func parseBool(value []byte) (bool, error) {
	switch string(value) {
	case "true":
		return true, nil
	case "false", "null":
		return false, nil
	}
	var b bool
	return b, json.Unmarshal(value, &b)
}

func parseOptInt(value []byte) (optInt, error) {
	n, err := parseInteger(value)
	return optInt{n, err == nil}, err
}

// parseInteger reads a JSON integer (seq and time are integers).
func parseInteger(value []byte) (int64, error) {
	n, err := strconv.ParseInt(string(value), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("expected an integer, got %.40s", value)
	}
	return n, nil
}

// eventType reads an event's type: the Go constant for a typed one, so
// that the string a log spells on every line is not made again for each.
func eventType(value []byte) (string, error) {
	if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
		if t, ok := typedEventType(value[1 : len(value)-1]); ok {
			return t, nil
		}
	}
	var s string
	err := unquote(value, &s)
	return s, err
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
	if len(value) < 2 || value[0] != '[' || value[len(value)-1] != ']' {
		return nil, fmt.Errorf("expected an array of integers")
	}
	inner := value[1 : len(value)-1]
	// Room for them all at once: a comma between each two.
	out := make([]int64, 0, bytes.Count(inner, []byte{','})+1)
	for i := 0; ; {
		i = skipSpace(inner, i)
		if i == len(inner) && len(out) == 0 {
			return out, nil
		}
		j := i
		for j < len(inner) && inner[j] != ',' && inner[j] != ' ' && inner[j] != '\t' && inner[j] != '\n' && inner[j] != '\r' {
			j++
		}
		n, ok := plainInteger(inner[i:j])
		if !ok {
			var err error
			if n, err = strconv.ParseInt(string(inner[i:j]), 10, 64); err != nil {
				return nil, fmt.Errorf("expected an array of integers")
			}
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
