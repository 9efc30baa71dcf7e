package session

import (
	"unicode/utf8"

	"github.com/turnsim/turnsim/internal/strictjson"

	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/turnsim/turnsim/internal/inputfile"
	"github.com/turnsim/turnsim/internal/limits"

	"github.com/klauspost/compress/zstd"
)

// ReadOptions configures a Reader.
type ReadOptions struct {
	// Name is the file name used in errors.
	Name string
	// Repair closes a turn left open at the end of the log with the
	// synthetic closers DSH's loader adds (docs/dsh.md#crash-repair).
	Repair bool
}

// Reader streams the events of one log. It holds one line at a time, plus
// the members of one packed row.
type Reader struct {
	src     *bufio.Reader
	closers []io.Closer
	opts    ReadOptions

	header       Header
	streamJSON   bool // DSH's headless stream-json output
	layout       layout
	line         int // number of the last line read
	nextSeq      int64
	pending      []Event // the events of the last line read, from pendingAt on not yet returned
	pendingAt    int
	migrator     *migrator
	repair       repairTracker
	eof          bool
	tornTailLine int
	firstLine    []byte // the first stream-json event, read with the header
	// closed: Close gave the read buffer back, which another reader may
	// hold now.
	closed bool
	// sizeHint is the plain input's size when it is known (a file, a
	// reader of bytes), else 0.
	sizeHint int64
	// payloads and bytes are where the events' payloads and data are
	// allocated (slabs.go).
	payloads payloadSlabs
	allocs   readerAllocs
}

