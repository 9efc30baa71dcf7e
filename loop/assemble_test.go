package loop

import (
	"encoding/json"
	"testing"

	"github.com/turnsim/turnsim/loop/session"
)

// TestEncodedLen: encodeBlocks makes exactly the room it writes, so that
// a message's content is written once, and writes valid JSON.
func TestEncodedLen(t *testing.T) {
	for _, tc := range []struct {
		why    string
		blocks []block
	}{
		{"no block: an empty content", nil},
		{"a closed block is written as its block-end carried it", []block{{Type: "text", Text: "hi", final: json.RawMessage(`{"type":"text","text":"hi"}`)}}},
		{"an open text block, with characters written longer", []block{{Type: "text", Text: "a \"quote\"\nand a line\u2028"}}},
		{"an open tool call beside a closed one", []block{
			{Type: "tool-call", ID: "call-1", Name: "read", Text: `{"path":"a.md"}`},
			{Index: 1, Type: "tool-call", final: json.RawMessage(`{"type":"tool-call","id":"c","name":"n","arguments":"{}"}`)},
		}},
		{"reasoning, then text with invalid UTF-8", []block{{Type: "reasoning", Text: "hm"}, {Index: 1, Type: "text", Text: "bad \xff"}}},
	} {
		log := session.NewLog(session.Header{}, nil)
		got := encodeBlocks(log, tc.blocks)
		if n := encodedLen(tc.blocks); n != len(got) {
			t.Errorf("%s: encodedLen = %d, encodeBlocks wrote %d bytes: %s", tc.why, n, len(got), got)
		}
		if !json.Valid(got) {
			t.Errorf("%s: encodeBlocks wrote invalid JSON: %s", tc.why, got)
		}
	}
}

// TestUTF16Len: a string's length in UTF-16 units, wherever its first
// multi-byte character stands in a word of eight bytes.
func TestUTF16Len(t *testing.T) {
	for _, tc := range []struct {
		why  string
		s    string
		want int
	}{
		{"empty", "", 0},
		{"ASCII shorter than a word", "abc", 3},
		{"ASCII of words and a tail", "abcdefghijklmnopq", 17},
		{"a two-byte character in the first word", "aé" + "bcdefghijk", 12},
		{"a three-byte character after two words", "abcdefghijklmnop漢", 17},
		{"an astral character in the tail is two units", "abcdefghij😀", 12},
	} {
		if got := utf16Len(tc.s); got != tc.want {
			t.Errorf("%s: utf16Len(%q) = %d, want %d", tc.why, tc.s, got, tc.want)
		}
	}
}
