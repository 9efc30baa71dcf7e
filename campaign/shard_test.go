package campaign

import (
	"strings"
	"testing"
)

// TestParseShard: the flag, Kubernetes' environment, and their errors.
func TestParseShard(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	tests := []struct {
		why, flag string
		vars      map[string]string
		want      Shard
		err       string
	}{
		{"no sharding", "", nil, Shard{0, 1}, ""},
		{"the flag", "2/4", nil, Shard{2, 4}, ""},
		{"an Indexed Job", "", map[string]string{"JOB_COMPLETION_INDEX": "3", "JOB_COMPLETION_COUNT": "8"}, Shard{3, 8}, ""},
		{"the flag wins over the environment", "1/2", map[string]string{"JOB_COMPLETION_INDEX": "3", "JOB_COMPLETION_COUNT": "8"}, Shard{1, 2}, ""},
		{"an index past the count", "4/4", nil, Shard{}, "want i/n with 0 ≤ i < n"},
		{"no count", "", map[string]string{"JOB_COMPLETION_INDEX": "3"}, Shard{}, "go together"},
		{"not a fraction", "half", nil, Shard{}, "want i/n"},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.flag, env(tt.vars))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want an error with %q", tt.why, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %v, %v; want %v", tt.why, got, err, tt.want)
		}
	}
	// Every index of a run falls to exactly one shard.
	for n := uint64(1); n <= 5; n++ {
		seen := map[uint64]int{}
		for i := range n {
			s := Shard{i, n}
			for k := range s.Count(17) {
				seen[s.SeedIndex(k)]++
			}
		}
		for idx := range uint64(17) {
			if seen[idx] != 1 {
				t.Errorf("%d shards: index %d run %d times", n, idx, seen[idx])
			}
		}
	}
}
