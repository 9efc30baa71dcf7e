package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/turnsim/turnsim/sim"
)

// Answer is what the provider sends for one request, as data: the HTTP
// status, headers and body, or a stream of server-sent events and how it
// ends. The fake provider on loopback plays it in real time (write), and
// the driver of DSH's own loop in virtual time, behind DSH's real DeepSeek
// adapter (package dshloop): one mapping from a scenario's outcome to the
// wire (Script), so that both meet the same bytes.
type Answer struct {
	// LatencyMs is waited before the first event of a stream (Status 200,
	// whose headers go out at once), or before the status of any other
	// answer.
	LatencyMs float64 `json:"latencyMs,omitempty"`
	// Status is the HTTP status; 0 is a connection cut before any byte
	// (a transport failure).
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	// Body is an error status's body.
	Body string `json:"body,omitempty"`
	// Events are a stream's data payloads, in order, "[DONE]" included
	// when the stream says it is done.
	Events []string `json:"events,omitempty"`
	// End is how a stream ends after its events: "close" (the body
	// ends), "hold" (it never does: a hang, a stall past the client's
	// idle watchdog) or "reset" (the connection is cut: a transport
	// failure after chunks).
	End string `json:"end,omitempty"`
}

// The ways a stream ends.
const (
	EndClose = "close"
	EndHold  = "hold"
	EndReset = "reset"
)

// Script is the answer to request n (from 1) that outcome o makes, with
// each failure code sent the way DSH's adapter derives it.
func Script(o sim.Outcome, n int, model string) Answer {
	s := stream{id: "chatcmpl-" + strconv.Itoa(n), model: model}
	a := Answer{LatencyMs: o.LatencyMs, Status: http.StatusOK, End: EndClose}
	switch {
	case o.Hang:
		// A held stream: its first deltas, then nothing until the
		// client's idle watchdog (or the client) gives up.
		for _, d := range partialDeltas(&o, n) {
			s.chunk(d, nil)
		}
		a.End = EndHold
	case o.Fail != nil:
		return failure(a, s, &o, n)
	default:
		events, finish := deltas(&o, n)
		for _, d := range events {
			s.chunk(d, nil)
		}
		s.chunk(map[string]any{}, finish)
		s.usage()
		s.done()
	}
	a.Events = s.events
	return a
}

// stream gathers a stream's events: chat.completion.chunk objects.
type stream struct {
	id, model string
	events    []string
}

func (s *stream) data(v any) {
	b, _ := json.Marshal(v)
	s.events = append(s.events, string(b))
}

