// Package retry is DSH's llm-retry policy executor
// (docs/dsh.md#retry-policy): a listener on the agent/request-error
// waterfall that retries a failed request in the same turn and step, after
// a backoff wait, within a finite budget (normal mode) or without one
// (always mode).
//
// [ParsePolicy] reads a route's policy in DSH's configuration shape and
// resolves its defaults; [Key] is its policyKey; [Delay] is the backoff
// formula, evaluated in DSH's order. [Executor] is the listener with its
// lifetime: disposing it cancels every backoff wait in flight.
package retry
