package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// scanObject walks the top level of a JSON object once, calling fn with
// each key and the bytes of its value. It checks the object's structure
// (strings, nesting, separators) but not the grammar inside values: every
// caller decodes or validates the values it keeps.
func scanObject(b []byte, fn func(key, value []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errors.New("not a JSON object")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return trailing(b, i+1)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return errors.New("invalid JSON: expected a key")
		}
		end, err := stringEnd(b, i)
		if err != nil {
			return err
		}
		key := b[i+1 : end-1]
		if hasBackslash(key) {
			var k string
			if err := json.Unmarshal(b[i:end], &k); err != nil {
				return fmt.Errorf("invalid JSON key: %v", err)
			}
			key = []byte(k)
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return errors.New("invalid JSON: expected ':' after a key")
		}
		i = skipSpace(b, i+1)
		vend, err := valueEnd(b, i)
		if err != nil {
			return err
		}
		if err := fn(key, b[i:vend]); err != nil {
			return err
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return errors.New("invalid JSON: the line ends inside an object")
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return trailing(b, i+1)
		default:
			return fmt.Errorf("invalid JSON: unexpected %q after a value", b[i])
		}
	}
}

func trailing(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func hasBackslash(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// stringEnd returns the index just past the string that starts at b[i]:
// the first quote not escaped, that is, after an even run of
// backslashes. IndexByte finds each quote many bytes at a time (a byte
// at a time, this was a tenth of reading a log).
func stringEnd(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			break
		}
		j += q
		escapes := 0
		for k := j - 1; k > i && b[k] == '\\'; k-- {
			escapes++
		}
		if escapes%2 == 0 {
			return j + 1, nil
		}
		j++
	}
	return 0, errors.New("invalid JSON: unterminated string")
}

// valueEnd returns the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errors.New("invalid JSON: missing value")
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := stringEnd(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errors.New("invalid JSON: the line ends inside a value")
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return 0, fmt.Errorf("invalid JSON: unexpected %q", b[i])
	}
	return j, nil
}
