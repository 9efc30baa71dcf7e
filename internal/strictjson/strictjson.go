// Package strictjson is the one check every JSON input of turnsim passes
// before it is decoded: scenarios, policies, environments, corpus
// entries, shard outputs. It refuses what encoding/json lets through —
// duplicate keys (where the last would silently win), data after the
// value, invalid UTF-8, nesting past limits.Current.Depth (never past
// limits.MaxDepth, since the check recurses) — and reports
// every error with its line and column. Describe turns encoding/json's own
// errors into messages without Go type names, and Printable keeps any
// echoed input to printable text.
package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/turnsim/turnsim/internal/plain"

	"github.com/turnsim/turnsim/internal/limits"
)

// Error is an input that is not strict JSON, at a line and column (from 1).
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg) }

// Check reports the first way data is not one strict JSON value.
func Check(data []byte) error {
	_, _, err := check(data, nil, false, nil, "", nil)
	return err
}

// Member is a key of an object and the bytes of its value, as the input
// holds them.
type Member struct {
	// Key is decoded when escaped; otherwise it views the input, and
	// lives only as long as the input is left as it is.
	Key   string
	Value []byte
}

// CheckMembers is Check, and when data is one object, appends its
// members to members, in input order, and reports that it is one: a
// reader that splits a line into its members after checking it would
// walk it once more (the walk was a tenth of reading a log).
func CheckMembers(data []byte, members []Member) ([]Member, bool, error) {
	var s Splitter
	return s.CheckMembers(data, members)
}

// A Splitter checks input after input as CheckMembers does, in a stack
// of keys of its own: a reader checks every line of a log, and taking a
// stack from the pool and giving it back was a tenth of each check. The
// zero value is ready to use; a Splitter is not safe for concurrent use.
type Splitter struct {
	// keys are the stack of the check, valueKeys CheckValue's, which a
	// MemberReader calls in the middle of a check.
	keys, valueKeys *[]keySpan
}

// CheckMembers is the function CheckMembers.
func (s *Splitter) CheckMembers(data []byte, members []Member) ([]Member, bool, error) {
	if s.keys == nil {
		s.keys = new([]keySpan)
	}
	return check(data, members, true, s.keys, "", nil)
}

// A MemberReader reads the value of a member of an object as it checks
// it, for CheckMembersReading.
type MemberReader interface {
	// ReadMember checks the value that starts at data[i], nested depth
	// deep, as Check would, and reads it: the value of the member of the
	// outermost object that follows members. It returns where the value
	// ends, or false where it is not strict JSON or the reader cannot
	// tell.
	ReadMember(members []Member, data []byte, i, depth int) (int, bool)
}

// CheckMembersReading is CheckMembers, but the value of the member key
// of the outermost object is checked by read, which reads it as it
// checks it: a reader that checks a line and then reads its data walked
// the data twice, and the data is most of a line. An error is no more
// than that the input is not strict JSON, or that read could not tell:
// which error it is is CheckMembers' to say.
func (s *Splitter) CheckMembersReading(data []byte, members []Member, key string, read MemberReader) ([]Member, bool, error) {
	if s.keys == nil {
		s.keys = new([]keySpan)
	}
	return check(data, members, true, s.keys, key, read)
}

// CheckValue checks the one value that starts at data[i], as one nested
// depth deep in an input Check checks, and returns where it ends; false
// when it is not strict JSON. A MemberReader may call it.
func (s *Splitter) CheckValue(data []byte, i, depth int) (int, bool) {
	if s.valueKeys == nil {
		s.valueKeys = new([]keySpan)
	}
	p := parser{data: data, i: i, line: 1, maxDepth: min(limits.Current.Depth, limits.MaxDepth), keys: (*s.valueKeys)[:0]}
	err := p.value(depth)
	*s.valueKeys = p.keys[:0]
	return p.i, err == nil
}

