package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/turnsim/turnsim/sim"
)

// sse writes server-sent events of chat.completion.chunk objects.
type sse struct {
	w     http.ResponseWriter
	id    string
	model string
	// latency is the time to first token, waited once the headers are
	// out; done ends it when the client goes away.
	latency time.Duration
	done    <-chan struct{}
}

// start sends the headers, then waits the latency; false when the client
// went away meanwhile.
func (e *sse) start() bool {
	h := e.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	e.w.WriteHeader(http.StatusOK)
	e.flush()
	return e.wait()
}

// wait waits the latency; false when the client went away meanwhile.
func (e *sse) wait() bool {
	if e.latency <= 0 {
		return true
	}
	t := time.NewTimer(e.latency)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-e.done:
		return false
	}
}

func (e *sse) flush() {
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (e *sse) data(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	e.flush()
}

func (e *sse) chunk(delta map[string]any, finish any) {
	e.data(map[string]any{"id": e.id, "object": "chat.completion.chunk", "created": 0, "model": e.model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
}

func (e *sse) usage() {
	e.data(map[string]any{"id": e.id, "object": "chat.completion.chunk", "created": 0, "model": e.model, "choices": []any{},
		"usage": map[string]int{"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}})
}

func (e *sse) end() {
	fmt.Fprint(e.w, "data: [DONE]\n\n")
	e.flush()
}

// deltas are the content events of an outcome, without its finish.
func deltas(o *sim.Outcome, n int) (events []map[string]any, finish string) {
	switch {
	case o.Text != nil:
		return []map[string]any{{"role": "assistant", "content": *o.Text}}, "stop"
	case o.MaxTokens != nil:
		return []map[string]any{{"role": "assistant", "content": *o.MaxTokens}}, "length"
	case len(o.ToolCalls) > 0:
		for k, c := range o.ToolCalls {
			events = append(events,
				map[string]any{"tool_calls": []any{map[string]any{"index": k, "id": fmt.Sprintf("call_%d_%d", n, k+1), "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": ""}}}},
				map[string]any{"tool_calls": []any{map[string]any{"index": k, "function": map[string]any{"arguments": c.Arguments}}}})
		}
		return events, "tool_calls"
	}
	return []map[string]any{{"role": "assistant", "content": "partial output"}}, "stop"
}

// answer writes an outcome on the wire.
func answer(w http.ResponseWriter, r *http.Request, o sim.Outcome, model string, n int) {
	e := &sse{w: w, id: "chatcmpl-" + strconv.Itoa(n), model: model, latency: time.Duration(o.LatencyMs * float64(time.Millisecond)), done: r.Context().Done()}
	switch {
	case o.Hang:
		// A held stream: its first deltas, then nothing until the
		// client's idle watchdog (or the client) gives up.
		if !e.start() {
			return
		}
		for _, d := range partialDeltas(&o, n) {
			e.chunk(d, nil)
		}
		<-r.Context().Done()
	case o.Fail != nil:
		fail(w, r, e, &o, n)
	default:
		if !e.start() {
			return
		}
		events, finish := deltas(&o, n)
		for _, d := range events {
			e.chunk(d, nil)
		}
		e.chunk(map[string]any{}, finish)
		e.usage()
		e.end()
	}
}

func fail(w http.ResponseWriter, r *http.Request, e *sse, o *sim.Outcome, n int) {
	f := o.Fail
	status := 0
	if f.Status != nil {
		status = *f.Status
	}
	partial := partialDeltas(o, n)
	switch f.Code {
	case "STREAM_CLOSED":
		if !e.start() {
			return
		}
		for _, d := range partial {
			e.chunk(d, nil)
		}
		// a clean end of the body, without [DONE]
	case "TRANSPORT":
		if len(partial) > 0 {
			if !e.start() {
				return
			}
			for _, d := range partial {
				e.chunk(d, nil)
			}
		} else if !e.wait() {
			return
		}
		reset(w)
	case "TIMEOUT":
		if !e.start() {
			return
		}
		for _, d := range partial {
			e.chunk(d, nil)
		}
		<-r.Context().Done() // past the client's idle watchdog
	case "EMPTY_RESPONSE":
		if !e.start() {
			return
		}
		e.chunk(map[string]any{}, "stop")
		e.end()
	default:
		if !e.wait() {
			return
		}
		httpError(w, f.Code, f.Message, status, f.ProviderRetryAfterMs, f.RequestID)
	}
}

// partialDeltas are what a failure or a hang streams first: the first
// AfterChunks deltas of its stream (default: a text response).
func partialDeltas(o *sim.Outcome, n int) []map[string]any {
	stream := o.Stream
	if stream == nil {
		stream = &sim.Outcome{Text: ptr("partial output")}
	}
	partial, _ := deltas(stream, n)
	return partial[:min(o.AfterChunks, len(partial))]
}

// httpError answers with the status DSH maps to code.
func httpError(w http.ResponseWriter, code, message string, status int, retryAfterMs *float64, requestID string) {
	detail := map[string]any{"message": message}
	switch code {
	case "AUTH":
		if status != 403 {
			status = 401
		}
	case "RATE_LIMIT":
		status = 429
		if retryAfterMs != nil {
			w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(*retryAfterMs)))
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
		w.Header().Set("x-request-id", requestID)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": detail})
	w.Write(b)
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
