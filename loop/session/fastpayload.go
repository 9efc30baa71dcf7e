package session

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/turnsim/turnsim/internal/plain"
	"github.com/turnsim/turnsim/internal/strictjson"
)

// decodeFast reads the data of a typed event into p the way encoding/json
// would, for the shapes DSH writes: keys spelled as the payload types
// spell them, strings without \u escapes, integers where the types hold
// integers. Anything else (a key in other case, a null where a value
// should be, a number where a string should be) makes it report false,
// and decodePayload asks encoding/json, which reads it, or describes its
// error, as before. FuzzFastPayload holds the two equal.
//
// encoding/json was most of the time it took to read a log: it checks the
// data's grammar once more (the line was checked whole already) and
// matches each key by reflection.
//
// What it keeps is allocated from in, a reader's (strings interned, raw
// values viewing data, which must then be the event's own copy, kept as
// long as the event); nil allocates each on its own.
func decodeFast(p Payload, data []byte, in *readerAllocs) bool {
	d := fastDecoder{b: data, in: in}
	return d.payload(p) && d.end()
}

// decodeFastChecked is decodeFast for data no strict check has passed:
// it checks it as it reads it, as the data of a line's member at depth 1
// (strict.go), and reports false as well where the check would refuse it.
// Its raw values are copies.
func decodeFastChecked(p Payload, data []byte, c *checking) bool {
	d := fastDecoder{b: data, check: c, depth: 1}
	return d.payload(p) && d.end()
}

// payload reads the data of p's type into p, from d.i to the end of the
// value.
func (d *fastDecoder) payload(p Payload) bool {
	var ok bool
	switch p := p.(type) {
	case *InboxSpliced:
		ok = d.inboxSpliced(p)
	case *TurnStart:
		ok = d.object(turnStartKeys, func(k []byte) bool {
			return string(k) == "turn" && d.int(&p.Turn)
		})
	case *TurnEnd:
		ok = d.object(turnEndKeys, func(k []byte) bool {
			switch string(k) {
			case "turn":
				return d.int(&p.Turn)
			case "reason":
				return d.turnEndReason(&p.Reason)
			}
			return false
		})
	case *StepStart:
		ok = d.turnStep(&p.Turn, &p.Step)
	case *StepEnd:
		ok = d.turnStep(&p.Turn, &p.Step)
	case *UserMessage:
		ok = d.userMessage(p)
	case *AssistantChunk:
		ok = d.object(turnStepChunkKeys, func(k []byte) bool {
			switch string(k) {
			case "turn":
				return d.int(&p.Turn)
			case "step":
				return d.int(&p.Step)
			case "chunk":
				return d.streamChunk(&p.Chunk)
			}
			return false
		})
	case *AssistantMessage:
		ok = d.assistantMessage(p)
	case *ToolCall:
		ok = d.object(toolCallKeys, func(k []byte) bool {
			switch string(k) {
			case "turn":
				return d.int(&p.Turn)
			case "step":
				return d.int(&p.Step)
			case "callId":
				return d.str(&p.CallID)
			case "name":
				return d.str(&p.Name)
			case "arguments":
				return d.str(&p.Arguments)
			}
			return false
		})
	case *ToolResult:
		ok = d.toolResult(p)
	case *RequestHeader:
		ok = d.requestHeader(p)
	case *RequestContext:
		ok = d.object(requestContextKeys, func(k []byte) bool {
			switch string(k) {
			case "provider":
				return d.str(&p.Provider)
			case "model":
				return d.str(&p.Model)
			case "contextWindow":
				return d.intPtr(&p.ContextWindow)
			}
			return false
		})
	case *LLMRetry:
		ok = d.llmRetry(p)
	case *LLMRetryStarted:
		ok = d.object(retryStartedKeys, func(k []byte) bool {
			switch string(k) {
			case "retryId":
				return d.str(&p.RetryID)
			case "turn":
				return d.int(&p.Turn)
			case "step":
				return d.int(&p.Step)
			case "retry":
				return d.int(&p.Retry)
			}
			return false
		})
	case *CompactionStart:
		ok = d.object(compactionStartKeys, func(k []byte) bool {
			switch string(k) {
			case "compactionId":
				return d.str(&p.CompactionID)
			case "sourceCommandId":
				return d.str(&p.SourceCommandID)
			case "turn":
				return d.intPtr(&p.Turn)
			}
			return false
		})
	case *CompactionEnd:
		ok = d.object(compactionEndKeys, func(k []byte) bool {
			switch string(k) {
			case "compactionId":
				return d.str(&p.CompactionID)
			case "sourceCommandId":
				return d.str(&p.SourceCommandID)
			case "turn":
				return d.intPtr(&p.Turn)
			case "error":
				return d.str(&p.Error)
			}
			return false
		})
	case *SessionEndSeed:
		ok = d.object(nil, func([]byte) bool { return false })
	default:
		// The compaction summary and prune records are rare: encoding/json
		// reads them.
		return false
	}
	return ok
}