// ValidNumber reports whether b is one JSON number, all of it.
func ValidNumber(b []byte) bool { return validNumber(b) }

func check(data []byte, members []Member, split bool, stack *[]keySpan, readKey string, read MemberReader) ([]Member, bool, error) {
	if stack == nil {
		// The keys of the objects open, as one stack reused from check
		// to check: this runs on every line of a log, and a slice made
		// per object was a tenth of what reading one allocated.
		stack = keyStacks.Get().(*[]keySpan)
		defer keyStacks.Put(stack)
	}
	// The check recurses a frame per level, so the depth is held to
	// limits.MaxDepth whatever was set: a bound of 10^8 once let a
	// 3,000,000-deep input overflow the stack.
	p := &parser{data: data, line: 1, lineStart: 0, maxDepth: min(limits.Current.Depth, limits.MaxDepth), keys: (*stack)[:0], members: members, readKey: readKey, read: read}
	members, object, err := p.top(split)
	*stack = p.keys[:0]
	return members, object, err
}

// top checks the whole input, its members split when split is set and it
// is an object.
func (p *parser) top(split bool) ([]Member, bool, error) {
	p.space()
	if p.i == len(p.data) {
		return p.members, false, p.fail("no JSON value (the input is empty)")
	}
	object := p.data[p.i] == '{'
	p.split = split && object
	if err := p.value(0); err != nil {
		return p.members, false, err
	}
	p.space()
	if p.i < len(p.data) {
		return p.members, false, p.fail("data after the JSON value: %s", Printable(excerpt(p.data[p.i:])))
	}
	return p.members, object, nil
}

// keyStacks hold parser.keys between checks.
var keyStacks = sync.Pool{New: func() any { s := make([]keySpan, 0, 64); return &s }}

// keySpan is where a key stands in the input, between its quotes, or
// (start < 0) the escaped key -start-1 of the parser, decoded. Offsets,
// not strings: a stack of them holds no pointer, which storing and
// clearing strings paid for in write barriers, a fifth of the check.
type keySpan struct{ start, end int }

type parser struct {
	data      []byte
	i         int
	line      int
	lineStart int
	maxDepth  int
	// keys holds the keys seen so far of each object open, outermost
	// first.
	keys []keySpan
	// escaped are the keys that hold escapes, decoded: rare.
	escaped []string
	// split: the members of the outermost object are appended to
	// members.
	split   bool
	members []Member
	// read checks and reads the value of the member readKey of the
	// outermost object (CheckMembersReading); nil for none.
	readKey string
	read    MemberReader
}

func (p *parser) fail(format string, args ...any) error {
	return p.failAt(p.i, p.line, p.lineStart, format, args...)
}

// failAt is an error at i, on the given line.
func (p *parser) failAt(i, line, lineStart int, format string, args ...any) error {
	return &Error{Line: line, Col: utf8.RuneCount(p.data[lineStart:min(i, len(p.data))]) + 1, Msg: fmt.Sprintf(format, args...)}
}

// keyText is a key as the input spells it, decoded.
func (p *parser) keyText(k keySpan) string {
	if k.start < 0 {
		return p.escaped[-k.start-1]
	}
	return unsafeString(p.data[k.start:k.end])
}

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case '\n':
			p.line++
			p.lineStart = p.i + 1
		case ' ', '\t', '\r':
		default:
			return
		}
		p.i++
	}
}

func (p *parser) value(depth int) error {
	if depth > p.maxDepth {
		return p.fail("%s", &limits.Exceeded{What: "nesting " + strconv.Itoa(depth) + " deep", Limit: strconv.Itoa(p.maxDepth), Flag: limits.FlagDepth,
			Ceiling: p.maxDepth == limits.MaxDepth})
	}
	if p.i >= len(p.data) {
		return p.fail("the input ends inside a value")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		_, _, err := p.str()
		return err
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(string(p.data[p.i:min(p.i+5, len(p.data))]), lit) {
				p.i += len(lit)
				return nil
			}
		}
		return p.fail("unexpected %s where a value belongs", Printable(excerpt(p.data[p.i:])))
	}
}

