package session

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Stream chunk types (docs/dsh.md#events).
const (
	ChunkBlockStart     = "block-start"
	ChunkTextDelta      = "text-delta"
	ChunkReasoningDelta = "reasoning-delta"
	ChunkToolCallDelta  = "tool-call-delta"
	ChunkBlockEnd       = "block-end"
	ChunkUsage          = "usage"
	ChunkFinish         = "finish"
)

// Finish kinds.
const (
	FinishStop      = "stop"
	FinishToolCalls = "tool-calls"
	FinishMaxTokens = "max-tokens"
	FinishError     = "error"
	FinishAborted   = "aborted"
)

// StreamChunk is one chunk of a model stream. Which fields are meaningful
// depends on Type; MarshalJSON writes exactly the fields of that variant.
type StreamChunk struct {
	Type           string          `json:"type"`
	Index          int             `json:"index"`
	BlockType      string          `json:"blockType,omitempty"`
	Text           string          `json:"text"`
	ID             string          `json:"id,omitempty"`
	Name           *string         `json:"name,omitempty"`
	ArgumentsDelta string          `json:"argumentsDelta"`
	Block          json.RawMessage `json:"block,omitempty"`
	Usage          json.RawMessage `json:"usage,omitempty"`
	Reason         *FinishReason   `json:"reason,omitempty"`
	ReplayState    json.RawMessage `json:"replayState,omitempty"`
}

// FinishReason ends a stream. Failure is set for kinds error and aborted.
type FinishReason struct {
	Kind    string      `json:"kind"`
	Failure *LlmFailure `json:"failure,omitempty"`
}

// Failed reports whether the chunk is a finish of kind error or aborted:
// the end of a failed attempt.
func (c *StreamChunk) Failed() bool {
	return c.Type == ChunkFinish && c.Reason != nil &&
		(c.Reason.Kind == FinishError || c.Reason.Kind == FinishAborted)
}

// MarshalJSON writes the chunk's variant with DSH's key order.
func (c StreamChunk) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	writeJSONString(&b, c.Type)
	index := func() {
		b.WriteString(`,"index":`)
		b.WriteString(strconv.Itoa(c.Index))
	}
	var err error
	switch c.Type {
	case ChunkBlockStart:
		index()
		b.WriteString(`,"blockType":`)
		writeJSONString(&b, c.BlockType)
	case ChunkTextDelta, ChunkReasoningDelta:
		index()
		b.WriteString(`,"text":`)
		writeJSONString(&b, c.Text)
	case ChunkToolCallDelta:
		index()
		b.WriteString(`,"id":`)
		writeJSONString(&b, c.ID)
		if c.Name != nil {
			b.WriteString(`,"name":`)
			writeJSONString(&b, *c.Name)
		}
		b.WriteString(`,"argumentsDelta":`)
		writeJSONString(&b, c.ArgumentsDelta)
	case ChunkBlockEnd:
		index()
		err = writeRawField(&b, "block", c.Block)
	case ChunkUsage:
		err = writeRawField(&b, "usage", c.Usage)
	case ChunkFinish:
		b.WriteString(`,"reason":`)
		if err = writeValue(&b, c.Reason); err == nil && len(c.ReplayState) > 0 {
			err = writeRawField(&b, "replayState", c.ReplayState)
		}
	}
	if err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeRawField(b *bytes.Buffer, key string, raw json.RawMessage) error {
	b.WriteString(`,"`)
	b.WriteString(key)
	b.WriteString(`":`)
	if len(raw) == 0 {
		b.WriteString("null")
		return nil
	}
	return json.Compact(b, raw)
}
