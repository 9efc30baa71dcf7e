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
	// DefaultBodiesInFlight is how many bodies over SmallBodyBytes are
	// read and held at once, each in a buffer of the server's that is
	// reused; more wait their turn, so memory stays below this many
	// times the body limit however many clients push big bodies
	// together.
	DefaultBodiesInFlight = 4
	// DefaultSmallBodyBytes is the largest body read into memory of its
	// own request, as its bytes arrive, rather than into one of the
	// shared buffers: such a body never waits behind bodies still
	// arriving, however slow they are, and costs a connection no more
	// than its headers may (MaxHeaderBytes).
	DefaultSmallBodyBytes = 256 << 10
	// DefaultGoneGrace is how long a request that waited for a shared
	// buffer gives its connection, once its body is read, to show that
	// the client went away meanwhile, before it takes an answer.
	DefaultGoneGrace = 50 * time.Millisecond
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
	// gone: the client went away, so nothing is sent.
	gone bool
}

func (r *refusal) Error() string { return r.reason }

// body is a request body read and checked.
type body struct {
	bytes []byte
	// shared: the bytes live in a shared buffer, until release; waited:
	// the body waited for one, time in which its client may have gone
	// without the server seeing it.
	shared, waited bool
	// release gives back the shared buffer the bytes live in, if any; it
	// is never nil.
	release func()
}

// readRequest reads and checks a request body: within the size bound
// (413), within the time bound (408), readable (400: a broken chunked
// encoding, a connection that drops) and one strict JSON object (400,
// with the position). Only a body that passes takes an answer.
//
// A body of up to SmallBodyBytes is read into memory of its own as it
// arrives, so that no body, however slowly it comes, makes a complete
// one wait. A bigger one is read into one of the server's few shared
// buffers, and waits for one to be free (503 if none is within the time
// bound); its bytes live there until release is called.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request) (b body, _ *refusal) {
	b.release = func() {}
	if r.ContentLength > s.MaxBodyBytes {
		return b, s.tooBig(fmt.Sprintf("a body of %s", limits.Bytes(r.ContentLength)))
	}
	// The deadline covers the body only, a wait for a buffer included: a
	// stream answered afterwards may stall on purpose (a hang, a
	// TIMEOUT) for as long as it likes.
	deadline := time.Now().Add(s.BodyTimeout)
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(deadline)
	defer rc.SetReadDeadline(time.Time{})
	src := http.MaxBytesReader(w, r.Body, s.MaxBodyBytes)
	small := min(int64(max(s.SmallBodyBytes, 0)), s.MaxBodyBytes)
	var head []byte // what was read before the body turned out big
	if r.ContentLength <= small {
		var complete bool
		var err error
		head, complete, err = readSmall(src, r.ContentLength, int(small))
		if err != nil {
			return b, s.unreadable(err)
		}
		if complete {
			b.bytes = head
			return b, checkBody(b.bytes)
		}
	}
	buf, waited, why := s.bodies.take(r.Context(), deadline)
	b.waited = waited
	switch why {
	case poolGone:
		return b, &refusal{reason: "the client went away while its body waited to be read", gone: true}
	case poolDeadline:
		return b, &refusal{status: http.StatusServiceUnavailable, reason: fmt.Sprintf("the server is busy: the body waited %v (--body-timeout) for one of the %d buffers for bodies over %s, all in use",
			s.BodyTimeout, cap(s.bodies.free), limits.Bytes(small))}
	}
	if int64(cap(buf)) < s.MaxBodyBytes+1 {
		// Allocated once, at the bound: growing by doubling would leave
		// garbage of twice the body on every request. Pages the body never
		// reaches are never touched, so cost no memory.
		buf = make([]byte, s.MaxBodyBytes+1)
	}
	b.shared, b.release = true, func() { s.bodies.put(buf) } // buf as it is now: allocated if need be
	buf = buf[:cap(buf)]
	copy(buf, head)
	n, err := readAll(src, buf[len(head):])
	if err != nil {
		return b, s.unreadable(err)
	}
	b.bytes = buf[:len(head)+n]
	return b, checkBody(b.bytes)
}

// unreadable is the refusal of a body whose reading failed.
func (s *Server) unreadable(err error) *refusal {
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		return s.tooBig("a body of more than " + limits.Bytes(s.MaxBodyBytes))
	case errors.As(err, &netErr) && netErr.Timeout():
		return &refusal{status: http.StatusRequestTimeout, reason: fmt.Sprintf("the body did not arrive within %v", s.BodyTimeout)}
	}
	return &refusal{status: http.StatusBadRequest, reason: "the body could not be read: " + strictjson.Printable(err.Error())}
}

// checkBody refuses a body that is not one strict JSON object.
func checkBody(body []byte) *refusal {
	if err := strictjson.Check(body); err != nil {
		return &refusal{status: http.StatusBadRequest, reason: "the body is not JSON: " + err.Error()}
	}
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); trimmed[0] != '{' {
		return &refusal{status: http.StatusBadRequest, reason: "the body is not a JSON object"}
	}
	return nil
}

// readSmall reads r into memory of its own while it stays within limit
// bytes: the whole of it and complete, or its first limit+1 bytes (the
// proof that it is bigger) and not. The memory grows with what arrives,
// doubling, from at most 4 KiB (or the declared length, sizeHint, when
// it is less; -1 if none), so that a slow body holds about what it has
// sent: a declared length alone allocates nothing (a client that
// declared 256 KiB and sent a byte once held 256 KiB).
func readSmall(r io.Reader, sizeHint int64, limit int) (_ []byte, complete bool, _ error) {
	size := 512
	if sizeHint >= 0 {
		size = int(min(sizeHint, 4096)) + 1 // room to read the end
	}
	buf := make([]byte, 0, min(size, limit+1))
	for {
		if len(buf) == cap(buf) {
			if len(buf) > limit {
				return buf, false, nil
			}
			grown := make([]byte, len(buf), min(2*cap(buf), limit+1))
			copy(grown, buf)
			buf = grown
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, true, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
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
	return &refusal{status: http.StatusRequestEntityTooLarge, reason: (&limits.Exceeded{What: what, Limit: limits.Bytes(s.MaxBodyBytes), Flag: limits.FlagBodyBytes}).Error()}
}

// gone refuses a request whose client went away before its answer is
// taken, so that the answer goes to a request someone reads. HTTP/1.1
// sees a closed connection only by reading past the body, which the
// server starts once the body is read; a request that waited for a
// buffer, time in which its client may have given up, gives that read
// GoneGrace to show it.
func (s *Server) gone(r *http.Request, waited bool) *refusal {
	ctx := r.Context()
	if waited && s.GoneGrace > 0 {
		t := time.NewTimer(s.GoneGrace)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	if ctx.Err() != nil {
		return &refusal{reason: "the client went away before its answer was taken", gone: true}
	}
	return nil
}

// refuse answers a refused request in the provider's error shape; a
// client that went away gets nothing.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, why *refusal) {
	if err := s.logRefusal(r, why); err != nil {
		s.logBroken(w, err)
		return
	}
	if why.gone {
		return
	}
	kind := "invalid_request_error"
	if why.status >= 500 {
		kind = "server_error"
	}
	providerError(w, why.status, why.reason, kind)
}

// providerError answers status with a message in the provider's error
// shape, and closes the connection (what is left of the body is never
// read).
func providerError(w http.ResponseWriter, status int, message, kind string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": message, "type": kind}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	w.Write(b)
}
