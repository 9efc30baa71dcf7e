package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/internal/strictjson"
)

// The defaults of a Server's bounds on what it reads.
const (
	// DefaultBodyTimeout is the longest a body may take to arrive: DSH
	// sends its request at once, so a body still arriving after this is
	// a stuck or hostile client, not a slow provider call.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultBodiesInFlight is how many bodies are read and held at once,
	// each in a buffer of the server's that is reused; more wait their
	// turn, so memory stays below this many times the body limit however
	// many clients push big bodies together.
	DefaultBodiesInFlight = 4
	// DefaultLogBodyBytes is the largest body the request log keeps
	// whole; a larger one is logged by its size alone, so the log grows
	// with the number of requests, not with what clients send.
	DefaultLogBodyBytes = 1 << 20
)

// HTTPServer is an http.Server for s with timeouts on everything a
// client sends: headers, a body (BodyTimeout, set per request) and the
// idle time between keep-alive requests. It has no read or write
// timeout for the whole exchange, because a stream that stalls on
// purpose (a hang, a TIMEOUT) must be allowed to.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    256 << 10,
	}
}

// refusal is a request refused before it takes an answer: the scenario's
// lists stay where they were.
type refusal struct {
	status int
	reason string
}

func (r *refusal) Error() string { return r.reason }

// readRequest reads and checks a request body: within the size bound
// (413), within the time bound (408), readable (400: a broken chunked
// encoding, a connection that drops) and one strict JSON object (400,
// with the position). Only a body that passes takes an answer. The body
// lives in one of the server's few buffers until release is called
// (release is never nil).
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request) (body []byte, release func(), _ *refusal) {
	release = func() {}
	if r.ContentLength > s.MaxBodyBytes {
		return nil, release, s.tooBig(fmt.Sprintf("a body of %s", limits.Bytes(r.ContentLength)))
	}
	var buf []byte
	select {
	case buf = <-s.bodies:
	case <-r.Context().Done():
		return nil, release, &refusal{http.StatusServiceUnavailable, "the client went away while its body waited to be read"}
	}
	release = func() { s.bodies <- buf } // buf as it is then: allocated below if need be
	rc := http.NewResponseController(w)
	// The deadline covers the body only: a stream answered afterwards
	// may stall on purpose (a hang, a TIMEOUT) for as long as it likes.
	rc.SetReadDeadline(time.Now().Add(s.BodyTimeout))
	defer rc.SetReadDeadline(time.Time{})
	if int64(cap(buf)) < s.MaxBodyBytes+1 {
		// Allocated once, at the bound: growing by doubling would leave
		// garbage of twice the body on every request. Pages the body never
		// reaches are never touched, so cost no memory.
		buf = make([]byte, s.MaxBodyBytes+1)
	}
	n, err := readAll(http.MaxBytesReader(w, r.Body, s.MaxBodyBytes), buf[:cap(buf)])
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		return nil, release, s.tooBig("a body of more than " + limits.Bytes(s.MaxBodyBytes))
	case errors.As(err, &netErr) && netErr.Timeout():
		return nil, release, &refusal{http.StatusRequestTimeout, fmt.Sprintf("the body did not arrive within %v", s.BodyTimeout)}
	case err != nil:
		return nil, release, &refusal{http.StatusBadRequest, "the body could not be read: " + strictjson.Printable(err.Error())}
	}
	body = buf[:n]
	if err := strictjson.Check(body); err != nil {
		return nil, release, &refusal{http.StatusBadRequest, "the body is not JSON: " + err.Error()}
	}
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); trimmed[0] != '{' {
		return nil, release, &refusal{http.StatusBadRequest, "the body is not a JSON object"}
	}
	return body, release, nil
}

// readAll reads r into buf until EOF; the caller bounds r below len(buf).
func readAll(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, errors.New("the body filled its buffer") // not reached: r is bounded
}

func (s *Server) tooBig(what string) *refusal {
	return &refusal{http.StatusRequestEntityTooLarge, (&limits.Exceeded{What: what, Limit: limits.Bytes(s.MaxBodyBytes), Flag: limits.FlagBodyBytes}).Error()}
}

// refuse answers a refused request in the provider's error shape; a
// client went away gets nothing.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, why *refusal) {
	s.logRefusal(r, why)
	if why.status == http.StatusServiceUnavailable {
		return
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": why.reason, "type": "invalid_request_error"}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.WriteHeader(why.status)
	w.Write(b)
}