// zstdMagic starts every Zstandard frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Open opens a log file, plain or zstd-compressed (detected by content, not
// by name), and reads its header.
func Open(path string, opts ReadOptions) (*Reader, error) {
	if opts.Name == "" {
		opts.Name = path
	}
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, &InputError{File: opts.Name, Msg: err.Error()}
	}
	r, err := newReader(f, opts, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// NewReader reads a log from r, plain or zstd-compressed, and reads its
// header.
func NewReader(r io.Reader, opts ReadOptions) (*Reader, error) {
	return newReader(r, opts, nil)
}

// maxPendingKept is the most events the slice of a line's events keeps
// room for from line to line.
const maxPendingKept = 64

// bytesPerEvent is about the least a v1 line of an event takes: a size
// hint over it gives room for every event of most logs, and a little
// more than their own.
const bytesPerEvent = 96

func newReader(r io.Reader, opts ReadOptions, closer io.Closer) (*Reader, error) {
	rd := &Reader{opts: opts, sizeHint: sizeOf(r)}
	if closer != nil {
		rd.closers = append(rd.closers, closer)
	}
	br := lineBuffers.Get().(*bufio.Reader)
	br.Reset(r)
	rd.closers = append(rd.closers, closerFunc(func() error {
		br.Reset(nil) // holds nothing of the log once back
		lineBuffers.Put(br)
		return nil
	}))
	if magic, _ := br.Peek(4); bytes.Equal(magic, zstdMagic) {
		// Concatenated frames decode as one stream. The decoder holds its
		// window, which a frame sets (up to 3.75 TB by the format): it is
		// bounded with a line, so that memory follows the bound (a 40 KB
		// file with a 401 MiB window once took 1.09 GB).
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(zstdWindow()))
		if err != nil {
			return nil, rd.fail(0, "zstd: %v", err)
		}
		rd.closers = append(rd.closers, closerFunc(func() error { zr.Close(); return nil }))
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	rd.src = br
	if err := rd.readHeader(); err != nil {
		rd.Close()
		return nil, err
	}
	return rd, nil
}

// sizeOf is the size of what r has left to read, when it says (0 when it
// does not), at most 1 GiB: a hint, not a bound.
func sizeOf(r io.Reader) int64 {
	var n int64
	switch r := r.(type) {
	case interface{ Len() int }:
		n = int64(r.Len())
	case interface{ Stat() (os.FileInfo, error) }:
		if fi, err := r.Stat(); err == nil && fi.Mode().IsRegular() {
			n = fi.Size()
		}
	}
	return min(n, 1<<30)
}

// lineBuffers hold the 64 KiB read buffers of closed readers: a check of
// many small logs made and cleared one per log, more than their events
// took.
var lineBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// zstdWindow is the largest zstd window read: that of a line
// (--max-line-bytes), at least zstd's own least.
func zstdWindow() uint64 { return uint64(max(limits.Current.LineBytes, zstd.MinWindowSize)) }

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// Close releases the file and the decompressor.
func (r *Reader) Close() error {
	var first error
	for i := len(r.closers) - 1; i >= 0; i-- {
		if err := r.closers[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	r.closers = nil
	r.closed = true
	return first
}

// Header is the log's header as read; Version is the version of the file
// (events are always returned in their v1 form).
func (r *Reader) Header() Header { return r.header }

// Line is the number of the line the last event Next returned was read
// from: a packed row's members share their row's line, and crash repair's
// closers the last line's. A check that refuses an event names it.
func (r *Reader) Line() int { return r.line }

// TornTailLine is the number of a final line without newline that was
// ignored (docs/dsh.md#log-file), or 0.
func (r *Reader) TornTailLine() int { return r.tornTailLine }

// fail is an input error on line. A message quotes the input (an event
// type, a field), so it is made printable here, once for every error.
func (r *Reader) fail(line int, format string, args ...any) error {
	return &InputError{File: r.opts.Name, Line: line, Msg: strictjson.Printable(fmt.Sprintf(format, args...))}
}

// readLine returns the next committed non-blank line, or io.EOF. A final
// line without newline is a torn tail and is ignored.
func (r *Reader) readLine() ([]byte, error) {
	for {
		line, err := r.src.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if max := limits.Current.LineBytes; int64(len(long)) > max {
					return nil, r.fail(r.line+1, "%v", &limits.Exceeded{What: "a line of more than " + limits.Bytes(max), Limit: limits.Bytes(max), Flag: limits.FlagLineBytes})
				}
				line, err = r.src.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err == io.EOF {
			if len(bytes.TrimSpace(line)) > 0 {
				r.tornTailLine = r.line + 1
			}
			return nil, io.EOF
		}
		if errors.Is(err, zstd.ErrWindowSizeExceeded) {
			return nil, r.fail(r.line+1, "zstd: %v", &limits.Exceeded{What: "a frame's window (the memory its decoding holds)",
				Limit: limits.Bytes(int64(zstdWindow())), Flag: limits.FlagLineBytes})
		}
		if err != nil {
			return nil, r.fail(r.line+1, "read: %v", err)
		}
		r.line++
		// The line holds its newline; max+1 would wrap at the largest bound.
		if max := limits.Current.LineBytes; int64(len(line))-1 > max {
			return nil, r.fail(r.line, "%v", &limits.Exceeded{What: "a line of " + limits.Bytes(int64(len(line))), Limit: limits.Bytes(max), Flag: limits.FlagLineBytes})
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			// JSON is UTF-8: a decoder would silently turn a bad byte
			// into U+FFFD, and a message would echo it to a terminal.
			if !utf8.Valid(t) {
				return nil, r.fail(r.line, "invalid UTF-8 (the log is not text JSON)")
			}
			return t, nil
		}
	}
}

func (r *Reader) readHeader() error {
	line, err := r.readLine()
	if err == io.EOF {
		if r.tornTailLine > 0 {
			return r.fail(r.tornTailLine, "the header line has no newline (a torn write)")
		}
		return r.fail(0, "empty log: no header line")
	}
	if err != nil {
		return err
	}
	var probe struct {
		Type      string `json:"type"`
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return r.fail(r.line, "header: %s", describeJSONError("", err))
	}
	if probe.Type == "session_event" {
		// stream-json has no header line: the session id comes from the
		// wrapper, and its events are of DSH's current v0 format.
		r.streamJSON = true
		r.header = Header{Version: Version0, ID: probe.SessionID}
		if r.header.ID == "" {
			return r.fail(r.line, "stream-json session_event without sessionId")
		}
		r.firstLine = append([]byte(nil), line...)
		r.layout = layoutExplicit
	} else {
		// A copy: the header keeps raw fields of its line (agentPreset,
		// fields turnsim does not know), and the read buffer goes to the
		// next reader on Close.
		h, err := parseHeader(append([]byte(nil), line...))
		if err != nil {
			return r.fail(r.line, "%v", err)
		}
		r.header = h
	}
	if r.header.Version == Version0 {
		r.migrator = newMigrator(r.header.ID)
	}
	return nil
}

// Next returns the next event, or io.EOF after the last one.
func (r *Reader) Next() (Event, error) {
	for r.pendingAt == len(r.pending) {
		// The slice is reused line after line (one made per line was a
		// tenth of what reading a log allocated), cleared so that it
		// holds no event returned; after a long packed row it is let go,
		// not kept at that row's size for the rest of the log.
		if cap(r.pending) > maxPendingKept {
			r.pending = nil
		} else {
			// Past its length the slice is clear already: only this
			// line's events were written since the last clearing.
			clear(r.pending)
			r.pending = r.pending[:0]
		}
		r.pendingAt = 0
		if r.eof {
			return Event{}, io.EOF
		}
		if err := r.fill(); err != nil {
			return Event{}, err
		}
	}
	e := r.pending[r.pendingAt]
	r.pendingAt++
	if r.opts.Repair {
		r.repair.observe(&e)
	}
	return e, nil
}

// fill reads one line into pending, or the repair closers at the end.
func (r *Reader) fill() error {
	if r.closed {
		return r.fail(r.line, "read after Close")
	}
	var line []byte
	if r.firstLine != nil {
		line, r.firstLine = r.firstLine, nil
	} else {
		var err error
		line, err = r.readLine()
		if err == io.EOF {
			r.eof = true
			if r.opts.Repair {
				r.pending = append(r.pending, r.repair.closers(r.nextSeq)...)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
	// Duplicate keys, where encoding/json lets the last one win, and the
	// rest of what strict JSON refuses.
	if err := strictjson.Check(line); err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) && se.Line == 1 {
			return r.fail(r.line, "invalid JSON at column %d: %s", se.Col, se.Msg)
		}
		return r.fail(r.line, "invalid JSON: %v", err)
	}
	var err error
	if r.pending, err = r.decodeLine(line, r.pending); err != nil {
		return r.fail(r.line, "%v", err)
	}
	return nil
}

// ReadAll reads every event of a log.
func ReadAll(r io.Reader, opts ReadOptions) (Header, []Event, error) {
	rd, err := NewReader(r, opts)
	if err != nil {
		return Header{}, nil, err
	}
	defer rd.Close()
	events, err := rd.All()
	return rd.Header(), events, err
}

// ReadFile reads every event of the log at path.
func ReadFile(path string, opts ReadOptions) (Header, []Event, error) {
	rd, err := Open(path, opts)
	if err != nil {
		return Header{}, nil, err
	}
	defer rd.Close()
	events, err := rd.All()
	return rd.Header(), events, err
}

// All reads the remaining events.
func (r *Reader) All() ([]Event, error) {
	// Room for the events the input's size suggests, at once: grown by
	// doubling, the slice's copies and the memory they freed were a
	// fifth of reading a large log.
	events := make([]Event, 0, r.sizeHint/bytesPerEvent)
	for {
		e, err := r.Next()
		if err == io.EOF {
			if cap(events) > 2*len(events)+bytesPerEvent {
				// A log of few long lines: the hint was far over, and
				// the caller would hold the room (an event is 96 bytes,
				// so about the input's size) as long as the events.
				events = slices.Clone(events)
			}
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, e)
	}
}
