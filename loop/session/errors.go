package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// InputError is bad input: it names the file, the line (1-based; 0 when the
// problem is not on one line) and what was wrong.
type InputError struct {
	File string
	Line int
	Msg  string
}

func (e *InputError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(":")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "%d:", e.Line)
	}
	if b.Len() > 0 {
		b.WriteString(" ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// describeJSONError turns encoding/json's errors into a sentence that names
// the field by its JSON path under prefix.
func describeJSONError(prefix string, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := prefix
		if te.Field != "" {
			path = prefix + "." + te.Field
		}
		return fmt.Sprintf("%s: expected %s, got JSON %s", path, goTypeName(te.Type.String()), te.Value)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "invalid JSON: the line ends inside a value"
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if prefix != "" {
		return prefix + ": " + msg
	}
	return msg
}

func goTypeName(t string) string {
	t = strings.TrimLeft(t, "*")
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.Contains(t, "float"):
		return "a number"
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	}
	return "an object"
}
