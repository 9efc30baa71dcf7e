package campaign

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSeed reads a seed as turnsim prints one and its help asks for it:
// decimal, or hexadecimal after 0x. Go's other integer forms are refused
// (strconv's base 0 read 017 as octal 15, and took 0o17, 0b101 and
// 1_000), so that a seed means the same to a person and to turnsim.
func ParseSeed(s string) (uint64, error) {
	digits, base := s, 10
	if hex, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		digits, base = hex, 16
	}
	n, err := strconv.ParseUint(digits, base, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("seed %q is past the last seed, 2^64−1 (0xffffffffffffffff)", s)
	case err != nil:
		return 0, fmt.Errorf("seed %q is not an unsigned integer (decimal or 0x…)", s)
	}
	return n, nil
}

// SeedRange says what is wrong with count seeds from first: none, or
// seeds past 2^64−1 (they would wrap around to 0 and run seeds nobody
// asked for).
func SeedRange(first, count uint64) error {
	if count > 0 && first > math.MaxUint64-(count-1) {
		return fmt.Errorf("%d seeds from %#x run past the last seed, 2^64−1 (0xffffffffffffffff): at most %d from there",
			count, first, math.MaxUint64-first+1)
	}
	return nil
}
