package conformance

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/sim"
)

// HMRStub is the ES module that stands in for the hmr service the
// published launcher (0.1.0-rc.8) calls but no published plugin provides.
const HMRStub = `export const name = 'hmr-stub'
export function apply(ctx) {
  ctx.provide('hmr', { registerConfig: async () => async () => {} })
}
`

// Overlay is the DSH profile patch that configures DSH like the scenario:
// the DeepSeek route at baseURL with the scenario's retry policy and idle
// timeout, plain JSONL persistence, no title requests, and the hmr stub.
func Overlay(s *sim.Scenario, baseURL, stubPath string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "- id: llm-deepseek\n  config:\n    baseURL: %s\n    thinking: disabled\n", baseURL)
	if s.StreamIdleTimeoutMs > 0 {
		fmt.Fprintf(&b, "    streamIdleTimeoutMs: %s\n", num(s.StreamIdleTimeoutMs))
	}
	if p := s.RetryPolicy; p != nil {
		fmt.Fprintf(&b, "    retryPolicy:\n      mode: %s\n", p.Mode)
		if p.Mode == loop.ModeNormal {
			fmt.Fprintf(&b, "      maxRetries: %d\n      retryableCodes: [%s]\n", p.MaxRetries, strings.Join(p.RetryableCodes, ", "))
		}
		fmt.Fprintf(&b, "      backoff: {initialDelayMs: %s, maxDelayMs: %s, jitterRatio: %s}\n",
			num(p.InitialDelayMs), num(p.MaxDelayMs), num(p.JitterRatio))
	} else {
		return "", fmt.Errorf("a route without a retry policy cannot be configured in DSH (it resolves to the defaults): set retryPolicy")
	}
	// Compaction lives in the session's agent preset on the web host
	// (its host-plane row is disabled there): see Preset.
	b.WriteString("- id: session-title-llm\n  disabled: true\n")
	b.WriteString("- id: session-persistence-jsonl\n  config:\n    root: !!js dshHomePath('sessions')\n    compression: none\n")
	b.WriteString("- id: hmr\n  disabled: true\n")
	fmt.Fprintf(&b, "- insert:\n    - id: hmr-stub\n      name: %s\n", strconv.Quote(stubPath))
	return b.String(), nil
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// PresetID is the agent preset conformance sessions run with: DSH's
// standard preset with compaction configured like the scenario.
const PresetID = "turnsim"

// The compaction group of DSH 0.1.0-rc.8's standard preset, which Preset
// replaces: compaction-basic, /compact, and the tool-result pruner.
const (
	compactionGroupStart = "- id: compaction\n  name: cordis:group\n"
	compactionGroupEnd   = "\n# ── delegation"
)

// Preset is the composition of the turnsim agent preset: DSH's standard
// preset (standard, its agent.cordis.yml) with the compaction group
// configured like the scenario: compaction-basic's maxOverflowRetries and
// maxTokens, the tool-result pruner only when the scenario has one, no
// compaction at all when it has none. On DSH's web host compaction lives in
// the preset, not in the profile.
func Preset(s *sim.Scenario, standard string) (string, error) {
	start := strings.Index(standard, compactionGroupStart)
	end := strings.Index(standard, compactionGroupEnd)
	if start < 0 || end < start {
		return "", fmt.Errorf("the standard agent preset has no compaction group where DSH 0.1.0-rc.8 has it")
	}
	var b strings.Builder
	if c := s.Compaction; c != nil {
		b.WriteString(compactionGroupStart)
		b.WriteString("  group: true\n  isolate:\n    compaction: true\n    toolResultPruner: true\n  config:\n")
		fmt.Fprintf(&b, "    - id: compaction-basic\n      name: '@deepseek-ai/dsh-compaction-basic'\n      config:\n        maxOverflowRetries: %d\n        maxTokens: %d\n\n",
			c.MaxOverflowRetries, c.MaxTokens)
		b.WriteString("    - id: command-compact\n      name: '@deepseek-ai/dsh-command-compact'\n")
		if p := c.Pruner; p != nil {
			fmt.Fprintf(&b, "\n    - id: tool-result-pruner\n      name: '@deepseek-ai/dsh-compaction-tool-result-pruner'\n      config:\n        thresholdChars: %d\n        headChars: %d\n        tailChars: %d\n",
				p.ThresholdChars, p.HeadChars, p.TailChars)
		}
	}
	return standard[:start] + b.String() + standard[end:], nil
}

// PresetMetadata is the preset's preset.yml.
const PresetMetadata = "name: turnsim\ndescription: DSH's standard preset with compaction configured by a turnsim scenario.\norder: 99\n"
