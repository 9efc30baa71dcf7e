package session

import (
	"bufio"
	"bytes"
	"io"
)

// Writer writes a v1 log: the header, then one event per line with explicit
// seq and time. Packed rows are never written (they are optional on write).
type Writer struct {
	w   *bufio.Writer
	buf bytes.Buffer
}

// NewWriter writes the v1 header of h to w.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	wr := &Writer{w: bufio.NewWriter(w)}
	if err := h.WriteLine(&wr.buf, CurrentVersion); err != nil {
		return nil, err
	}
	if _, err := wr.w.Write(wr.buf.Bytes()); err != nil {
		return nil, err
	}
	return wr, nil
}

// Write writes one event.
func (w *Writer) Write(e *Event) error {
	w.buf.Reset()
	if err := e.WriteLine(&w.buf); err != nil {
		return err
	}
	_, err := w.w.Write(w.buf.Bytes())
	return err
}

// Flush writes any buffered data to the underlying writer.
func (w *Writer) Flush() error { return w.w.Flush() }

// WriteLog writes a whole v1 log.
func WriteLog(w io.Writer, h Header, events []Event) error {
	wr, err := NewWriter(w, h)
	if err != nil {
		return err
	}
	for i := range events {
		if err := wr.Write(&events[i]); err != nil {
			return err
		}
	}
	return wr.Flush()
}
