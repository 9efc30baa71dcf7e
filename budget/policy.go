package budget

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/internal/inputfile"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop/retry"
	"github.com/turnsim/turnsim/sim"
)

// bundleKeys are the scenario fields a policy bundle may set.
var bundleKeys = []string{"retryPolicy", "compaction", "listenerOrder"}

// LoadPolicy reads a policy file into a configuration's policy part: a DSH
// RetryPolicyConfig (docs/dsh.md#retry-config), or a scenario-style bundle
// of retryPolicy, compaction and listenerOrder (compaction-basic installed
// with its settings; "compaction": false leaves it out). "default" is DSH's
// default RetryPolicyConfig.
func LoadPolicy(path string) (Config, error) {
	if path == "default" {
		return Config{Recovery: sim.Recovery{RetryPolicy: retry.DefaultPolicy()}}, nil
	}
	raw, err := inputfile.Read(path)
	if err != nil {
		return Config{}, err
	}
	c, err := ParsePolicy(raw)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParsePolicy reads a RetryPolicyConfig or a bundle (see LoadPolicy).
func ParsePolicy(raw []byte) (Config, error) {
	if err := strictjson.Check(raw); err != nil {
		return Config{}, err
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) == nil && isBundle(fields) {
		for k := range fields {
			if !slices.Contains(bundleKeys, k) {
				return Config{}, fmt.Errorf("%s: unknown field of a policy bundle (it takes %s)", strictjson.Printable(k), strings.Join(bundleKeys, ", "))
			}
		}
		// A bundle is a scenario's policy part: the scenario reader checks
		// it, and names the field of any error.
		fields["name"] = json.RawMessage(`"policy-bundle"`)
		scenario, _ := json.Marshal(fields)
		s, err := sim.ParseScenario(scenario)
		if err != nil {
			return Config{}, err
		}
		return Config{Recovery: sim.Recovery{RetryPolicy: s.RetryPolicy, Compaction: s.Compaction, ListenerOrder: s.ListenerOrder}}, nil
	}
	p, err := retry.ParsePolicy(raw)
	if err != nil {
		return Config{}, err
	}
	return Config{Recovery: sim.Recovery{RetryPolicy: p}}, nil
}

// IsBundle reports whether a policy file is a bundle (it sets any of
// retryPolicy, compaction or listenerOrder) rather than a bare
// RetryPolicyConfig, which says nothing of compaction.
func IsBundle(raw []byte) bool {
	var fields map[string]json.RawMessage
	return json.Unmarshal(raw, &fields) == nil && isBundle(fields)
}

func isBundle(fields map[string]json.RawMessage) bool {
	for _, k := range bundleKeys {
		if _, ok := fields[k]; ok {
			return true
		}
	}
	return false
}
