package session

import (
	"testing"
)

// FuzzAppendString: AppendString writes what encoding/json writes, and
// QuotedLen says how long that is.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" and \\ backslash", "new\nline\ttab\rreturn", "\x00\x01\x1f",
		"<compacted-summary> & co", "é ü 漢字 😀", "\u2028\u2029", "bad \xff utf8", "\x7f del"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, encoding/json writes %s", s, got, want)
		}
		if n := QuotedLen(s); n != len(want) {
			t.Fatalf("QuotedLen(%q) = %d, AppendString writes %d bytes", s, n, len(want))
		}
	})
}

// TestPlainRun: plainRun stops at the first byte AppendString does not
// write as it is, wherever it stands in a word of eight.
func TestPlainRun(t *testing.T) {
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
				if got, want := plainRun(string(b), from), slow(string(b), from); got != want {
					t.Errorf("plainRun(%q, %d) = %d, want %d", b, from, got, want)
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
		if !plainWord(word([]byte(plain))) {
			t.Errorf("plainWord(%q) = false, want true", plain)
		}
	}
	for c := 0; c < 256; c++ {
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x80 {
			continue
		}
		for at := range 8 {
			b := []byte("abcdefgh")
			b[at] = byte(c)
			if plainWord(word(b)) {
				t.Errorf("plainWord(%q) = true, want false", b)
			}
		}
	}
	for _, plain := range []string{"", "a", "abcdefgh", " !#$%&'()*+,-./0123456789:;<=>?@[]^_`{|}~\x7f"} {
		if got := plainRun(plain, 0); got != len(plain) {
			t.Errorf("plainRun(%q, 0) = %d, want %d: every byte is plain", plain, got, len(plain))
		}
	}
}
