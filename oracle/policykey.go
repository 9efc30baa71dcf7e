package oracle

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
)

// keyPolicy is a retry policy as its policyKey spells it
// (docs/dsh.md#policykey): ["normal",maxRetries,codes,initial,max,jitter]
// or ["always",initial,max,jitter]. The oracle reads policies from the log,
// never from a list of its own.
type keyPolicy struct {
	mode                string
	maxRetries          int
	codes               []string
	initial, max, ratio float64
}

// keyCache keeps parsed policy keys: a run sees few distinct policies, and
// every llm/retry names one. Safe for concurrent checks; bounded, above
// the 4,561 keys the draw makes (5 initial delays × 4 factors × 4 jitters
// × 7 budgets × 8 sets of codes, always mode's 80, the default): under a
// bound of 4,096, a tenth of them were parsed again at every retry.
var (
	keyCache     sync.Map // string → keyPolicy
	keyCacheSize atomic.Int64
)

// maxCachedKeys bounds keyCache: a few MB at most.
const maxCachedKeys = 16384

func parsePolicyKey(key string) (keyPolicy, error) {
	if p, ok := keyCache.Load(key); ok {
		return p.(keyPolicy), nil
	}
	p, err := decodePolicyKey(key)
	if err == nil && keyCacheSize.Add(1) <= maxCachedKeys {
		keyCache.Store(key, p)
	}
	return p, err
}

func decodePolicyKey(key string) (keyPolicy, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal([]byte(key), &parts); err != nil || len(parts) == 0 {
		return keyPolicy{}, fmt.Errorf("policyKey %s is not a JSON array", key)
	}
	var p keyPolicy
	if err := json.Unmarshal(parts[0], &p.mode); err != nil {
		return p, fmt.Errorf("policyKey %s has no mode", key)
	}
	var err error
	switch {
	case p.mode == "normal" && len(parts) == 6:
		err = firstError(json.Unmarshal(parts[1], &p.maxRetries), json.Unmarshal(parts[2], &p.codes),
			json.Unmarshal(parts[3], &p.initial), json.Unmarshal(parts[4], &p.max), json.Unmarshal(parts[5], &p.ratio))
	case p.mode == "always" && len(parts) == 4:
		err = firstError(json.Unmarshal(parts[1], &p.initial), json.Unmarshal(parts[2], &p.max), json.Unmarshal(parts[3], &p.ratio))
	default:
		return p, fmt.Errorf("policyKey %s is neither a normal nor an always key", key)
	}
	if err != nil {
		return p, fmt.Errorf("policyKey %s: %v", key, err)
	}
	return p, nil
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
