// Package dshview runs DSH's own Web view code over session logs and holds
// what it derives to turnsim's view (package view) and to the rendering
// invariants: DSH 0.1.0-rc.8's conversation node Definitions
// (@deepseek-ai/dsh-client-ui-conversation), the ConversationNodeAssembler
// that runs them (@deepseek-ai/dsh-client-runtime) and the React renderers
// of its recovery rows, in one Node process without a browser
// (evaluator.mjs, embedded and written into the install as
// turnsim-view.mjs; make dsh-loop installs the packages beside DSH's loop
// packages).
//
// The API, in the order a log meets it:
//
//   - [Views] is what a log is asked: the whole log, the tail windows of
//     each turn with recovery, the history paged in as the Web UI pages it
//     ([Pages]) and the live page, appended one event at a time.
//   - [Pool] (of [Evaluator] processes, -j N) answers a [Query] with DSH's
//     nodes and rows ([Answer]); [Start] refuses, naming the file, a
//     bundle whose shape the evaluator does not know.
//   - [Compare] holds the answer to turnsim's view under the rule DSH
//     renders turn errors by ([view.HiddenByRetry] for rc.8): every
//     difference, and the rendering invariants judged on DSH's nodes and
//     rows, classified into the recorded findings ([Classes]) or new ones.
//   - [Checker] does all of it for a log: it is the [sim.ViewChecker] of
//     simrun's --dsh-view, and the [conformance.RowDrawer] that holds what
//     Chromium read off DSH's Web UI to the rows DSH's code draws in Node.
//
// docs/dsh-view.md says how the evaluator stands in for the page, what
// it found, and what it leaves out.
package dshview
