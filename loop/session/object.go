package session

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// objectFields splits a JSON object into its keys and raw values, in order.
// The v0→v1 edge edits objects with it so that every field it does not touch
// keeps its place and its bytes.
func objectFields(b []byte) ([]Field, error) { return appendObjectFields(nil, b) }

// appendObjectFields is objectFields appending to fields.
func appendObjectFields(fields []Field, b []byte) ([]Field, error) {
	err := scanObject(b, func(key, value []byte) error {
		fields = append(fields, Field{string(key), json.RawMessage(value)})
		return nil
	})
	return fields, err
}

func writeObject(buf *bytes.Buffer, fields []Field) error {
	buf.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeJSONString(buf, f.Key)
		buf.WriteByte(':')
		if err := json.Compact(buf, f.Value); err != nil {
			return fmt.Errorf("field %s: %w", f.Key, err)
		}
	}
	buf.WriteByte('}')
	return nil
}

func encodeObject(fields []Field) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := writeObject(&buf, fields); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// field returns the value of key, or nil.
func field(fields []Field, key string) json.RawMessage {
	for _, f := range fields {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

// without returns fields minus key.
func without(fields []Field, key string) []Field {
	out := fields[:0:0]
	for _, f := range fields {
		if f.Key != key {
			out = append(out, f)
		}
	}
	return out
}

// withField sets key to value, in place when present, else at the end.
func withField(fields []Field, key string, value json.RawMessage) []Field {
	out := append(fields[:0:0], fields...)
	for i := range out {
		if out[i].Key == key {
			out[i].Value = value
			return out
		}
	}
	return append(out, Field{key, value})
}
