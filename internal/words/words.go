// Package words holds the small pieces of English that turnsim's
// messages are made of.
package words

import (
	"fmt"
	"strings"
)

// Plural is n with its noun, in the plural when n is not 1 ("1 seed",
// "3 seeds", "2 entries").
func Plural(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y") && !strings.HasSuffix(noun, "ay") && !strings.HasSuffix(noun, "ey"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
