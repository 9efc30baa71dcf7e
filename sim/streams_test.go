package sim

import (
	"slices"
	"strings"
	"testing"
)

// TestStreamsAreIndependent: a named stream's draws do not depend on how
// much another stream split off the same seed was used, and differ across
// names and seeds.
func TestStreamsAreIndependent(t *testing.T) {
	draws := func(seed uint64, name string, n int) []float64 {
		r := Stream(seed, name)
		out := make([]float64, n)
		for i := range out {
			out[i] = r.Float64()
		}
		return out
	}
	jitter := draws(7, "jitter", 5)
	other := Stream(7, "faults")
	for range 1000 {
		other.Float64() // using another stream
	}
	if again := draws(7, "jitter", 5); !slices.Equal(jitter, again) {
		t.Errorf("jitter draws changed: %v then %v", jitter, again)
	}
	if slices.Equal(jitter, draws(7, "faults", 5)) || slices.Equal(jitter, draws(8, "jitter", 5)) {
		t.Errorf("different names or seeds gave the same draws")
	}
	for _, v := range jitter {
		if v < 0 || v >= 1 {
			t.Errorf("sample %v outside [0,1)", v)
		}
	}
}

// TestSeededScenario: a seeded scenario draws its jitter from the seed, the
// same on every run, and its file keeps the seed.
func TestSeededScenario(t *testing.T) {
	s, err := ParseScenario([]byte(`{"name":"seeded","seed":42,
		"retryPolicy":{"maxRetries":3,"retryableCodes":["SERVER"],"backoff":{"initialDelayMs":100,"maxDelayMs":1000,"jitterRatio":0.5}},
		"requests":[{"fail":{"code":"SERVER"}},{"fail":{"code":"SERVER"}},{"text":"ok"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	first := logOf(Run(s))
	file, _ := s.MarshalJSON()
	again, err := ParseScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	if *again.Seed != 42 || string(logOf(Run(again))) != string(first) {
		t.Errorf("the seeded scenario does not replay from its file:\n%s", file)
	}
	if _, err := ParseScenario([]byte(`{"name":"x","seed":1,"random":[0.5]}`)); err == nil {
		t.Errorf("seed beside random is accepted")
	}
}

func TestShorten(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"short", "short"},
		{strings.Repeat("a", 40), strings.Repeat("a", 40)},
		{strings.Repeat("a", 41), strings.Repeat("a", 37) + "..."},
		{strings.Repeat("é", 41), strings.Repeat("é", 37) + "..."},
		{strings.Repeat("😀", 40), strings.Repeat("😀", 40)},
	} {
		if got := shorten(tt.in); got != tt.want {
			t.Errorf("shorten(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
