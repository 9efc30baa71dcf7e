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
// timeout, compaction-basic's overflow settings, plain JSONL persistence,
// no title requests, and the hmr stub.
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
	if c := s.Compaction; c != nil {
		if c.Pruner != nil {
			return "", fmt.Errorf("the tool-result pruner is not configured by the conformance overlay: leave compaction.pruner out")
		}
		fmt.Fprintf(&b, "- id: compaction-basic\n  config:\n    maxOverflowRetries: %d\n", c.MaxOverflowRetries)
	} else {
		b.WriteString("- id: compaction-basic\n  disabled: true\n")
	}
	b.WriteString("- id: session-title-llm\n  disabled: true\n")
	b.WriteString("- id: session-persistence-jsonl\n  config:\n    root: !!js dshHomePath('sessions')\n    compression: none\n")
	b.WriteString("- id: hmr\n  disabled: true\n")
	fmt.Fprintf(&b, "- insert:\n    - id: hmr-stub\n      name: %s\n", strconv.Quote(stubPath))
	return b.String(), nil
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
