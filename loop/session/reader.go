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
	"strings"
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
	// members are the room the strict check splits a line into.
	members  []strictjson.Member
	splitter strictjson.Splitter
	checking checking
	read     checkedData // the data of the line being checked
	// packedRoom is the room of the lists of the last packed row read.
	packedRoom packedData
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
	rd.allocs.bytes.sizeFor(rd.sizeHint)
	rd.allocs.interned = internTables.Get().(*internTable)
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
	if t := r.allocs.interned; t != nil {
		// For the next reader: a read after Close fails, and interns
		// nothing.
		r.allocs.interned = nil
		internTables.Put(t)
	}
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
			return t, nil
		}
	}
}

// utf8 refuses a line that is not UTF-8. JSON is UTF-8: a decoder would
// silently turn a bad byte into U+FFFD, and a message would echo it to a
// terminal. A line checked as it is read (fillChecked) is UTF-8 if it
// passes, and is not looked at twice.
func (r *Reader) utf8(line []byte) error {
	if !utf8.Valid(line) {
		return r.fail(r.line, "invalid UTF-8 (the log is not text JSON)")
	}
	return nil
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
	if err := r.utf8(line); err != nil {
		return err
	}
	var probe struct {
		Type      string `json:"type"`
		SessionID string `json:"sessionId"`
	}
	// A copy: the header keeps raw fields of its line (agentPreset,
	// fields turnsim does not know), and the read buffer goes to the next
	// reader on Close. Its fields are split once, for the probe and the
	// header both.
	own := append([]byte(nil), line...)
	var fields []Field
	valid := plainHeaders && json.Valid(own)
	if valid {
		fields, err = objectFields(own)
		valid = err == nil
	}
	if !valid || !probeHeader(fields, &probe.Type, &probe.SessionID) {
		probe.Type, probe.SessionID = "", ""
		if err := json.Unmarshal(line, &probe); err != nil {
			return r.fail(r.line, "header: %s", describeJSONError("", err))
		}
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
		var h Header
		var err error
		if valid {
			h, err = parseHeaderFields(fields)
		} else {
			h, err = parseHeader(own)
		}
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

// probeHeader reads the type and sessionId of a first line as
// json.Unmarshal reads them into the probe of readHeader, from the fields
// of a line of valid JSON whose keys are spelled as the probe spells them
// and whose values for them are plain strings: encoding/json's reflection
// was a third of reading a header. It reports false for any other line,
// which encoding/json reads (or refuses) as before.
func probeHeader(fields []Field, typ, sessionID *string) bool {
	for _, f := range fields {
		var dst *string
		switch {
		case f.Key == "type":
			dst = typ
		case f.Key == "sessionId":
			dst = sessionID
		case strings.EqualFold(f.Key, "type") || strings.EqualFold(f.Key, "sessionId"):
			return false // encoding/json matches keys in other case too
		default:
			continue
		}
		s, plain := plainString(f.Value)
		if !plain {
			return false
		}
		*dst = s // the last one wins, as in encoding/json
	}
	return true
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
		var err error
		if r.pending, err = r.fill(r.pending); err != nil {
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

// fill appends the events of one line to out, or the repair closers at
// the end; on an error out is as given.
func (r *Reader) fill(out []Event) ([]Event, error) {
	if r.closed {
		return out, r.fail(r.line, "read after Close")
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
				out = append(out, r.repair.closers(r.nextSeq)...)
			}
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
	if splitMembers && fastPayloads && !r.streamJSON {
		if out, ok, err := r.fillChecked(line, out); ok {
			return out, err
		}
	}
	if err := r.utf8(line); err != nil {
		return out, err
	}
	// Duplicate keys, where encoding/json lets the last one win, and the
	// rest of what strict JSON refuses.
	members, object, err := r.splitter.CheckMembers(line, r.members[:0])
	// The members view the line, which the next read writes over: they
	// are let go once decoded, and kept only as room.
	defer clear(members)
	r.members = members
	if err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) && se.Line == 1 {
			return out, r.fail(r.line, "invalid JSON at column %d: %s", se.Col, se.Msg)
		}
		return out, r.fail(r.line, "invalid JSON: %v", err)
	}
	if !object {
		members = nil
	} else if members == nil {
		members = []strictjson.Member{} // an empty object: no members, still split
	}
	if out, err = r.decodeLine(line, members, nil, out); err != nil {
		return out, r.fail(r.line, "%v", err)
	}
	return out, nil
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
	hint := r.sizeHint / bytesPerEvent
	if hint == 0 || hint > maxScratchEvents {
		// An input of no size told, or a large one: read into room of
		// its own, as many events as it may take, whatever they are.
		events, err := r.all(make([]Event, 0, hint))
		if err == nil && cap(events) > 2*len(events)+bytesPerEvent {
			// A log of few long lines: the hint was far over, and the
			// caller would hold the room (an event is 96 bytes, so
			// about the input's size) as long as the events.
			events = slices.Clone(events)
		}
		return events, err
	}
	// A log of its size is read into the room the last log was read
	// into, and its events copied out at their number: the logs of
	// packed rows give more events than their size suggests, and the
	// slice doubled to hold them was an eighth of what a check of DSH's
	// logs allocated.
	scratch := eventScratch.Get().(*[]Event)
	read, err := r.all(slices.Grow((*scratch)[:0], int(hint)))
	events := make([]Event, len(read))
	copy(events, read)
	clear(read) // the scratch holds no event of this log
	if cap(read) <= 2*maxScratchEvents {
		*scratch = read[:0]
		eventScratch.Put(scratch)
	}
	return events, err
}

// maxScratchEvents is the most events the input's size may suggest for
// All to read them into a scratch slice kept from log to log.
const maxScratchEvents = 1 << 14

// eventScratch holds the slices All read the events of a log into.
var eventScratch = sync.Pool{New: func() any { return new([]Event) }}

// all appends the remaining events to events.
func (r *Reader) all(events []Event) ([]Event, error) {
	// What Next has read and not returned yet comes first.
	for r.pendingAt < len(r.pending) {
		e, _ := r.Next()
		events = append(events, e)
	}
	// Then each line's events go into events at once, not through
	// pending: a packed row's grew pending by doubling, to be copied out
	// and let go.
	for !r.eof {
		n := len(events)
		var err error
		if events, err = r.fill(events); err != nil {
			return events, err
		}
		if r.opts.Repair {
			// As Next observes them: a line's events are all read
			// before the first is observed.
			for i := n; i < len(events); i++ {
				r.repair.observe(&events[i])
			}
		}
	}
	return events, nil
}
