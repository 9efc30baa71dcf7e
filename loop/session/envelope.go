package session

import (
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
