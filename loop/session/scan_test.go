package session

import "testing"

// stringEndByBytes is stringEnd as it was, a byte at a time: the
// reference FuzzStringEnd holds the other to.
func stringEndByBytes(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// FuzzStringEnd: stringEnd finds the end of a string where a scan a byte
// at a time does, escapes and runs of backslashes included.
func FuzzStringEnd(f *testing.F) {
	for _, s := range []string{`"a"`, `"a\"b"`, `"a\\"b"`, `"a\\\"b"`, `"\\\\"`, `"unterminated\"`, `"\`, `""`, `"x\\\\\"y\\"z`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) == 0 || s[0] != '"' {
			s = `"` + s
		}
		want, wantOK := stringEndByBytes([]byte(s), 0)
		got, err := stringEnd([]byte(s), 0)
		if (err == nil) != wantOK || got != want {
			t.Fatalf("stringEnd(%q) = %d, %v; a byte at a time: %d, %v", s, got, err, want, wantOK)
		}
	})
}
