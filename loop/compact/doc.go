// Package compact is DSH compaction-basic's context-overflow recovery
// (docs/dsh.md#overflow-and-compaction): a listener on the
// agent/request-error waterfall that answers CONTEXT_WINDOW_EXCEEDED by
// pruning oversized tool results and summarizing the older history into a
// checkpoint message, then retrying the request from the replacement
// surface, at most MaxOverflowRetries times since the last model message.
package compact
