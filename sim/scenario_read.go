package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/turnsim/turnsim/internal/inputfile"
	"github.com/turnsim/turnsim/internal/strictjson"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/retry"
)

// LoadScenario reads and checks a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	raw, err := inputfile.Read(path)
	if err != nil {
		return nil, err
	}
	return ParseScenario(raw)
}

// ParseScenario reads a scenario; errors name the field path.
func ParseScenario(raw []byte) (*Scenario, error) {
	if err := strictjson.Check(raw); err != nil {
		return nil, ferr("", "%v", err)
	}
	o, err := readObject("", raw)
	if err != nil {
		return nil, err
	}
	if err := o.only("name", "provider", "model", "contextWindow", "retryPolicy", "compaction", "listenerOrder",
		"random", "requests", "summaries", "inputs", "world", "streamIdleTimeoutMs", "maxEvents", "adapter", "seed",
		"outages", "enforceContextWindow", "runtimeContext"); err != nil {
		return nil, err
	}
	s := Default()
	for _, step := range []func() error{
		func() error { return o.str("name", &s.Name) },
		func() error { return o.str("provider", &s.Provider) },
		func() error { return o.str("model", &s.Model) },
		func() error { return o.integer("contextWindow", &s.ContextWindow, 1) },
		func() error { return o.duration("streamIdleTimeoutMs", &s.StreamIdleTimeoutMs) },
		func() error { return o.integer("maxEvents", &s.MaxEvents, 1) },
		func() error {
			adapter := true
			err := o.boolean("adapter", &adapter)
			s.NoAdapter = !adapter
			return err
		},
		func() error { return parseRetryPolicy(o, s) },
		func() error { return parseCompaction(o, s) },
		func() error { return parseListenerOrder(o, s) },
		func() error { return parseRandom(o, s) },
		func() error { return parseSeed(o, s) },
		func() error { return o.boolean("enforceContextWindow", &s.EnforceContextWindow) },
		func() error { return parseOutages(o, s) },
		func() error { return parseRuntimeContext(o, s) },
		func() error { return parseRequests(o, s) },
		func() error { return parseSummaries(o, s) },
		func() error { return parseInputs(o, s) },
		func() error { return parseWorld(o, s) },
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if s.Name == "" {
		return nil, ferr("name", "missing: every scenario has a name")
	}
	return s, nil
}

func parseRetryPolicy(o *object, s *Scenario) error {
	raw := o.raw("retryPolicy")
	switch {
	case raw == nil:
	case bytes.Equal(bytes.TrimSpace(raw), []byte("null")):
		s.RetryPolicy = nil
	default:
		p, err := retry.ParsePolicy(raw)
		if err != nil {
			var ce *retry.ConfigError
			if errors.As(err, &ce) {
				return ferr(join("retryPolicy", ce.Field), "%s", ce.Msg)
			}
			return ferr("retryPolicy", "%v", err)
		}
		s.RetryPolicy = p
	}
	return nil
}

func parseCompaction(o *object, s *Scenario) error {
	raw := o.raw("compaction")
	if raw == nil {
		return nil
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("false")) {
		s.Compaction = nil
		return nil
	}
	c, err := readObject("compaction", raw)
	if err != nil {
		return ferr("compaction", "must be an object or false, got %s", describe(raw))
	}
	if err := c.only("maxOverflowRetries", "maxTokens", "pruner"); err != nil {
		return err
	}
	if err := c.integer("maxOverflowRetries", &s.Compaction.MaxOverflowRetries, 0); err != nil {
		return err
	}
	if err := c.integer("maxTokens", &s.Compaction.MaxTokens, 1); err != nil {
		return err
	}
	if p := c.raw("pruner"); p != nil {
		switch string(bytes.TrimSpace(p)) {
		case "true":
			s.Compaction.Pruner = compact.DefaultPruner()
		case "false":
		default:
			po, err := readObject("compaction.pruner", p)
			if err != nil {
				return ferr("compaction.pruner", "must be true, false or an object, got %s", describe(p))
			}
			if err := po.only("thresholdChars", "headChars", "tailChars"); err != nil {
				return err
			}
			pr := compact.DefaultPruner()
			for _, f := range []struct {
				key string
				dst *int
			}{{"thresholdChars", &pr.ThresholdChars}, {"headChars", &pr.HeadChars}, {"tailChars", &pr.TailChars}} {
				if err := po.integer(f.key, f.dst, 0); err != nil {
					return err
				}
			}
			if pr.HeadChars+pr.TailChars >= pr.ThresholdChars {
				return ferr("compaction.pruner", "headChars + tailChars must be below thresholdChars")
			}
			s.Compaction.Pruner = pr
		}
	}
	return nil
}

var knownListeners = []string{ListenerRetry, ListenerCompaction, ListenerAlwaysRetry, ListenerThrow, ListenerCancelThenNext, ListenerCancelThenRetry}

// listenerName: a built-in listener, or what a plug-in may be called (the
// world refuses a name nothing registered: CheckPlugged).
func listenerName(name string) bool {
	if slices.Contains(knownListeners, name) {
		return true
	}
	if name == "" || len(name) > 64 {
		return false
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || i > 0 && strings.ContainsRune("._:-", r)
		if !ok {
			return false
		}
	}
	return true
}

// CheckPlugged says which name of the listenerOrder is neither built in
// nor one of the plug-ins, with its field path.
func (s *Scenario) CheckPlugged(plugged []Listener) error {
	for i, name := range s.ListenerOrder {
		if slices.Contains(knownListeners, name) {
			continue
		}
		if _, ok := find(plugged, name); !ok {
			var names []string
			for _, l := range plugged {
				names = append(names, l.Name)
			}
			registered := "none"
			if len(names) > 0 {
				registered = strings.Join(names, ", ")
			}
			return ferr(index("listenerOrder", i), "unknown listener %q (built in: %s; plugged in: %s)", name, strings.Join(knownListeners, ", "), registered)
		}
	}
	return nil
}

func parseListenerOrder(o *object, s *Scenario) error {
	items, err := o.array("listenerOrder")
	if err != nil || items == nil {
		return err
	}
	s.ListenerOrder = nil
	for i, it := range items {
		var name string
		if json.Unmarshal(it, &name) != nil || !listenerName(name) {
			return ferr(index("listenerOrder", i), "%s is not a listener name (built in: %s; a plug-in's name is letters, digits and ._:- up to 64)",
				describe(it), strings.Join(knownListeners, ", "))
		}
		if slices.Contains(s.ListenerOrder, name) {
			return ferr(index("listenerOrder", i), "%q is listed twice", name)
		}
		s.ListenerOrder = append(s.ListenerOrder, name)
	}
	return nil
}

func parseRandom(o *object, s *Scenario) error {
	items, err := o.array("random")
	if err != nil || items == nil {
		return err
	}
	if len(items) == 0 {
		return ferr("random", "must list at least one sample")
	}
	s.Random = nil
	for i, it := range items {
		var f float64
		if json.Unmarshal(it, &f) != nil || !(f >= 0 && f <= 1) {
			return ferr(index("random", i), "must be a number in [0,1], got %s", describe(it))
		}
		s.Random = append(s.Random, f)
	}
	return nil
}

func parseSeed(o *object, s *Scenario) error {
	raw := o.raw("seed")
	if raw == nil {
		return nil
	}
	var seed uint64
	if err := json.Unmarshal(raw, &seed); err != nil {
		return ferr("seed", "must be a non-negative integer, got %s", describe(raw))
	}
	if o.has("random") {
		return ferr("seed", "draws the jitter samples; it cannot stand beside random")
	}
	s.Seed = &seed
	return nil
}

func parseOutages(o *object, s *Scenario) error {
	items, err := o.array("outages")
	if err != nil {
		return err
	}
	for i, it := range items {
		path := index("outages", i)
		oo, err := readObject(path, it)
		if err != nil {
			return err
		}
		if err := oo.only("fromMs", "toMs", "fail"); err != nil {
			return err
		}
		var out Outage
		if err := oo.duration("fromMs", &out.FromMs); err != nil {
			return err
		}
		if err := oo.duration("toMs", &out.ToMs); err != nil {
			return err
		}
		if out.ToMs <= out.FromMs {
			return ferr(join(path, "toMs"), "must be after fromMs")
		}
		if !oo.has("fail") {
			return ferr(join(path, "fail"), "missing: an outage needs the failure its requests get")
		}
		f, err := parseFailure(join(path, "fail"), oo.raw("fail"))
		if err != nil {
			return err
		}
		out.Fail = *f
		s.Outages = append(s.Outages, out)
	}
	return nil
}

// parseRuntimeContext reads {"cwd": DIR} (DSH's composition for a
// session working in DIR) or {"text": T, "sections": [{"name","text"}…]}.
func parseRuntimeContext(o *object, s *Scenario) error {
	raw := o.raw("runtimeContext")
	if raw == nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	ro, err := readObject("runtimeContext", raw)
	if err != nil {
		return err
	}
	if err := ro.only("cwd", "text", "sections"); err != nil {
		return err
	}
	if ro.has("cwd") {
		if ro.has("text") || ro.has("sections") {
			return ferr("runtimeContext", "is either {cwd} (DSH's own) or {text, sections}, not both")
		}
		var cwd string
		if err := ro.str("cwd", &cwd); err != nil {
			return err
		}
		if cwd == "" {
			return ferr("runtimeContext.cwd", "must name a folder")
		}
		s.RuntimeContext = DSHRuntimeContext(cwd)
		return nil
	}
	rc := &loop.RuntimeContext{}
	if err := ro.str("text", &rc.Text); err != nil {
		return err
	}
	items, err := ro.array("sections")
	if err != nil {
		return err
	}
	for i, it := range items {
		so, err := readObject(index("runtimeContext.sections", i), it)
		if err != nil {
			return err
		}
		if err := so.only("name", "text"); err != nil {
			return err
		}
		var sec loop.ContextSection
		if err := so.str("name", &sec.Name); err != nil {
			return err
		}
		if err := so.str("text", &sec.Text); err != nil {
			return err
		}
		rc.Sections = append(rc.Sections, sec)
	}
	s.RuntimeContext = rc
	return nil
}