func (s *stream) chunk(delta map[string]any, finish any) {
	s.data(map[string]any{"id": s.id, "object": "chat.completion.chunk", "created": 0, "model": s.model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
}

func (s *stream) usage() {
	s.data(map[string]any{"id": s.id, "object": "chat.completion.chunk", "created": 0, "model": s.model, "choices": []any{},
		"usage": map[string]int{"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}})
}

func (s *stream) done() { s.events = append(s.events, "[DONE]") }

// deltas are the content events of an outcome, without its finish.
func deltas(o *sim.Outcome, n int) (events []map[string]any, finish string) {
	switch {
	case o.Text != nil:
		return []map[string]any{{"role": "assistant", "content": *o.Text}}, "stop"
	case o.MaxTokens != nil:
		return []map[string]any{{"role": "assistant", "content": *o.MaxTokens}}, "length"
	case len(o.ToolCalls) > 0:
		// One delta a call, its name and arguments together: DSH's
		// adapter makes one tool-call-delta chunk of it, as the model
		// streams a call (the k-th chunk of a run is the same chunk on
		// both).
		for k, c := range o.ToolCalls {
			events = append(events,
				map[string]any{"tool_calls": []any{map[string]any{"index": k, "id": ToolCallID(n, k), "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": c.Arguments}}}})
		}
		return events, "tool_calls"
	}
	return []map[string]any{{"role": "assistant", "content": "partial output"}}, "stop"
}

// ToolCallID is the id of call k (from 0) of request n's answer on the
// wire, which DSH keeps as the call's id.
func ToolCallID(n, k int) string { return fmt.Sprintf("call_%d_%d", n, k+1) }

// failure is the answer of a failing outcome.
func failure(a Answer, s stream, o *sim.Outcome, n int) Answer {
	f := o.Fail
	status := 0
	if f.Status != nil {
		status = *f.Status
	}
	partial := partialDeltas(o, n)
	switch f.Code {
	case "STREAM_CLOSED":
		for _, d := range partial {
			s.chunk(d, nil)
		}
		a.End = EndClose // a clean end of the body, without [DONE]
	case "TRANSPORT":
		if len(partial) == 0 {
			return Answer{LatencyMs: a.LatencyMs} // cut before any byte
		}
		for _, d := range partial {
			s.chunk(d, nil)
		}
		a.End = EndReset
	case "TIMEOUT":
		for _, d := range partial {
			s.chunk(d, nil)
		}
		a.End = EndHold // past the client's idle watchdog
	case "EMPTY_RESPONSE":
		s.chunk(map[string]any{}, "stop")
		s.done()
	default:
		return httpError(a.LatencyMs, f.Code, f.Message, status, f.ProviderRetryAfterMs, f.RequestID)
	}
	a.Events = s.events
	return a
}

// partialDeltas are what a failure or a hang streams first: the deltas
// whose chunks make up its first AfterChunks chunks as the model streams
// them (default: a text response). A delta is a block's start and its
// content, and the block ends when the next begins: k deltas are the
// model's first 3k−1 chunks; any count of chunks gets at least one delta.
func partialDeltas(o *sim.Outcome, n int) []map[string]any {
	if o.AfterChunks <= 0 {
		return nil
	}
	stream := o.Stream
	if stream == nil {
		stream = &sim.Outcome{Text: ptr("partial output")}
	}
	partial, _ := deltas(stream, n)
	return partial[:min(PartialDeltas(o.AfterChunks), len(partial))]
}

// PartialDeltas is how many deltas the wire sends for a partial stream of
// afterChunks of the model's chunks.
func PartialDeltas(afterChunks int) int { return max(1, (afterChunks+1)/3) }

// PartialChunks is the count of the model's chunks that k deltas of a
// stream of calls deltas make on DSH's adapter, k clamped to [1, calls].
func PartialChunks(k, calls int) int { return 3*min(max(k, 1), max(calls, 1)) - 1 }

// httpError is the answer with the status DSH maps to code.
func httpError(latencyMs float64, code, message string, status int, retryAfterMs *float64, requestID string) Answer {
	a := Answer{LatencyMs: latencyMs, Headers: map[string]string{"Content-Type": "application/json"}}
	detail := map[string]any{"message": message}
	switch code {
	case "AUTH":
		if status != 403 {
			status = 401
		}
	case "RATE_LIMIT":
		status = 429
		if retryAfterMs != nil {
			a.Headers["Retry-After"] = strconv.Itoa(retryAfterSeconds(*retryAfterMs))
		}
	case "QUOTA":
		if status == 0 {
			status = 429
		}
		detail["code"] = "insufficient_quota"
	case "CONTEXT_WINDOW_EXCEEDED":
		status = 400
		detail["code"] = "context_length_exceeded"
		detail["type"] = "invalid_request_error"
	case "INVALID_REQUEST":
		if status != 413 {
			status = 400
		}
	default:
		if isHTTPCode(code) {
			status, _ = strconv.Atoi(code[5:])
		} else if status < 500 {
			status = 500
		}
	}
	if requestID != "" {
		a.Headers["x-request-id"] = requestID
	}
	a.Status = status
	b, _ := json.Marshal(map[string]any{"error": detail})
	a.Body = string(b)
	return a
}

// write plays the answer in real time: a stream's headers at once, then
// its latency and events; any other answer after its latency. It stops
// when the client goes away.
func (a Answer) write(w http.ResponseWriter, r *http.Request) {
	done := r.Context().Done()
	wait := func() bool {
		if a.LatencyMs <= 0 {
			return true
		}
		t := time.NewTimer(time.Duration(a.LatencyMs * float64(time.Millisecond)))
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-done:
			return false
		}
	}
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	if a.Status != http.StatusOK {
		if !wait() {
			return
		}
		if a.Status == 0 {
			reset(w)
			return
		}
		for k, v := range a.Headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.Status)
		w.Write([]byte(a.Body))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush()
	if !wait() {
		return
	}
	for _, e := range a.Events {
		fmt.Fprintf(w, "data: %s\n\n", e)
		flush()
	}
	switch a.End {
	case EndHold:
		<-done
	case EndReset:
		reset(w)
	}
}

// reset closes the connection without ending the response: the client
// sees a transport failure.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}
