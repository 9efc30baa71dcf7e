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
		fields = append(fields, Field{fieldKey(key), json.RawMessage(value)})
		return nil
	})
	return fields, err
}

// fieldKey is key as a string, without making one for the keys the v0
// edge and the header read and write (a string made per key was a ninth
// of what reading a v0 log allocated).
func fieldKey(key []byte) string {
	switch string(key) {
	case "turn":
		return "turn"
	case "step":
		return "step"
	case "trigger":
		return "trigger"
	case "content":
		return "content"
	case "source":
		return "source"
	case "role":
		return "role"
	case "id":
		return "id"
	case "reason":
		return "reason"
	case "header":
		return "header"
	case "kind":
		return "kind"
	case "message":
		return "message"
	case "callId":
		return "callId"
	case "isError":
		return "isError"
	case "provenance":
		return "provenance"
	case "retryId":
		return "retryId"
	case "provider":
		return "provider"
	case "model":
		return "model"
	case "config":
		return "config"
	case "type": // and the header's keys
		return "type"
	case "version":
		return "version"
	case "createdAt":
		return "createdAt"
	case "cwd":
		return "cwd"
	case "parentSession":
		return "parentSession"
	case "seedLength":
		return "seedLength"
	case "origin":
		return "origin"
	case "delegationDepth":
		return "delegationDepth"
	case "agentPreset":
		return "agentPreset"
	}
	return string(key)
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

// encodeObject writes fields as one compact object. Its values are valid
// JSON (a checked line's, or marshalled): the v0 edge's, which is all
// that calls it, and what lets it compact them without encoding/json
// checking each once more.
func encodeObject(fields []Field) (json.RawMessage, error) {
	n := 2
	for _, f := range fields {
		n += len(f.Key) + len(f.Value) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, f.Key)
		b = append(b, ':')
		b = appendCompact(b, f.Value)
	}
	return append(b, '}'), nil
}

// appendCompact appends valid JSON src to dst without the space between
// its tokens: json.Compact's output for it, which FuzzAppendCompact holds
// it to.
func appendCompact(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		switch c := src[i]; c {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			end, err := stringEnd(src, i)
			if err != nil { // not valid JSON, which it is handed never
				return append(dst, src[i:]...)
			}
			dst = append(dst, src[i:end]...)
			i = end
		default:
			// Up to the next string or space, at once.
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != ' ' && src[j] != '\t' && src[j] != '\n' && src[j] != '\r' {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j
		}
	}
	return dst
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
