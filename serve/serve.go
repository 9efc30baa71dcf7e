// Package serve is a fake DeepSeek provider: an OpenAI-style
// chat-completions endpoint (POST /chat/completions, server-sent events)
// that answers successive requests from a scenario's requests list and
// compaction summaries (header x-deepseek-harness-compact: 1) from its
// summaries list, in the vocabulary of 'simrun scenario'.
//
// Each failure code is produced by the HTTP behaviour that makes DSH's
// DeepSeek adapter derive that same code (docs/dsh.md#deepseek-adapter):
//
//	AUTH                      401 (or the scenario's 401/403)
//	RATE_LIMIT                429, with retry-after in whole seconds
//	QUOTA                     429 (or the scenario's status), error.code insufficient_quota
//	CONTEXT_WINDOW_EXCEEDED   400, error.code context_length_exceeded
//	INVALID_REQUEST           400 (or 413)
//	SERVER                    the scenario's status ≥ 500, else 500
//	HTTP_<n>                  status n
//	STREAM_CLOSED             200, the stream's first deltas, then a clean end without [DONE]
//	TRANSPORT                 the connection closed: before any byte, or after some deltas
//	TIMEOUT                   200, then a stall longer than the client's idle timeout
//	EMPTY_RESPONSE            200, a stop with no content, [DONE]
//
// A hang stalls until the client goes away. Other codes cannot be made
// on the wire; they are answered with 500 (SERVER) and listed by Check.
//
// An answer's latencyMs is its time to first token: an answer that
// streams (status 200) sends its headers at once and its first event after
// the latency, as a provider does; an HTTP error status, or a connection
// closed before any byte, comes after the latency, while the client's
// request is still pending.
//
// A request takes an answer only if its body is one strict JSON object
// and its client is still there: a refused body (400, 408, 413, 503) or
// an abandoned request takes none. A body of up to SmallBodyBytes is
// never made to wait by another, however slowly that one arrives; bigger
// ones share DefaultBodiesInFlight buffers. Once a line of the request
// log cannot be written, every request is answered 500 (Failed, Err).
package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/sim"
)

// Server answers requests from one scenario.
type Server struct {
	scenario *sim.Scenario
	// Log, when set, receives one JSON line per request, refused ones
	// included. A line it cannot take stops the answers (LogError).
	Log io.Writer
	// MaxBodyBytes bounds a request body; a larger one is answered 413.
	MaxBodyBytes int64
	// BodyTimeout bounds the time a body takes to arrive; a slower one is
	// answered 408, and a big one that waited this long for a shared
	// buffer 503.
	BodyTimeout time.Duration
	// LogBodyBytes is the largest body Log keeps whole.
	LogBodyBytes int
	// SmallBodyBytes is the largest body read into memory of its own
	// request rather than into a shared buffer; 0 sends every body to the
	// shared buffers.
	SmallBodyBytes int
	// GoneGrace is how long a request that waited for a shared buffer
	// gives its connection to show that the client went away meanwhile.
	GoneGrace time.Duration

	// bodies are the buffers for bodies over SmallBodyBytes
	// (DefaultBodiesInFlight of them).
	bodies *bufferPool

	mu        sync.Mutex
	requests  int
	summaries int
	seq       int
	// logged counts the lines written to Log; logErr is the first write
	// that failed, after which failed is closed and nothing is answered.
	logged int
	logErr *LogError
	failed chan struct{}
}

// New serves a scenario, with the body bound in force (limits.Current)
// and the default timeout.
func New(s *sim.Scenario) *Server {
	return &Server{scenario: s, MaxBodyBytes: limits.Current.BodyBytes, BodyTimeout: DefaultBodyTimeout,
		LogBodyBytes: DefaultLogBodyBytes, SmallBodyBytes: DefaultSmallBodyBytes, GoneGrace: DefaultGoneGrace,
		bodies: newBufferPool(DefaultBodiesInFlight), failed: make(chan struct{})}
}

// LogError is a line of the request log that could not be written. Its
// request is answered 500, and so is every request after it, without
// taking an answer, since a run whose record is lost must not pass for a
// clean one: Failed is closed and Err returns it.
type LogError struct {
	Line int // the line's number in the log, from 1
	Err  error
}

