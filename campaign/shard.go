package campaign

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Shard is one process's share of a campaign: the seed indices ≡ Index
// (mod Of). The zero value and 0/1 are the whole campaign.
type Shard struct{ Index, Of uint64 }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Of) }

// Count is how many of n seed indices fall to this shard.
func (s Shard) Count(n uint64) uint64 {
	if s.Of <= 1 {
		return n
	}
	if s.Index >= n {
		return 0
	}
	return (n-s.Index-1)/s.Of + 1
}

// SeedIndex is the campaign-wide index of this shard's k-th seed.
func (s Shard) SeedIndex(k uint64) uint64 {
	if s.Of <= 1 {
		return k
	}
	return s.Index + k*s.Of
}

// ParseShard reads i/n (a --shard flag), or else Kubernetes Indexed Jobs'
// JOB_COMPLETION_INDEX with JOB_COMPLETION_COUNT.
func ParseShard(flag string, getenv func(string) string) (Shard, error) {
	text, from := flag, "--shard"
	if text == "" {
		index, count := getenv("JOB_COMPLETION_INDEX"), getenv("JOB_COMPLETION_COUNT")
		if index == "" && count == "" {
			return Shard{0, 1}, nil
		}
		if index == "" || count == "" {
			return Shard{}, errors.New("JOB_COMPLETION_INDEX and JOB_COMPLETION_COUNT go together (set both, or --shard i/n)")
		}
		text, from = index+"/"+count, "JOB_COMPLETION_INDEX/JOB_COMPLETION_COUNT"
	}
	i, n, ok := strings.Cut(text, "/")
	index, err1 := strconv.ParseUint(i, 10, 64)
	of, err2 := strconv.ParseUint(n, 10, 64)
	if !ok || err1 != nil || err2 != nil || of == 0 || index >= of {
		return Shard{}, fmt.Errorf("%s %q: want i/n with 0 ≤ i < n, e.g. 0/4", from, text)
	}
	return Shard{index, of}, nil
}
