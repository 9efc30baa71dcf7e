// Package plain finds the end of a run of plain bytes in JSON text: bytes
// a string holds as they are, neither a control character, a quote, a
// backslash nor a byte of a multi-byte character. Most of a log's text is
// plain, and looking at it eight bytes a step is what writing and reading
// long texts (a tool's output) costs least with.
package plain

import (
	"math/bits"
	"unicode/utf8"
)

// Run is the index of the first byte of s at or after i that is not
// plain, or len(s).
func Run[T ~string | ~[]byte](s T, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if m := notPlain(word(s, i)); m != 0 {
			return i + first(m)
		}
	}
	if n := len(s); i < n && n >= 8 {
		// The last bytes, in the word that ends s: the bytes of it
		// before i are made plain ('a'), so that none is found there nor
		// disturbs the finding of those after it. A byte at a time, the
		// ends of the short strings of a log were a third of the time
		// Run took.
		j := n - 8
		before := uint64(1)<<(8*(i-j)) - 1
		if m := notPlain(word(s, j)&^before | 0x6161616161616161&before); m != 0 {
			return j + first(m)
		}
		return n
	}
	for ; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b == '"' || b == '\\' || b >= utf8.RuneSelf {
			return i
		}
	}
	return len(s)
}

// word is the eight bytes of s from i, the first the lowest.
func word[T ~string | ~[]byte](s T, i int) uint64 {
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// Word reports whether all eight bytes of x are plain: none below 0x20,
// none a quote or a backslash, none at or above 0x80.
func Word(x uint64) bool { return notPlain(x) == 0 }

// notPlain has the high bit of each byte of x that is not plain set. A
// byte after one that is not plain may be set too (a borrow runs on), but
// the lowest set is always the first that is not plain.
func notPlain(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	control := (x - 0x20*ones) &^ x // a byte below 0x20 sets its high bit
	q, b := x^'"'*ones, x^'\\'*ones // a quote or a backslash is a zero byte here
	quote, backslash := (q-ones)&^q, (b-ones)&^b
	return (control | quote | backslash | x) & highs
}

// first is the index of the first byte set in m.
func first(m uint64) int { return bits.TrailingZeros64(m) / 8 }
