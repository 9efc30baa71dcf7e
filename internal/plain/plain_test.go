package plain

import "testing"

// TestRun: Run stops at the first byte that is not plain, wherever it
// stands in a word of eight, in a string or in bytes.
func TestRun(t *testing.T) {
	slow := func(s string, i int) int {
		for ; i < len(s); i++ {
			if b := s[i]; b < 0x20 || b == '"' || b == '\\' || b >= 0x80 {
				return i
			}
		}
		return len(s)
	}
	for _, special := range []byte{0x00, 0x1f, '"', '\\', 0x80, 0xff, '\n'} {
		for at := range 20 {
			b := []byte("abcdefghijklmnopqrstuvwx")
			b[at] = special
			for from := 0; from <= at; from++ {
				if got, want := Run(string(b), from), slow(string(b), from); got != want || Run(b, from) != want {
					t.Errorf("Run(%q, %d) = %d, want %d", b, from, got, want)
				}
			}
		}
	}
	// Both ways, word by word: a plain word is passed whole (else the
	// look eight bytes a step would be the byte loop again), a word with
	// one byte that is not plain, wherever it stands, is not.
	word := func(b []byte) uint64 {
		var x uint64
		for k := 7; k >= 0; k-- {
			x = x<<8 | uint64(b[k])
		}
		return x
	}
	for _, plain := range []string{"abcdefgh", "        ", "!#$%&'()", "~~~~\x7f\x7f\x7f\x7f", "[]^_`{|}", "0123:;<="} {
		if !Word(word([]byte(plain))) {
			t.Errorf("Word(%q) = false, want true", plain)
		}
	}
	for c := 0; c < 256; c++ {
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x80 {
			continue
		}
		for at := range 8 {
			b := []byte("abcdefgh")
			b[at] = byte(c)
			if Word(word(b)) {
				t.Errorf("Word(%q) = true, want false", b)
			}
		}
	}
	for _, plain := range []string{"", "a", "abcdefgh", " !#$%&'()*+,-./0123456789:;<=>?@[]^_`{|}~\x7f"} {
		if got := Run(plain, 0); got != len(plain) {
			t.Errorf("Run(%q, 0) = %d, want %d: every byte is plain", plain, got, len(plain))
		}
	}
}

// FuzzRun holds Run to a byte-at-a-time look, from every start: the last
// word of s, read over bytes before the start, must find nothing there.
func FuzzRun(f *testing.F) {
	for _, s := range []string{"", "abc", "abcdefgh\"", "\"bcdefghij", "ab\\defghijk", "a\x01cdefgh", "é and more text", "x\"#yyyyyyyyyy", "\x1f abcdefghi"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i <= len(s); i++ {
			want := len(s)
			for k := i; k < len(s); k++ {
				if b := s[k]; b < 0x20 || b == '"' || b == '\\' || b >= 0x80 {
					want = k
					break
				}
			}
			if got := Run(s, i); got != want {
				t.Fatalf("Run(%q, %d) = %d, want %d", s, i, got, want)
			}
			if got := Run([]byte(s), i); got != want {
				t.Fatalf("Run([]byte(%q), %d) = %d, want %d", s, i, got, want)
			}
		}
	})
}
