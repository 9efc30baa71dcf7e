package faults

import (
	"fmt"
	"slices"
	"strings"
)

// Fault kinds.
const (
	Server           = "server"              // SERVER 500/502/503/529
	RateLimit        = "rate-limit"          // RATE_LIMIT 429, with or without Retry-After within the cap
	RateLimitOverCap = "rate-limit-over-cap" // RATE_LIMIT with a Retry-After above the policy's cap
	Auth             = "auth"                // AUTH 401/403
	Overflow         = "overflow"            // CONTEXT_WINDOW_EXCEEDED, scripted
	Timeout          = "timeout"             // TIMEOUT
	Transport        = "transport"           // TRANSPORT
	EmptyResponse    = "empty-response"      // EMPTY_RESPONSE
	StreamClosed     = "stream-closed"       // STREAM_CLOSED
	InvalidRequest   = "invalid-request"     // INVALID_REQUEST 400
	Quota            = "quota"               // QUOTA
	Custom           = "custom"              // an arbitrary code
	Partial          = "partial"             // a failure after some streamed chunks
	Hang             = "hang"                // a stream that stalls until the idle watchdog
	Latency          = "latency"             // virtual latency before answers
	Cancel           = "cancel"              // cancels: user, parent, hook, disposed, at times or after events
	Dispose          = "dispose"             // disposal of the agent or of llm-retry
	LateInput        = "late-input"          // followup, steer, inject arriving mid-turn
	Outage           = "outage"              // every request fails for a stretch of virtual time
	SummaryFail      = "summary-fail"        // the summarizer throws
	ListenerThrow    = "listener-throw"      // a request-error listener throws
	NaturalOverflow  = "natural-overflow"    // the history outgrows the model's context window
)

// Kinds are all fault kinds, in a fixed order.
var Kinds = []string{Server, RateLimit, RateLimitOverCap, Auth, Overflow, Timeout, Transport, EmptyResponse,
	StreamClosed, InvalidRequest, Quota, Custom, Partial, Hang, Latency, Cancel, Dispose, LateInput, Outage,
	SummaryFail, ListenerThrow, NaturalOverflow}

// requestFaults are the kinds that replace a model answer.
var requestFaults = []string{Server, RateLimit, RateLimitOverCap, Auth, Overflow, Timeout, Transport, EmptyResponse,
	StreamClosed, InvalidRequest, Quota, Custom, Hang}

// ParseKinds reads a comma-separated list of kinds ("all" for every kind).
// An empty list, or an empty kind in one, names no kind and is refused:
// "" once meant every kind, so that a script's unset variable ran a
// campaign of all kinds that its author thought restricted.
func ParseKinds(list string) ([]string, error) {
	if list == "all" {
		return slices.Clone(Kinds), nil
	}
	var out []string
	for _, k := range strings.Split(list, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			return nil, fmt.Errorf("%q names no kind: give kinds by name, comma-separated, or all", list)
		}
		if !slices.Contains(Kinds, k) {
			return nil, fmt.Errorf("unknown fault kind %q (known: %s)", k, strings.Join(Kinds, ", "))
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(Kinds, a) - slices.Index(Kinds, b) })
	return out, nil
}
