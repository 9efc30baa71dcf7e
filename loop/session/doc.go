// Package session is DSH's session event log as turnsim reads, checks and
// writes it (docs/dsh.md#session-log).
//
// A log is a header line followed by one event per line. Every event is an
// [Event]: the envelope (seq, time, surfaceOp, sourceEventSeqs) around a typed
// [Payload]. The payloads turnsim reasons about have Go types of their own
// ([TurnStart], [TurnEnd], [StepStart], [AssistantChunk], [LLMRetry],
// [CompactionStart], …); every other event type is an [Opaque] record whose
// JSON is kept byte for byte.
//
// Reading: [Open] and [NewReader] stream a log one event at a time. They
// accept format v0 and v1 headers, DSH's fixture layout (implied seq, time
// 0) and the explicit layout, packed chunk rows, plain or zstd-compressed
// files, and DSH's headless stream-json output. A v0 log crosses the v0→v1
// edge (see migrate.go) on the way in; crash repair
// (docs/dsh.md#crash-repair) is an option of [ReadOptions]. Bad input is an
// [*InputError] naming the file and line.
//
// Writing: [Writer] writes v1 JSONL with explicit seq and time. Events that
// were read keep their data bytes, so a log turnsim wrote reads back and
// writes again byte for byte.
//
// Appending: [Log] is the append-only log the agent loop writes to; it
// assigns seq and takes time from a [Clock].
package session
