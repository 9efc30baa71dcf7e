package session

import "encoding/json"

// scanToolCallIDs reads the ids of the tool-call blocks of a content array
// without decoding the rest of it: decoding every block's text and
// arguments was most of the oracle's history check. It handles the shape
// writers produce — an array of objects whose "type" and "id" are plain
// strings — and answers ok false for anything else (an escape in a key or
// in one of those strings, a key that only matches case-insensitively, a
// non-string type or id, a non-object element), which decodeToolCallIDs
// then decodes as encoding/json does. FuzzToolCallIDs holds the two equal.
func scanToolCallIDs(content []byte) (ids []string, ok bool) {
	ok = scanToolCalls(content, func(id []byte) { ids = append(ids, string(id)) })
	if !ok {
		return nil, false
	}
	return ids, true
}

// scanHasToolCallID is HasToolCallID by the scanner: ok false as for
// scanToolCallIDs.
func scanHasToolCallID(content []byte, id string) (has, ok bool) {
	ok = scanToolCalls(content, func(b []byte) { has = has || string(b) == id })
	return has && ok, ok
}

// scanToolCalls calls visit with the id of each tool-call block, in order,
// and reports whether the content had the shape the scanner reads (when
// it did not, what visit saw is to be dropped).
func scanToolCalls(content []byte, visit func(id []byte)) (ok bool) {
	if !json.Valid(content) {
		return true // encoding/json fails on it: no ids
	}
	s := scanner{b: content}
	s.ws()
	if !s.eat('[') {
		return false
	}
	s.ws()
	if s.eat(']') {
		return true
	}
	for {
		s.ws()
		if s.peek() == 'n' { // null: a zero block
			s.i += 4
		} else {
			typ, id, ok := s.block()
			if !ok {
				return false
			}
			if string(typ) == "tool-call" {
				visit(id)
			}
		}
		s.ws()
		if s.eat(']') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// block reads one object; the last "type" and "id" win, as in
// encoding/json.
func (s *scanner) block() (typ, id []byte, ok bool) {
	if !s.eat('{') {
		return nil, nil, false
	}
	s.ws()
	if s.eat('}') {
		return nil, nil, true
	}
	for {
		s.ws()
		k, plain := s.str()
		if !plain {
			return nil, nil, false
		}
		key := string(k) // compared, not kept: no copy
		s.ws()
		s.eat(':')
		s.ws()
		switch {
		case key == "type" || key == "id":
			if s.peek() == 'n' { // null leaves the field as it was
				s.i += 4
				break
			}
			v, plain := s.str()
			if !plain {
				return nil, nil, false
			}
			if key == "type" {
				typ = v
			} else {
				id = v
			}
		case equalFoldASCII(key, "type") || equalFoldASCII(key, "id"):
			return nil, nil, false // encoding/json would match it
		default:
			s.skip()
		}
		s.ws()
		if s.eat('}') {
			return typ, id, true
		}
		s.eat(',')
	}
}

// str reads a string, as the bytes between its quotes; plain is false
// when it is not a string or has an escape or a byte encoding/json would
// rewrite (invalid UTF-8).
func (s *scanner) str() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			return v, true
		case c == '\\' || c >= 0x80:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// skip passes over one valid JSON value.
func (s *scanner) skip() {
	depth := 0
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch c {
		case '"':
			s.i++
			for s.i < len(s.b) && s.b[s.i] != '"' {
				if s.b[s.i] == '\\' {
					s.i++
				}
				s.i++
			}
			s.i++
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return
			}
			depth--
			if depth == 0 {
				s.i++
				return
			}
		case ',':
			if depth == 0 {
				return
			}
		}
		s.i++
	}
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
