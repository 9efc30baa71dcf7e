package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/turnsim/turnsim/internal/strictjson"
)

// Format versions. turnsim reads v0 and v1 and writes v1
// (docs/dsh.md#log-versions).
const (
	Version0       = 0
	Version1       = 1
	CurrentVersion = Version1
)

// Header is the first line of a log (docs/dsh.md#log-file).
type Header struct {
	Version         int
	ID              string
	CreatedAt       int64
	Cwd             *string
	ParentSession   *string
	SeedLength      *int64
	Origin          string
	DelegationDepth int
	AgentPreset     json.RawMessage
	// Extra keeps header fields turnsim does not know, in their order.
	Extra []Field
}

// Field is one key of a JSON object with its raw value.
type Field struct {
	Key   string
	Value json.RawMessage
}

// retiredHeaderFields are refused by DSH's reader (docs/dsh.md#log-file).
var retiredHeaderFields = map[string]bool{"sandboxMode": true, "approvalPolicy": true}

// parseHeader reads a header line. A header without a version is v0: DSH's
// acp-snapshot fixtures omit it.
func parseHeader(line []byte) (h Header, err error) {
	if !json.Valid(line) {
		return h, fmt.Errorf("the header line is not valid JSON")
	}
	fields, err := objectFields(line)
	if err != nil {
		return h, err
	}
	return parseHeaderFields(fields)
}

// parseHeaderFields is parseHeader of a valid line split into fields.
func parseHeaderFields(fields []Field) (h Header, err error) {
	var typ string
	for _, f := range fields {
		if f.Key == "type" {
			if err := headerField(f, &typ); err != nil {
				return h, err
			}
		}
	}
	if typ != "session" {
		return h, fmt.Errorf("first line is not a session header (type %q, want \"session\")", typ)
	}
	// The version is checked before the rest of the shape, as DSH does.
	for _, f := range fields {
		if f.Key == "version" {
			if len(f.Value) == 0 || f.Value[0] < '0' && f.Value[0] != '-' || f.Value[0] > '9' {
				return h, fmt.Errorf("header version %s is not an integer", f.Value)
			}
			if n, ok := plainInteger(f.Value); plainHeaders && ok && n <= CurrentVersion && n >= Version0 {
				h.Version = int(n) // what follows reads it so, without encoding/json
				continue
			}
			var v json.Number
			if err := json.Unmarshal(f.Value, &v); err != nil {
				return h, fmt.Errorf("header version %s is not an integer", strictjson.Show(f.Value))
			}
			n, err := v.Int64()
			if err != nil {
				return h, fmt.Errorf("header version %s is not an integer", v)
			}
			switch {
			case n > CurrentVersion:
				return h, fmt.Errorf("uses log format v%d, but turnsim reads only v0 and v1: the log was written by a newer harness", n)
			case n < Version0:
				return h, fmt.Errorf("uses log format v%d, older than the supported v0", n)
			}
			h.Version = int(n)
		}
	}
	for _, f := range fields {
		var err error
		switch f.Key {
		case "type", "version":
		case "id":
			err = headerField(f, &h.ID)
		case "createdAt":
			err = headerField(f, &h.CreatedAt)
		case "cwd":
			err = headerField(f, &h.Cwd)
		case "parentSession":
			err = headerField(f, &h.ParentSession)
		case "seedLength":
			err = headerField(f, &h.SeedLength)
		case "origin":
			err = headerField(f, &h.Origin)
		case "delegationDepth":
			err = headerField(f, &h.DelegationDepth)
		case "agentPreset":
			h.AgentPreset = f.Value
		default:
			if retiredHeaderFields[f.Key] {
				return h, fmt.Errorf("header field %q is retired and refused", f.Key)
			}
			h.Extra = append(h.Extra, f)
		}
		if err != nil {
			return h, err
		}
	}
	if h.ID == "" {
		return h, fmt.Errorf("header id is missing or empty")
	}
	if h.CreatedAt < 0 {
		return h, fmt.Errorf("header createdAt %d is negative", h.CreatedAt)
	}
	return h, nil
}

