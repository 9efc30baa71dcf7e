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
