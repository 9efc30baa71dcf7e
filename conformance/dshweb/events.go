package dshweb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coder/websocket"
)

// Frame is one frame of an event stream.
type Frame struct {
	// Method is the frame's kind: "session/event", "session/queue",
	// "session/subscribed", "host/session-status", …
	Method    string
	SessionID string
	// Event is a session/event frame's event: the log line's object.
	Event json.RawMessage
	// Payload is the whole payload, for the other kinds.
	Payload json.RawMessage
}

// Stream is an open event stream. Frames are read on a goroutine of its
// own into a buffer, so that a slow reader never stalls the host.
type Stream struct {
	conn   *websocket.Conn
	frames chan Frame
	done   chan struct{}
	err    error
}

// Session event streams: every session's log events, queue changes and
// subscriptions. Host events: session status, agent errors.
const (
	SessionEvents = "/api/events.mux"
	HostEvents    = "/api/events.host"
)

// Events opens one of the host's event streams.
func (h *Host) Events(ctx context.Context, path string) (*Stream, error) {
	url := "ws" + strings.TrimPrefix(h.URL, "http") + path
	conn, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("dsh web %s: %w", path, err)
	}
	// A request/header event carries the system prompt and every tool's
	// schema: far above the library's 32 KiB default.
	conn.SetReadLimit(64 << 20)
	s := &Stream{conn: conn, frames: make(chan Frame, 1<<14), done: make(chan struct{})}
	go s.read()
	return s, nil
}

func (s *Stream) read() {
	defer close(s.done)
	defer close(s.frames)
	for {
		_, data, err := s.conn.Read(context.Background())
		if err != nil {
			s.err = err
			return
		}
		var f struct {
			Method  string          `json:"method"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(data, &f) != nil {
			continue
		}
		var p struct {
			SessionID string          `json:"sessionId"`
			Event     json.RawMessage `json:"event"`
		}
		json.Unmarshal(f.Payload, &p)
		s.frames <- Frame{Method: f.Method, SessionID: p.SessionID, Event: p.Event, Payload: f.Payload}
	}
}

// Frames delivers the stream's frames; it is closed when the stream ends.
func (s *Stream) Frames() <-chan Frame { return s.frames }

// Err is why the stream ended (after Frames is closed).
func (s *Stream) Err() error {
	<-s.done
	return s.err
}

// Close closes the stream.
func (s *Stream) Close() error { return s.conn.CloseNow() }
