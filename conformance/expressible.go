package conformance

import (
	"fmt"
	"math"
	"slices"

	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// wireCodes are the failure codes the fake provider can make DSH's
// DeepSeek adapter derive (package serve), besides HTTP_<status>.
var wireCodes = []string{"AUTH", "RATE_LIMIT", "QUOTA", "CONTEXT_WINDOW_EXCEEDED", "INVALID_REQUEST", "SERVER",
	"STREAM_CLOSED", "TRANSPORT", "TIMEOUT", "EMPTY_RESPONSE"}

// streamedCodes are the failures that can follow streamed chunks: the
// others are HTTP statuses, which come before any.
var streamedCodes = []string{"STREAM_CLOSED", "TRANSPORT", "TIMEOUT"}

// Expressible lists what of a scenario cannot be put to DSH through the
// fake provider's wire and the web host's API, each naming its field; an
// empty list means the scenario can run against DSH.
func Expressible(s *sim.Scenario) []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	p := s.RetryPolicy
	switch {
	case p == nil:
		bad("retryPolicy", "a route without a retry policy cannot be configured in DSH (it resolves to the defaults): set one")
	case p.JitterRatio != 0:
		bad("retryPolicy.backoff.jitterRatio", "must be 0: DSH draws jitter from Math.random, which no harness can seed")
	}
	if s.NoAdapter {
		bad("adapter", "the overlay always registers the DeepSeek route")
	}
	if len(s.Outages) > 0 {
		bad("outages", "windows of virtual time have no counterpart on the wire: script the failures in requests")
	}
	if s.EnforceContextWindow {
		bad("enforceContextWindow", "the fake provider does not count DSH's tokens: script the overflow in requests")
	}
	for i, l := range s.ListenerOrder {
		if l != sim.ListenerRetry && l != sim.ListenerCompaction {
			bad(fmt.Sprintf("listenerOrder[%d]", i), "%q is a turnsim test listener or a plug-in; DSH's composition has llm-retry and compaction-basic only", l)
		}
	}
	for i, r := range s.Requests {
		field := fmt.Sprintf("requests[%d]", i)
		if r.ListenerThrows {
			bad(field+".listenerThrows", "DSH's composition has no listener that throws on cue")
		}
		if r.Hang && r.AfterChunks == 1 && (r.Stream == nil || r.Stream.Text != nil) {
			// The model's first chunk of a text is its block-start; the
			// wire's first delta carries text, which DSH logs as a
			// block-start and a text delta. It matters where a cancel
			// makes the held text an interrupted message.
			bad(field+".afterChunks", "1 holds a text block without text, which the wire cannot send: use 0 or 2")
		}
		if streams(r) && s.StreamIdleTimeoutMs > 0 && r.LatencyMs >= s.StreamIdleTimeoutMs {
			bad(field+".latencyMs", "%v: a first token at or after streamIdleTimeoutMs (%v) is a TIMEOUT in DSH (its idle watchdog covers the first read)",
				r.LatencyMs, s.StreamIdleTimeoutMs)
		}
		if r.Fail == nil {
			continue
		}
		code := r.Fail.Code
		if !slices.Contains(wireCodes, code) && !isHTTPCode(code) {
			bad(field+".fail.code", "%q has no wire form (known: %v and HTTP_<status>)", code, wireCodes)
		}
		if r.AfterChunks > 0 && !slices.Contains(streamedCodes, code) {
			bad(field+".afterChunks", "a %s failure is an HTTP status, which comes before any chunk (only %v follow chunks)", code, streamedCodes)
		}
		if ra := r.Fail.ProviderRetryAfterMs; ra != nil && math.Mod(*ra, 1000) != 0 {
			bad(field+".fail.retryAfterMs", "%v is not whole seconds: Retry-After is sent in seconds", *ra)
		}
	}
	for i, in := range s.Inputs {
		if in.After == sim.AfterListenerWait {
			bad(fmt.Sprintf("inputs[%d].after", i), "%s: a wait inside a listener is no event DSH's host reports", sim.AfterListenerWait)
		}
		if in.Kind == "inject" {
			bad(fmt.Sprintf("inputs[%d].inject", i), "the web API has no inject: a prompt is queued (followup) or steered")
		}
	}
	for i, a := range s.World {
		field := fmt.Sprintf("world[%d]", i)
		if a.After == sim.AfterListenerWait {
			bad(field+".after", "%s: a wait inside a listener is no event DSH's host reports", sim.AfterListenerWait)
		}
		switch {
		case a.Do == "observe":
		case a.Do != "cancel":
			bad(field+".do", "%q has no web API: the web host only cancels (and a run may observe its Web UI)", a.Do)
		case a.Cause.Kind != session.CauseUser:
			bad(field+".cause", "%q: the web host cancels with cause user only", a.Cause.Kind)
		case !a.KeepInbox:
			bad(field+".keepInbox", "must be true: the web host's cancel keeps the inbox (DSH 0.1.0-rc.8 cancels with keepInbox)")
		}
	}
	return errs
}

func isHTTPCode(code string) bool {
	var n int
	_, err := fmt.Sscanf(code, "HTTP_%d", &n)
	return err == nil && n >= 400 && n <= 599 && code == fmt.Sprintf("HTTP_%d", n)
}

// streams reports whether an answer is a 200 stream on the wire, whose
// latency is time to first token under DSH's idle watchdog (an HTTP error
// status, or a connection closed before any byte, is not).
func streams(r sim.Outcome) bool {
	if r.Fail == nil {
		return true
	}
	switch r.Fail.Code {
	case "STREAM_CLOSED", "TIMEOUT", "EMPTY_RESPONSE":
		return true
	case "TRANSPORT":
		return r.AfterChunks > 0
	}
	return false
}