// The keys of each payload type, which a key in other case would match in
// encoding/json: decodeFast leaves such a key to it.
var (
	turnStartKeys       = []string{"turn"}
	turnEndKeys         = []string{"turn", "reason"}
	turnStepKeys        = []string{"turn", "step"}
	turnStepChunkKeys   = []string{"turn", "step", "chunk"}
	toolCallKeys        = []string{"turn", "step", "callId", "name", "arguments"}
	requestContextKeys  = []string{"provider", "model", "contextWindow"}
	retryStartedKeys    = []string{"retryId", "turn", "step", "retry"}
	compactionStartKeys = []string{"compactionId", "sourceCommandId", "turn"}
	compactionEndKeys   = []string{"compactionId", "sourceCommandId", "turn", "error"}
	inboxKeys           = []string{"target", "start", "removedCount", "inserted", "outcome"}
	userMessageKeys     = []string{"content", "source", "role", "id"}
	sourceKeys          = []string{"kind", "plugin", "form", "sections", "compactionId", "callId", "provider", "model", "replayState"}
	assistantKeys       = []string{"turn", "step", "message", "usage", "interrupted"}
	assistantBodyKeys   = []string{"role", "content", "source", "id"}
	chunkKeys           = []string{"type", "index", "blockType", "text", "id", "name", "argumentsDelta", "block", "usage", "reason", "replayState"}
	finishKeys          = []string{"kind", "failure"}
	failureKeys         = []string{"message", "code", "status", "providerRetryAfterMs", "requestId"}
	causeKeys           = []string{"kind", "reason"}
	reasonKeys          = []string{"kind", "reason", "error"}
	toolResultKeys      = []string{"turn", "step", "message", "error", "callId"}
	toolErrorKeys       = []string{"name", "code"}
	headerKeys          = []string{"header", "reason"}
	headerBodyKeys      = []string{"config"}
	configKeys          = []string{"provider", "model"}
	llmRetryKeys        = []string{"retryId", "turn", "step", "provider", "mode", "policyKey", "retry", "maxRetries", "delayMs", "failure"}
)

// fastDecoder walks one value of JSON that the line's strict check has
// passed already (grammar, UTF-8, duplicate keys, depth): it looks only
// for what encoding/json would read otherwise than it does, and is not to
// be handed data that did not pass that check, unless it checks it
// itself (check, strict.go).
type fastDecoder struct {
	b []byte
	i int
	// skipped counts the unknown keys skipped, for a reader that refuses
	// them.
	skipped int
	in      *readerAllocs
	// check, when set, makes the decoder check what the strict check
	// would (strict.go); depth is then how deep the value being read
	// is nested in its line.
	check *checking
	depth int
}

func (d *fastDecoder) space() { d.i = skipSpace(d.b, d.i) }

// end: nothing but space is left.
func (d *fastDecoder) end() bool {
	d.space()
	return d.i == len(d.b)
}

// member reads the value of the member key: by field for a known key,
// skipped for any other, refused for one encoding/json would match to a
// known key in other case.
func (d *fastDecoder) member(key []byte, known []string, field func(key []byte) bool) bool {
	if isKnown(key, known) {
		return field(key)
	}
	if foldsToKnown(key, known) {
		return false
	}
	vend, ok := d.valueEnd()
	if !ok {
		return false
	}
	d.i = vend
	d.skipped++
	return true
}

// object reads an object, handing each key to field, which reads its
// value and reports whether it could. A key field does not know is
// skipped, unless it is one of known in other case (or not ASCII, where
// case folding is Unicode's), which encoding/json would match.
func (d *fastDecoder) object(known []string, field func(key []byte) bool) bool {
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != '{' {
		return false
	}
	d.i++
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return true
	}
	if d.check != nil {
		return d.checkedObject(known, field)
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return false
		}
		end, err := stringEnd(d.b, d.i)
		if err != nil {
			return false
		}
		key := d.b[d.i+1 : end-1]
		if hasBackslash(key) {
			return false
		}
		d.i = skipSpace(d.b, end)
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return false
		}
		d.i++
		d.space()
		if !d.member(key, known, field) {
			return false
		}
		d.space()
		if d.i >= len(d.b) {
			return false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}

func isKnown(key []byte, known []string) bool {
	for _, k := range known {
		if string(key) == k {
			return true
		}
	}
	return false
}

