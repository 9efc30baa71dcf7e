package words

import "testing"

func TestPlural(t *testing.T) {
	tests := []struct {
		n          int
		noun, want string
		why        string
	}{
		{1, "seed", "1 seed", "one is singular"},
		{0, "seed", "0 seeds", "none is plural"},
		{3, "entry", "3 entries", "a consonant and y makes -ies"},
		{2, "delay", "2 delays", "a vowel and y keeps the y"},
	}
	for _, tt := range tests {
		if got := Plural(tt.n, tt.noun); got != tt.want {
			t.Errorf("Plural(%d, %q) = %q, want %q (%s)", tt.n, tt.noun, got, tt.want, tt.why)
		}
	}
}
