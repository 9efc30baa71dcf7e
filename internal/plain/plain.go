// Package plain finds the end of a run of plain bytes in JSON text: bytes
// a string holds as they are, neither a control character, a quote, a
// backslash nor a byte of a multi-byte character. Most of a log's text is
// plain, and looking at it eight bytes a step is what writing and reading
// long texts (a tool's output) costs least with.
package plain

import "unicode/utf8"

// Run is the index of the first byte of s at or after i that is not
// plain, or len(s).
func Run[T ~string | ~[]byte](s T, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if !Word(x) {
			break
		}
	}
	for ; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b == '"' || b == '\\' || b >= utf8.RuneSelf {
			return i
		}
	}
	return len(s)
}

// Word reports whether all eight bytes of x are plain: none below 0x20,
// none a quote or a backslash, none at or above 0x80.
func Word(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	control := (x - 0x20*ones) &^ x // a byte below 0x20 sets its high bit
	q, b := x^'"'*ones, x^'\\'*ones // a quote or a backslash is a zero byte here
	quote, backslash := (q-ones)&^q, (b-ones)&^b
	return (control|quote|backslash|x)&highs == 0
}