func (e *LogError) Error() string {
	return fmt.Sprintf("line %d of the request log could not be written: %v", e.Line, e.Err)
}

func (e *LogError) Unwrap() error { return e.Err }

// Failed is closed when the request log fails (Err says how).
func (s *Server) Failed() <-chan struct{} { return s.failed }

// Err is the request log's first failed write (a *LogError), or nil.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logErr == nil {
		return nil
	}
	return s.logErr
}

// wireCodes are the codes the wire can produce.
var wireCodes = map[string]bool{"AUTH": true, "RATE_LIMIT": true, "QUOTA": true, "CONTEXT_WINDOW_EXCEEDED": true,
	"INVALID_REQUEST": true, "SERVER": true, "STREAM_CLOSED": true, "TRANSPORT": true, "TIMEOUT": true, "EMPTY_RESPONSE": true}

// Check lists what of the scenario the wire cannot express faithfully.
func Check(s *sim.Scenario) []string {
	var problems []string
	for i, r := range s.Requests {
		if r.Fail == nil {
			continue
		}
		code := r.Fail.Code
		if !wireCodes[code] && !isHTTPCode(code) {
			problems = append(problems, fmt.Sprintf("requests[%d].fail.code %q has no wire form; it is answered with HTTP 500 (SERVER)", i, code))
		}
		if ra := r.Fail.ProviderRetryAfterMs; ra != nil && math.Mod(*ra, 1000) != 0 {
			problems = append(problems, fmt.Sprintf("requests[%d].fail.retryAfterMs %v is sent as retry-after %d s (whole seconds)", i, *ra, retryAfterSeconds(*ra)))
		}
	}
	return problems
}

func isHTTPCode(code string) bool {
	if len(code) != 8 || code[:5] != "HTTP_" {
		return false
	}
	n, err := strconv.Atoi(code[5:])
	return err == nil && n >= 400 && n <= 599
}

func retryAfterSeconds(ms float64) int { return int(math.Ceil(ms / 1000)) }

// record is one request as the log keeps it.
type record struct {
	N    int    `json:"n,omitempty"` // 0 for a refused request: it took no answer
	Kind string `json:"kind"`        // conversation, summary or refused
	Path string `json:"path"`
	// Headers are the first value of each header but credentials.
	Headers map[string]string `json:"headers"`
	// Body is the body when it is at most LogBodyBytes, else absent;
	// BodyBytes is its size either way.
	Body      json.RawMessage `json:"body,omitempty"`
	BodyBytes int             `json:"bodyBytes"`
	Answer    string          `json:"answer"`
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !(r.URL.Path == "/chat/completions" || r.URL.Path == "/v1/chat/completions") {
		http.Error(w, `{"error":{"message":"only POST /chat/completions is served"}}`, http.StatusNotFound)
		return
	}
	body, refused := s.readRequest(w, r)
	if refused != nil {
		body.release()
		s.refuse(w, r, refused)
		return
	}
	var req struct {
		Model string `json:"model"`
	}
	json.Unmarshal(body.bytes, &req) // strict JSON already; a model that is not a string is left empty
	// The answer needs only the model; the log, the body up to
	// LogBodyBytes. A body in a shared buffer is copied that far, so the
	// buffer is free while the request looks whether its client is still
	// there (another big body may be waiting for it).
	kept := body.bytes
	if len(kept) > s.LogBodyBytes {
		kept = nil
	} else if body.shared {
		kept = bytes.Clone(kept)
	}
	size := len(body.bytes)
	body.release()
	if refused := s.gone(r, body.waited); refused != nil {
		s.refuse(w, r, refused)
		return
	}
	summary := r.Header.Get("x-deepseek-harness-compact") == "1"
	out, n, err := s.take(r, summary, kept, size)
	if err != nil {
		s.logBroken(w, err) // no answer is taken that no log would record
		return
	}
	Script(out, n, req.Model).write(w, r)
}

// logBroken answers a request that the log could not record.
func (s *Server) logBroken(w http.ResponseWriter, err error) {
	providerError(w, http.StatusInternalServerError, err.Error(), "server_error")
}

