package session

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/turnsim/turnsim/internal/plain"
)

// Marshal encodes v as compact JSON without HTML escaping, as DSH's
// JSON.stringify does, so that "<compacted-summary>" stays as it is.
func Marshal(v any) ([]byte, error) { return marshal(v) }

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeValue(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeValue(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode ends with a newline
	return nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	// Strings cannot fail to encode.
	_ = writeValue(b, s)
}

// QuotedLen is the length of s as AppendString writes it, quotes
// included: what to make room for before writing a long text, which would
// otherwise be copied again as the room grew.
func QuotedLen(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); {
		if i = plain.Run(s, i); i == len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"', b == '\\', b == '\n', b == '\r', b == '\t', b == '\b', b == '\f':
				n++
			default:
				n += 5
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5 // \ufffd for one byte
		case r == '\u2028' || r == '\u2029':
			n += 6 - size
		}
		i += size
	}
	return n
}

// AppendString appends s as a JSON string exactly as encoding/json writes
// it without HTML escaping (control characters as \n, \r, \t, \b, \f or \u00XX,
// U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD), without reflection:
// the loop encodes every message it appends.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i = plain.Run(s, i); i == len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