func (p *parser) object(depth int) error {
	p.i++ // {
	// This object's keys are p.keys[base:]: compared as a slice, not a
	// map, because objects are small.
	base := len(p.keys)
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return nil
	}
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return p.fail("expected a key in quotes")
		}
		keyI, keyLine, keyLineStart := p.i, p.line, p.lineStart
		raw, escaped, err := p.str()
		if err != nil {
			return err
		}
		key := unsafeString(raw)
		span := keySpan{keyI + 1, p.i - 1}
		if escaped {
			var decoded string
			json.Unmarshal(p.data[keyI:p.i], &decoded)
			key = decoded
			p.escaped = append(p.escaped, decoded)
			span = keySpan{-len(p.escaped), 0}
		}
		for _, k := range p.keys[base:] {
			if p.keyText(k) == key {
				return p.failAt(keyI, keyLine, keyLineStart, "duplicate key %s (JSON readers disagree on which one counts)", Printable(strconv.Quote(key)))
			}
		}
		p.keys = append(p.keys, span)
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return p.fail("expected ':' after the key %s", Printable(strconv.Quote(key)))
		}
		p.i++
		p.space()
		valueAt := p.i
		if depth == 0 && p.read != nil && key == p.readKey {
			if err := p.readMember(depth + 1); err != nil {
				return err
			}
		} else if err := p.value(depth + 1); err != nil {
			return err
		}
		if depth == 0 && p.split {
			p.members = append(p.members, Member{Key: key, Value: p.data[valueAt:p.i]})
		}
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == '}' {
			p.i++
			p.keys = p.keys[:base]
			return nil
		}
		return p.fail("expected ',' or '}' in an object")
	}
}

// readMember has p.read check and read the value at p.i, as deep as
// value would check it; errNotChecked when it cannot.
func (p *parser) readMember(depth int) error {
	if depth > p.maxDepth || p.i >= len(p.data) {
		return errNotChecked
	}
	end, ok := p.read.ReadMember(p.members, p.data, p.i, depth)
	if !ok {
		return errNotChecked
	}
	p.i = end
	return nil
}

// errNotChecked: a MemberReader could not check a value; what is wrong
// with it, if anything, is CheckMembers' to say.
var errNotChecked = errors.New("not checked")

// unsafeString views bytes as a string without copying: the keys live only
// while the object is checked, and the input is not changed meanwhile.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func (p *parser) array(depth int) error {
	p.i++ // [
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return nil
	}
	for {
		p.space()
		if err := p.value(depth + 1); err != nil {
			return err
		}
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			return nil
		}
		return p.fail("expected ',' or ']' in an array")
	}
}

// str reads a string: its raw content between the quotes, and whether it
// holds escapes.
func (p *parser) str() (raw []byte, escaped bool, err error) {
	p.i++ // "
	start := p.i
	for p.i < len(p.data) {
		// Plain bytes need no look one by one.
		if p.i = plain.Run(p.data, p.i); p.i == len(p.data) {
			break
		}
		c := p.data[p.i]
		switch {
		case c == '"':
			raw = p.data[start:p.i]
			p.i++
			return raw, escaped, nil
		case c == '\\':
			escaped = true
			if p.i+1 >= len(p.data) || !isEscape(p.data[p.i+1]) {
				return nil, false, p.fail("an invalid escape in a string")
			}
			if p.data[p.i+1] == 'u' {
				if p.i+6 > len(p.data) {
					return nil, false, p.fail("an invalid \\u escape in a string")
				}
				for _, h := range p.data[p.i+2 : p.i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return nil, false, p.fail("an invalid \\u escape in a string")
					}
				}
				p.i += 6
				continue
			}
			p.i += 2
		case c < 0x20:
			return nil, false, p.fail("a control character inside a string (a newline must be written \\n)")
		case c < utf8.RuneSelf:
			p.i++
		default:
			r, size := utf8.DecodeRune(p.data[p.i:])
			if r == utf8.RuneError && size <= 1 {
				return nil, false, p.fail("invalid UTF-8 in a string")
			}
			p.i += size
		}
	}
	return nil, false, p.fail("a string that never ends")
}