// take takes the next outcome of the conversation or summary list and
// writes its request's line, both under one lock: a request whose line
// the log cannot take has taken no answer, and once the log has failed
// none is taken. body is what the log keeps of the request's (nil past
// LogBodyBytes), size its length.
func (s *Server) take(r *http.Request, summary bool, body []byte, size int) (sim.Outcome, int, error) {
	kind := "conversation"
	if summary {
		kind = "summary"
	}
	rec := s.record(r, record{Kind: kind}, body, size)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logErr != nil {
		return sim.Outcome{}, 0, s.logErr
	}
	out := s.peek(summary)
	rec.N, rec.Answer = s.seq+1, describe(out)
	if err := s.writeLocked(rec); err != nil {
		return sim.Outcome{}, 0, err
	}
	s.seq++
	if summary {
		s.summaries++
	} else {
		s.requests++
	}
	return out, s.seq, nil
}

// peek is the next outcome of the conversation or summary list, with
// s.mu held.
func (s *Server) peek(summary bool) sim.Outcome {
	if summary {
		if i := s.summaries; i < len(s.scenario.Summaries) {
			so := s.scenario.Summaries[i]
			if so.Fail != nil {
				return sim.Outcome{Fail: &session.LlmFailure{Code: "SERVER", Message: *so.Fail, Status: ptr(500)}, LatencyMs: so.LatencyMs}
			}
			return sim.Outcome{Text: so.Text, LatencyMs: so.LatencyMs}
		}
		return sim.Outcome{Text: ptr("ok")}
	}
	if i := s.requests; i < len(s.scenario.Requests) {
		return s.scenario.Requests[i]
	}
	return sim.Outcome{Text: ptr("ok")}
}

// credentialHeaders are never logged.
var credentialHeaders = map[string]bool{"Authorization": true, "Api-Key": true, "X-Api-Key": true, "Cookie": true}

func (s *Server) logRefusal(r *http.Request, why *refusal) error {
	answer := fmt.Sprintf("%d %s", why.status, why.reason)
	if why.gone {
		answer = "none: " + why.reason
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logErr != nil {
		return s.logErr
	}
	return s.writeLocked(s.record(r, record{Kind: "refused", Answer: answer}, nil, 0))
}

// record is a request's log record: its path, headers without
// credentials, and body (strict JSON, or nil when not kept) of size bytes.
func (s *Server) record(r *http.Request, rec record, body []byte, size int) record {
	rec.Path, rec.Headers, rec.BodyBytes, rec.Body = r.URL.Path, map[string]string{}, size, body
	for k, v := range r.Header {
		if !credentialHeaders[http.CanonicalHeaderKey(k)] {
			rec.Headers[k] = v[0]
		}
	}
	return rec
}

// writeLocked writes one record, with s.mu held. Its error is the log's
// first failure (a *LogError).
func (s *Server) writeLocked(rec record) error {
	if s.Log == nil {
		return nil
	}
	line, _ := json.Marshal(rec) // map keys are sorted: stable output
	// A file's end before the line, to cut a part of it back off: a full
	// disk once left the log ending in a torn line that no reader takes.
	end := int64(-1)
	f, truncatable := s.Log.(truncater)
	if truncatable {
		if at, err := f.Seek(0, io.SeekEnd); err == nil {
			end = at
		}
	}
	n, err := s.Log.Write(append(line, '\n'))
	if err == nil && n < len(line)+1 {
		err = io.ErrShortWrite
	}
	if err != nil {
		if n > 0 && end >= 0 {
			f.Truncate(end) // whole lines only; if this fails too, the error stands
		}
		s.logErr = &LogError{Line: s.logged + 1, Err: err}
		close(s.failed)
		return s.logErr
	}
	s.logged++
	return nil
}

// truncater is a log that can be cut back to a length: a file.
type truncater interface {
	Seek(offset int64, whence int) (int64, error)
	Truncate(size int64) error
}

func describe(o sim.Outcome) string {
	switch {
	case o.Fail != nil:
		return "fail " + o.Fail.Code
	case o.Hang:
		return "hang"
	case o.MaxTokens != nil:
		return "max-tokens"
	case len(o.ToolCalls) > 0:
		return "tool calls"
	}
	return "text"
}

func ptr[T any](v T) *T { return &v }