// foldsToKnown reports whether encoding/json could match key to one of
// known by case folding; any key that is not ASCII counts as one.
func foldsToKnown(key []byte, known []string) bool {
	for _, c := range key {
		if c >= 0x80 {
			return true
		}
	}
	for _, k := range known {
		if len(k) != len(key) {
			continue
		}
		same := true
		for i := range key {
			if lower(key[i]) != lower(k[i]) {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// null consumes a null, reporting whether there was one.
func (d *fastDecoder) null() bool {
	if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// str reads a string. Of the escapes it reads the one-letter ones;
// \u leaves the value to encoding/json (surrogates, U+FFFD for a lone
// one).
func (d *fastDecoder) str(s *string) bool {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return false
	}
	start := d.i + 1
	j := plain.Run(d.b, start)
	wide := false
	for j < len(d.b) && d.b[j] >= utf8.RuneSelf { // past a multi-byte character's bytes
		wide = true
		j = plain.Run(d.b, j+1)
	}
	if j < len(d.b) && d.b[j] == '"' {
		if wide && d.check != nil && !utf8.Valid(d.b[start:j]) {
			return false // the line is not UTF-8: the reader says so
		}
		*s = d.in.string(d.b[start:j])
		d.i = j + 1
		return true
	}
	buf := append([]byte(nil), d.b[start:j]...)
	for j < len(d.b) {
		c := d.b[j]
		switch c {
		case '"':
			if d.check != nil && !utf8.Valid(d.b[start:j]) {
				return false
			}
			*s = string(buf)
			d.i = j + 1
			return true
		case '\\':
			if j+1 >= len(d.b) {
				return false
			}
			var r byte
			switch d.b[j+1] {
			case '"', '\\', '/':
				r = d.b[j+1]
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			default:
				return false
			}
			buf = append(buf, r)
			j += 2
		default:
			if c < 0x20 {
				return false // a raw control character: not JSON
			}
			buf = append(buf, c)
			j++
		}
	}
	return false
}

// number returns the bytes of a number, and whether it is an integer
// (no fraction, no exponent); nil when a checking decoder finds it no
// JSON number.
func (d *fastDecoder) number() ([]byte, bool) {
	lit, integer := d.numberBytes()
	if d.check != nil && lit != nil && !strictjson.ValidNumber(lit) {
		return nil, false
	}
	return lit, integer
}

func (d *fastDecoder) numberBytes() ([]byte, bool) {
	start := d.i
	j := d.i
	if j < len(d.b) && d.b[j] == '-' {
		j++
	}
	digits := j
	for j < len(d.b) && '0' <= d.b[j] && d.b[j] <= '9' {
		j++
	}
	if j == digits {
		return nil, false
	}
	integer := true
	for j < len(d.b) && (d.b[j] == '.' || d.b[j] == 'e' || d.b[j] == 'E' || d.b[j] == '+' || d.b[j] == '-' || ('0' <= d.b[j] && d.b[j] <= '9')) {
		integer = false
		j++
	}
	d.i = j
	return d.b[start:j], integer
}

// int64 reads an integer that fits; a fraction, an exponent or an
// overflow is encoding/json's to refuse.
func (d *fastDecoder) int64(n *int64) bool {
	lit, integer := d.number()
	if lit == nil || !integer {
		return false
	}
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) > 18 {
		return false // may not fit: strconv's to say
	}
	var v int64
	for _, c := range lit {
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	*n = v
	return true
}

func (d *fastDecoder) int(n *int) bool {
	var v int64
	if !d.int64(&v) || int64(int(v)) != v {
		return false
	}
	*n = int(v)
	return true
}

// nullable reads a value into a new T with read, or null as nil: what
// encoding/json does with a pointer field.
func nullable[T any](d *fastDecoder, p **T, read func(*T) bool) bool {
	if d.null() {
		*p = nil
		return true
	}
	v := new(T)
	if !read(v) {
		return false
	}
	*p = v
	return true
}

// intPtr reads an integer or null (nil), as into a *int.
func (d *fastDecoder) intPtr(p **int) bool { return nullable(d, p, d.int) }

func (d *fastDecoder) float(f *float64) bool {
	lit, _ := d.number()
	if lit == nil {
		return false
	}
	v, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return false
	}
	*f = v
	return true
}

func (d *fastDecoder) bool(v *bool) bool {
	switch {
	case len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "true":
		*v, d.i = true, d.i+4
	case len(d.b)-d.i >= 5 && string(d.b[d.i:d.i+5]) == "false":
		*v, d.i = false, d.i+5
	default:
		return false
	}
	return true
}

// raw keeps a value's bytes as encoding/json keeps a json.RawMessage,
// null included. A reader's data is its event's own copy already, which
// the value views, its capacity cut at its end (an append makes a new
// array, as it would to a copy); without a reader, it is a copy.
func (d *fastDecoder) raw(m *json.RawMessage) bool {
	end, ok := d.valueEnd()
	if !ok {
		return false
	}
	if d.in != nil {
		*m = json.RawMessage(d.b[d.i:end:end])
		if d.check != nil {
			// d.b is the line: the view moves to the copy made of the
			// data once it is read.
			d.check.raws = append(d.check.raws, rawAt{m, d.i})
		}
	} else {
		*m = append(json.RawMessage(nil), d.b[d.i:end]...)
	}
	d.i = end
	return true
}

func (d *fastDecoder) turnStep(turn, step *int) bool {
	return d.object(turnStepKeys, func(k []byte) bool {
		switch string(k) {
		case "turn":
			return d.int(turn)
		case "step":
			return d.int(step)
		}
		return false
	})
}