// isEscape: c may follow a backslash in a string.
func isEscape(c byte) bool {
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u':
		return true
	}
	return false
}

func (p *parser) number() error {
	start := p.i
	for p.i < len(p.data) && isNumberByte(p.data[p.i]) {
		p.i++
	}
	if !validNumber(p.data[start:p.i]) {
		p.i = start
		return p.fail("a malformed number %s", Printable(excerpt(p.data[start:])))
	}
	return nil
}

// isNumberByte: c is one of the characters a number is made of.
func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// validNumber is JSON's number grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?
// ([eE][+-]?[0-9]+)?, over all of b: what json.Valid says of a number,
// without its scanner (a third of the time the check took, on a log whose
// every line carries numbers). FuzzNumber holds the two equal.
func validNumber(b []byte) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// excerpt is the start of the rest of the input, for a message.
func excerpt(b []byte) string {
	s := string(b)
	if i := strings.IndexAny(s, "\n"); i >= 0 {
		s = s[:i]
	}
	if utf8.RuneCountInString(s) > 30 {
		s = string([]rune(s)[:30]) + "…"
	}
	return s
}

// Printable is text for a message: control characters, other
// non-printable runes and invalid UTF-8 escaped, so that input never
// reaches a terminal raw.
func Printable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unicode.IsPrint(r) && r != ' ':
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Unreadable says what in an error message a person should not read:
// unprintable text (raw input bytes) or Go's own names for types; "" when
// there is nothing. The fuzz targets of the input readers hold every
// refusal to it.
func Unreadable(msg string) string {
	if Printable(msg) != msg {
		return "unprintable text"
	}
	// encoding/json's own prefix, at the start of the message or of a
	// wrapped cause (not inside quoted input).
	if strings.HasPrefix(msg, "json: ") || strings.Contains(msg, ": json: ") {
		return "Go's names (json: )"
	}
	for _, internal := range []string{"Go value", "Go struct", "[]string", "[]float64", "[]int", "map[", "interface {"} {
		if strings.Contains(msg, internal) {
			return "Go's names (" + internal + ")"
		}
	}
	if name := goTypeName.FindString(msg); name != "" {
		return "Go's names (" + name + ")"
	}
	return ""
}

// goTypeName is a type of one of turnsim's packages named as Go names it
// ("of type budget.Distribution", "type *sim.Outcome"): after the word
// type, so that input quoted in a message ("retry.A0") is not taken for
// one.
var goTypeName = regexp.MustCompile(`\btype [*\[\]]*(budget|sim|faults|retry|loop|session|oracle|main)\.[A-Z][A-Za-z]*`)

// Show is a piece of input as a message quotes it: trimmed, cut to 40
// characters and printable; "nothing" when empty.
func Show(raw []byte) string {
	s := []rune(strings.TrimSpace(string(raw)))
	if len(s) > 40 {
		s = append(s[:37], []rune("...")...)
	}
	if len(s) == 0 {
		return "nothing"
	}
	return Printable(string(s))
}

// Describe is a decoding error of encoding/json as a message a person
// reads: the field path and the kind of value expected, without Go's type
// names; other errors pass through.
func Describe(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "the value"
		}
		return fmt.Errorf("%s: must be %s, got %s", field, kindOf(te.Type), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "invalid character "))
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fmt.Errorf("unknown field %s", Printable(rest))
	}
	return err
}

func kindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return kindOf(t.Elem())
	}
	return "a value of another kind"
}
