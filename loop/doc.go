// Package loop is turnsim's model of DSH's agent loop
// (docs/dsh.md#agent-loop): turns, steps and request attempts, the inbox
// and its splices, the agent/request-error waterfall of recovery listeners,
// cancellation and disposal.
//
// The loop is synchronous, single-threaded code, as DSH's is on its
// JavaScript event loop. Everything that waits or reaches outside goes
// through a port the Agent receives ([Ports]): the model, the clock, the
// random source, ids and tools. Other code runs only where DSH lets it: in
// an append observer ([Agent.OnAppend]) and inside a port call. Such code
// may call the Agent's public API re-entrantly (cancel, send, dispose); the
// loop observes a cancellation at its check points
// (docs/dsh.md#cancellation). Nothing here knows that a simulator exists:
// production wires real ports (see [Driver]), the simulator wires virtual
// ones.
//
// Recovery policies are listeners on the request-error waterfall
// ([Agent.AddRequestErrorListener]): loop/retry is DSH's llm-retry,
// loop/compact its overflow compaction.
package loop