// headerField decodes one header field. encoding/json's own error names
// Go's types ("cannot unmarshal number -1e+308 into Go value of type
// int64"); this one names the field, the kind of value it takes and the
// value as the log gives it.
func headerField(f Field, dst any) error {
	if plainHeaders && plainHeaderField(f.Value, dst) {
		return nil
	}
	if err := json.Unmarshal(f.Value, dst); err != nil {
		want := "a valid value"
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			want = goTypeName(te.Type.String())
		}
		return fmt.Errorf("header %s must be %s, got %s", f.Key, want, strictjson.Show(f.Value))
	}
	return nil
}

// WriteLine writes the header line for the given version, optional fields
// omitted when absent and delegationDepth always written
// (docs/dsh.md#log-file).
func (h *Header) WriteLine(buf *bytes.Buffer, version int) error {
	fields := []Field{
		{"type", json.RawMessage(`"session"`)},
		{"version", mustMarshal(version)},
		{"id", mustMarshal(h.ID)},
		{"createdAt", mustMarshal(h.CreatedAt)},
	}
	if h.Cwd != nil {
		fields = append(fields, Field{"cwd", mustMarshal(*h.Cwd)})
	}
	if h.ParentSession != nil {
		fields = append(fields, Field{"parentSession", mustMarshal(*h.ParentSession)})
	}
	if h.SeedLength != nil {
		fields = append(fields, Field{"seedLength", mustMarshal(*h.SeedLength)})
	}
	if h.Origin != "" {
		fields = append(fields, Field{"origin", mustMarshal(h.Origin)})
	}
	fields = append(fields, Field{"delegationDepth", mustMarshal(h.DelegationDepth)})
	if h.AgentPreset != nil {
		fields = append(fields, Field{"agentPreset", h.AgentPreset})
	}
	fields = append(fields, h.Extra...)
	if err := writeObject(buf, fields); err != nil {
		return err
	}
	buf.WriteByte('\n')
	return nil
}

func mustMarshal(v any) json.RawMessage {
	b, err := marshal(v)
	if err != nil {
		panic(err) // only called with strings and integers
	}
	return b
}

// plainHeaders: a header's plain values are read without encoding/json
// (plainHeaderField, probeHeader). A test turns it off to hold the two
// equal.
var plainHeaders = true

// plainHeaderField decodes the plain values a header holds (strings
// without escapes, integers that fit) as encoding/json does, without it:
// its reflection was most of reading a header, which a check of many
// small logs reads for every log. It reports false for anything else,
// left to encoding/json. value is of a line json.Valid passed, and valid
// UTF-8.
func plainHeaderField(value []byte, dst any) bool {
	switch d := dst.(type) {
	case *string:
		s, ok := plainString(value)
		if ok {
			*d = s
		}
		return ok
	case **string:
		s, ok := plainString(value)
		if ok {
			*d = &s // a new one, as into the nil pointer of a new header
		}
		return ok
	case *int64:
		n, ok := plainInteger(value)
		if ok {
			*d = n
		}
		return ok
	case **int64:
		n, ok := plainInteger(value)
		if ok {
			*d = &n
		}
		return ok
	case *int:
		n, ok := plainInteger(value)
		if ok = ok && int64(int(n)) == n; ok {
			*d = int(n)
		}
		return ok
	}
	return false
}

// plainString reads a JSON string without escapes or control characters
// (valid UTF-8, as a reader's lines are).
func plainString(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' {
		return "", false
	}
	inner := value[1 : len(value)-1]
	for _, c := range inner {
		if c < 0x20 || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(inner), true
}

// plainInteger reads a JSON integer of at most 18 digits (which fits an
// int64, and an int on the 64-bit platforms turnsim runs on), without a
// fraction or an exponent.
func plainInteger(value []byte) (int64, bool) {
	digits := value
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || len(digits) > 1 && digits[0] == '0' {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(value) {
		n = -n
	}
	return n, true
}
