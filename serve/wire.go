package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/turnsim/turnsim/sim"
)

// sse writes server-sent events of chat.completion.chunk objects.
type sse struct {
	w     http.ResponseWriter
	id    string
	model string
}

func (e *sse) start() {
	h := e.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	e.w.WriteHeader(http.StatusOK)
	e.flush()
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

func (e *sse) done() {
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
	e := &sse{w: w, id: "chatcmpl-" + strconv.Itoa(n), model: model}
	switch {
	case o.Hang:
		e.start()
		<-r.Context().Done()
	case o.Fail != nil:
		fail(w, r, e, &o, n)
	default:
		e.start()
		events, finish := deltas(&o, n)
		for _, d := range events {
			e.chunk(d, nil)
		}
		e.chunk(map[string]any{}, finish)
		e.usage()
		e.done()
	}
}

func fail(w http.ResponseWriter, r *http.Request, e *sse, o *sim.Outcome, n int) {
	f := o.Fail
	status := 0
	if f.Status != nil {
		status = *f.Status
	}
	stream := o.Stream
	if stream == nil {
		stream = &sim.Outcome{Text: ptr("partial output")}
	}
	partial, _ := deltas(stream, n)
	partial = partial[:min(o.AfterChunks, len(partial))]
	switch f.Code {
	case "STREAM_CLOSED":
		e.start()
		for _, d := range partial {
			e.chunk(d, nil)
		}
		// a clean end of the body, without [DONE]
	case "TRANSPORT":
		if len(partial) > 0 {
			e.start()
			for _, d := range partial {
				e.chunk(d, nil)
			}
		}
		reset(w)
	case "TIMEOUT":
		e.start()
		for _, d := range partial {
			e.chunk(d, nil)
		}
		<-r.Context().Done() // past the client's idle watchdog
	case "EMPTY_RESPONSE":
		e.start()
		e.chunk(map[string]any{}, "stop")
		e.done()
	default:
		httpError(w, f.Code, f.Message, status, f.ProviderRetryAfterMs, f.RequestID)
	}
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
