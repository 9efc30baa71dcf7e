package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The v0→v1 edge (docs/dsh.md#log-versions): a v0 event is rewritten in
// memory by these bounded normalizations and no others. Every field an edit
// does not touch keeps its position and bytes.

// refusedV0Types are retired shapes that are refused, never dropped.
var refusedV0Types = map[string]string{
	"request/header-delta": "request/header-delta events are a retired shape that turnsim refuses",
	"mode/set":             "mode/set events are a retired shape that turnsim refuses",
}

type chainKey struct {
	turn, step          int
	provider, policyKey string
}

type chainState struct {
	id    string
	retry int
}

// migrator carries the state of the edge across one log: legacy retry chains
// share the id of their first event.
type migrator struct {
	sessionID string
	chains    map[chainKey]chainState
	// lastChain is the id of the latest chain per (turn, step), for
	// legacy llm/retry-started events without an id.
	lastChain map[[2]int]string
	scratch   []Field
}

// v0At is where the event being migrated stands: its seq and its
// surfaceOp.
type v0At struct {
	seq int64
	op  *SurfaceOp
}

// legacyMessageID is the id the edge gives a message record written
// before messages had ids.
func (m *migrator) legacyMessageID(seq int64) json.RawMessage {
	return mustMarshal(fmt.Sprintf("legacy-message:%s:%d", m.sessionID, seq))
}

func newMigrator(sessionID string) *migrator {
	return &migrator{sessionID: sessionID, chains: map[chainKey]chainState{}, lastChain: map[[2]int]string{}}
}

// migrate returns the v1 type and data of a v0 event at seq, and whether a
// retired shape was rewritten. fields are data's, when they were split as
// it was read (strict.go), else nil.
func (m *migrator) migrate(typ string, data json.RawMessage, seq int64, op *SurfaceOp, fields []Field) (string, json.RawMessage, bool, error) {
	if !mayBeV0Only(typ) {
		// Neither refused, renamed nor edited: no map need be asked (two
		// lookups an event were a tenth of the edge).
		return typ, data, false, nil
	}
	if why, ok := refusedV0Types[typ]; ok {
		return "", nil, false, fmt.Errorf("%s", why)
	}
	renamed := true
	switch {
	case typ == "steering/message":
		typ = TypeUserMessage
	case strings.HasPrefix(typ, "compact/"):
		typ = "compaction/" + strings.TrimPrefix(typ, "compact/")
	default:
		renamed = false
	}
	edit, ok := v0Edits[typ]
	if !ok {
		return typ, data, renamed, nil
	}
	if fields == nil {
		// Into the scratch slice of the last event: an edit either
		// encodes its fields anew or leaves the data as it was, and
		// keeps none.
		var err error
		fields, err = appendObjectFields(m.scratch[:0], data)
		m.scratch = fields
		if err != nil {
			return "", nil, false, fmt.Errorf("%s data: %v", typ, err)
		}
	}
	fields, changed, err := edit(m, fields, v0At{seq, op})
	if err != nil || !changed {
		return typ, data, renamed, err
	}
	out, err := encodeObject(fields)
	return typ, out, true, err
}

// mayBeV0Only reports whether typ may be refused, renamed or edited by
// the edge: the keys of refusedV0Types and v0Edits, and the renamed.
// TestMayBeV0Only holds it to them.
func mayBeV0Only(typ string) bool {
	switch typ {
	case "request/header-delta", "mode/set", "steering/message",
		TypeTurnStart, TypeRequestHeader, TypeTurnEnd, TypeUserMessage,
		TypeAssistantMessage, TypeToolResult, TypeLLMRetry, TypeLLMRetryStarted:
		return true
	}
	return strings.HasPrefix(typ, "compact/")
}

type v0Edit func(m *migrator, fields []Field, at v0At) ([]Field, bool, error)

var v0Edits = map[string]v0Edit{
	TypeTurnStart: func(_ *migrator, f []Field, _ v0At) ([]Field, bool, error) {
		if field(f, "trigger") == nil {
			return f, false, nil
		}
		return without(f, "trigger"), true, nil
	},
	TypeRequestHeader: migrateRequestHeader,
	TypeTurnEnd:       migrateTurnEnd,
	TypeUserMessage: func(m *migrator, f []Field, at v0At) ([]Field, bool, error) {
		changed := false
		if field(f, "role") == nil {
			f, changed = withField(f, "role", json.RawMessage(`"user"`)), true
		}
		if field(f, "id") == nil {
			f, changed = withField(f, "id", m.legacyMessageID(at.seq)), true
		}
		return f, changed, nil
	},
	TypeAssistantMessage: migrateAssistantMessage,
	TypeToolResult:       migrateToolResult,
	TypeLLMRetry:         migrateRetry,
	TypeLLMRetryStarted:  migrateRetryStarted,
}

func migrateRequestHeader(_ *migrator, f []Field, _ v0At) ([]Field, bool, error) {
	if stringField(f, "reason") == "fallback" {
		return nil, false, fmt.Errorf(`request/header with reason "fallback" is a retired shape that turnsim refuses`)
	}
	header := field(f, "header")
	if header == nil {
		return f, false, nil
	}
	if len(header) > 0 && header[0] == '{' && !bytes.Contains(header, []byte("messagePrefix")) && !bytes.Contains(header, []byte(`\u`)) {
		// No key of it can spell messagePrefix (only a \u escape could
		// without the word): left as it is, without a walk of the header,
		// most of a request/header line. (It is an object of a checked
		// line, which objectFields splits.)
		return f, false, nil
	}
	hf, err := objectFields(header)
	if err != nil {
		return nil, false, fmt.Errorf("request/header data.header: %v", err)
	}
	if field(hf, "messagePrefix") == nil {
		return f, false, nil
	}
	nh, err := encodeObject(without(hf, "messagePrefix"))
	if err != nil {
		return nil, false, err
	}
	return withField(f, "header", nh), true, nil
}

// migrateTurnEnd rewrites the retired turn/end reasons.
func migrateTurnEnd(_ *migrator, f []Field, _ v0At) ([]Field, bool, error) {
	raw := field(f, "reason")
	if raw == nil {
		return f, false, nil
	}
	rf, err := objectFields(raw)
	if err != nil {
		return nil, false, fmt.Errorf("turn/end data.reason: %v", err)
	}
	kind := stringField(rf, "kind")
	var reason json.RawMessage
	switch {
	case kind == "disposed":
		reason = json.RawMessage(`{"kind":"aborted","reason":{"kind":"disposed"}}`)
	case kind == EndAborted && field(rf, "reason") == nil:
		reason = json.RawMessage(`{"kind":"aborted","reason":{"kind":"legacy"}}`)
	case kind == EndError && field(rf, "error") == nil:
		failure, err := legacyFailure(rf)
		if err != nil {
			return nil, false, err
		}
		reason, err = marshal(TurnEndReason{Kind: EndError, Error: &failure})
		if err != nil {
			return nil, false, err
		}
	default:
		return f, false, nil
	}
	return withField(f, "reason", reason), true, nil
}

// legacyFailure reads {kind:"error",step,message,code?} or
// {kind:"error",step,failure}; a missing code becomes UNKNOWN.
func legacyFailure(rf []Field) (LlmFailure, error) {
	var failure LlmFailure
	if raw := field(rf, "failure"); raw != nil {
		if err := json.Unmarshal(raw, &failure); err != nil {
			return failure, fmt.Errorf("turn/end data.reason.failure: %s", describeJSONError("", err))
		}
	} else {
		if err := json.Unmarshal(field(rf, "message"), &failure.Message); err != nil {
			return failure, fmt.Errorf("turn/end data.reason.message: a legacy error reason needs a message string")
		}
		if raw := field(rf, "code"); raw != nil {
			if err := json.Unmarshal(raw, &failure.Code); err != nil {
				return failure, fmt.Errorf("turn/end data.reason.code: expected a string")
			}
		}
	}
	if failure.Code == "" {
		failure.Code = "UNKNOWN"
	}
	return failure, nil
}

// migrateAssistantMessage wraps the retired {content, provenance} shape into
// message {id, role, content, source}, the id legacy-message:<sessionId>:
// <seq> (as DSH 0.1.0-rc.8's session persistence does: a message has an
// id, which its Web view keys the message by).
func migrateAssistantMessage(m *migrator, f []Field, at v0At) ([]Field, bool, error) {
	content := field(f, "content")
	if field(f, "message") != nil || content == nil {
		return f, false, nil
	}
	src := Source{Kind: "model"}
	if p := field(f, "provenance"); p != nil {
		// The fast decoder where it reads the provenance as encoding/json
		// would (FuzzFastPayload holds its sources so), encoding/json
		// otherwise.
		d := fastDecoder{b: p}
		if !d.source(&src) || !d.end() {
			src = Source{Kind: "model"}
			if err := json.Unmarshal(p, &src); err != nil {
				return nil, false, fmt.Errorf("assistant/message data.provenance: %s", describeJSONError("", err))
			}
		}
		src.Kind = "model"
	}
	// {id, role, content, source} as encoding/json marshals it
	// (FuzzLegacyAssistantBody holds the two equal): its reflection was
	// most of the time this edit took.
	id := m.legacyMessageID(at.seq)
	msg := make([]byte, 0, len(id)+len(content)+64)
	msg = append(msg, `{"id":`...)
	msg = appendCompact(msg, id)
	msg = append(msg, `,"role":"assistant","content":`...)
	msg = appendCompact(msg, content)
	msg = append(msg, `,"source":`...)
	msg = appendSource(msg, &src)
	msg = append(msg, '}')
	out := make([]Field, 0, len(f))
	for _, x := range f {
		switch x.Key {
		case "content":
			out = append(out, Field{"message", msg})
		case "provenance":
		default:
			out = append(out, x)
		}
	}
	return out, true, nil
}

// migrateToolResult wraps the retired {callId, content, isError} shape
// into message {id, role: "user", content: [its tool-result], source:
// {kind: "tool", callId}}, as DSH 0.1.0-rc.8's session persistence does
// (migrateLegacyMessageEvent). A result that replaces a range takes the id
// of the message at its start, which the edge gave a legacy id too (DSH
// looks the id up; a log whose replaced message had an id of its own is
// not a v0 log of this shape).
func migrateToolResult(m *migrator, f []Field, at v0At) ([]Field, bool, error) {
	callID, content, isError := field(f, "callId"), field(f, "content"), field(f, "isError")
	if field(f, "message") != nil || callID == nil || content == nil || isError == nil {
		return f, false, nil
	}
	id := m.legacyMessageID(at.seq)
	if at.op != nil && at.op.Op == SurfaceReplace {
		id = m.legacyMessageID(at.op.Start)
	}
	part, err := encodeObject([]Field{{"type", json.RawMessage(`"tool-result"`)}, {"toolCallId", callID}, {"content", content}, {"isError", isError}})
	if err != nil {
		return nil, false, err
	}
	source, err := encodeObject([]Field{{"kind", json.RawMessage(`"tool"`)}, {"callId", callID}})
	if err != nil {
		return nil, false, err
	}
	msg, err := encodeObject([]Field{{"id", id}, {"role", json.RawMessage(`"user"`)}, {"content", json.RawMessage("[" + string(part) + "]")}, {"source", source}})
	if err != nil {
		return nil, false, err
	}
	out := make([]Field, 0, len(f))
	for _, x := range f {
		switch x.Key {
		case "callId", "content", "isError":
		default:
			out = append(out, x)
		}
	}
	return append(out, Field{"message", msg}), true, nil
}

// migrateRetry gives a legacy llm/retry the deterministic id of its chain:
// legacy-retry:<sessionId>:<seq of the chain's first event>.
func migrateRetry(m *migrator, f []Field, at v0At) ([]Field, bool, error) {
	var r LLMRetry
	if err := json.Unmarshal(mustObject(f), &r); err != nil {
		return nil, false, fmt.Errorf("llm/retry %s", describeJSONError("data", err))
	}
	key := chainKey{r.Turn, r.Step, r.Provider, r.PolicyKey}
	prev, ok := m.chains[key]
	id := r.RetryID
	if id == "" {
		if ok && r.Retry > prev.retry {
			id = prev.id
		} else {
			id = fmt.Sprintf("legacy-retry:%s:%d", m.sessionID, at.seq)
		}
	}
	m.chains[key] = chainState{id: id, retry: r.Retry}
	m.lastChain[[2]int{r.Turn, r.Step}] = id
	if r.RetryID != "" {
		return f, false, nil
	}
	return append([]Field{{"retryId", mustMarshal(id)}}, without(f, "retryId")...), true, nil
}

func migrateRetryStarted(m *migrator, f []Field, _ v0At) ([]Field, bool, error) {
	var r LLMRetryStarted
	if err := json.Unmarshal(mustObject(f), &r); err != nil {
		return nil, false, fmt.Errorf("llm/retry-started %s", describeJSONError("data", err))
	}
	if r.RetryID != "" {
		return f, false, nil
	}
	id, ok := m.lastChain[[2]int{r.Turn, r.Step}]
	if !ok {
		return f, false, nil // nothing to pair with; the oracle reports it
	}
	return append([]Field{{"retryId", mustMarshal(id)}}, without(f, "retryId")...), true, nil
}

// stringField is the string value of key, as json.Unmarshal reads it into
// a string ("" when it is missing or not a string).
func stringField(f []Field, key string) string {
	value := field(f, key)
	if s, ok := plainString(value); ok {
		return s
	}
	var s string
	_ = json.Unmarshal(value, &s)
	return s
}

func mustObject(f []Field) json.RawMessage {
	b, err := encodeObject(f)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

// appendSource appends s as encoding/json marshals it without HTML
// escaping: its fields in order, the empty ones left out, raw values
// compacted (they are valid JSON: a checked line's).
func appendSource(b []byte, s *Source) []byte {
	b = append(b, `{"kind":`...)
	b = AppendString(b, s.Kind)
	str := func(key, v string) {
		if v != "" {
			b = append(b, ',')
			b = append(b, key...)
			b = AppendString(b, v)
		}
	}
	raw := func(key string, v json.RawMessage) {
		if len(v) > 0 {
			b = append(b, ',')
			b = append(b, key...)
			b = appendCompact(b, v)
		}
	}
	str(`"plugin":`, s.Plugin)
	str(`"form":`, s.Form)
	raw(`"sections":`, s.Sections)
	str(`"compactionId":`, s.CompactionID)
	str(`"callId":`, s.CallID)
	str(`"provider":`, s.Provider)
	str(`"model":`, s.Model)
	raw(`"replayState":`, s.ReplayState)
	return append(b, '}')
}
