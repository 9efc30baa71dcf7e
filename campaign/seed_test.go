package campaign

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// TestParseSeed: decimal, or hexadecimal after 0x, as the help says and
// as seeds are printed; nothing else of Go's integer syntax.
func TestParseSeed(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    uint64
		wantErr string
	}{
		{"17", 17, ""},
		{"017", 17, ""}, // decimal, as the help says: base 0 read it as octal 15
		{"0x11", 17, ""},
		{"0X1f", 31, ""},
		{"0xffffffffffffffff", math.MaxUint64, ""},
		{"18446744073709551615", math.MaxUint64, ""},
		{"18446744073709551616", 0, "past the last seed"},
		{"0x10000000000000000", 0, "past the last seed"},
		{"0o17", 0, "not an unsigned integer (decimal or 0x…)"}, // Go's octal
		{"0b101", 0, "not an unsigned integer"},                 // Go's binary
		{"1_000", 0, "not an unsigned integer"},                 // Go's digit separators
		{"-1", 0, "not an unsigned integer"},
		{"", 0, "not an unsigned integer"},
		{"0x", 0, "not an unsigned integer"},
		{" 1", 0, "not an unsigned integer"},
		{"1\x1b[2J", 0, `"1\x1b[2J"`}, // escaped in the message, never raw
	} {
		got, err := ParseSeed(tt.in)
		switch {
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("ParseSeed(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("ParseSeed(%q) = %d, %v; want an error saying %q", tt.in, got, err, tt.wantErr)
		}
	}
}

// TestSeedRange: a range that would run past 2^64−1 is refused, naming
// how many seeds are left.
func TestSeedRange(t *testing.T) {
	for _, tt := range []struct {
		first, count uint64
		ok           bool
	}{
		{1, 10000, true},
		{math.MaxUint64, 1, true},      // the last seed alone
		{math.MaxUint64 - 9, 10, true}, // up to the last seed
		{math.MaxUint64 - 9, 11, false},
		{18446744073709551610, 200, false}, // the sweep's case: it wrapped to 0x6…
		{0, math.MaxUint64, true},
	} {
		if err := SeedRange(tt.first, tt.count); (err == nil) != tt.ok {
			t.Errorf("SeedRange(%#x, %d) = %v, want ok %v", tt.first, tt.count, err, tt.ok)
		}
	}
}

// TestADurationRunsToTheLastSeed: a duration campaign from near 2^64−1
// runs every seed to the last, 2^64−1 included, and stops there.
func TestADurationRunsToTheLastSeed(t *testing.T) {
	var seeds []string
	sum := Run(context.Background(), Config{First: math.MaxUint64 - 2, Duration: time.Minute, NoShrink: true}, func(r *Result) { seeds = append(seeds, r.Seed) })
	if sum.Runs != 3 || seeds[len(seeds)-1] != "0xffffffffffffffff" {
		t.Errorf("%d runs: %v", sum.Runs, seeds)
	}
}
