package loop

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
)

// block is one content block being assembled from an attempt's chunks.
type block struct {
	Index int
	Type  string // "text", "reasoning" or "tool-call"
	Text  string // text, reasoning, or tool-call arguments
	ID    string
	Name  string
	final json.RawMessage // the block of its block-end chunk
}

// assembler builds an attempt's content from its chunks, fresh for every
// attempt so that a failed attempt never feeds the next.
type assembler struct {
	// list is the blocks in stream order; an answer has one or two, which
	// fit in buf (no allocation an attempt), and finding one by index is
	// a look at each.
	list  []block
	buf   [2]block
	usage json.RawMessage
}

// get is the block of index, started with type typ if it is new. The
// pointer is good until the next get.
func (as *assembler) get(index int, typ string) *block {
	for i := range as.list {
		if as.list[i].Index == index {
			return &as.list[i]
		}
	}
	if as.list == nil {
		as.list = as.buf[:0]
	}
	as.list = append(as.list, block{Index: index, Type: typ})
	return &as.list[len(as.list)-1]
}

func (as *assembler) feed(c *session.StreamChunk) {
	switch c.Type {
	case session.ChunkBlockStart:
		as.get(c.Index, c.BlockType)
	case session.ChunkTextDelta:
		as.get(c.Index, "text").Text += c.Text
	case session.ChunkReasoningDelta:
		as.get(c.Index, "reasoning").Text += c.Text
	case session.ChunkToolCallDelta:
		b := as.get(c.Index, "tool-call")
		b.Text += c.ArgumentsDelta
		if c.ID != "" {
			b.ID = c.ID
		}
		if c.Name != nil {
			b.Name = *c.Name
		}
	case session.ChunkBlockEnd:
		b := as.get(c.Index, "")
		b.final = c.Block
		if b.Type != "" && (b.Text != "" || b.ID != "") {
			return // the deltas already gave what the block says
		}
		var fin struct {
			Type, Text, ID, Name, Arguments string
		}
		if json.Unmarshal(c.Block, &fin) == nil {
			if fin.Type != "" {
				b.Type = fin.Type
			}
			switch fin.Type {
			case "tool-call":
				b.ID, b.Name, b.Text = fin.ID, fin.Name, fin.Arguments
			default:
				b.Text = fin.Text
			}
		}
	case session.ChunkUsage:
		as.usage = c.Usage
	}
}

// blocks are the assembled blocks in stream order, the assembler's own:
// not to be changed.
func (as *assembler) blocks() []block { return as.list }

// interruptedBlocks are the text and reasoning blocks, open or closed, with
// non-blank text, in stream order; tool calls are dropped.
func (as *assembler) interruptedBlocks() []block {
	var out []block
	for _, b := range as.blocks() {
		if (b.Type == "text" || b.Type == "reasoning") && strings.TrimSpace(b.Text) != "" {
			b.final = nil
			out = append(out, b)
		}
	}
	return out
}

func withoutToolCalls(blocks []block) []block {
	var out []block
	for _, b := range blocks {
		if b.Type != "tool-call" {
			out = append(out, b)
		}
	}
	return out
}

// countToolCalls is the number of tool-call blocks.
func countToolCalls(blocks []block) int {
	n := 0
	for _, b := range blocks {
		if b.Type == "tool-call" {
			n++
		}
	}
	return n
}

// encodeBlocks writes message content: a closed block as its block-end
// carried it, an open one from its deltas. It writes by hand what
// encoding/json would (the golden logs hold it to that): this is the
// loop's hot path.
func encodeBlocks(log *session.Log, blocks []block) json.RawMessage {
	raw := log.Room(encodedLen(blocks))
	raw = append(raw, '[')
	for i, b := range blocks {
		if i > 0 {
			raw = append(raw, ',')
		}
		switch {
		case b.final != nil:
			raw = append(raw, b.final...)
		case b.Type == "tool-call":
			raw = append(raw, `{"type":"tool-call","id":`...)
			raw = session.AppendString(raw, b.ID)
			raw = append(raw, `,"name":`...)
			raw = session.AppendString(raw, b.Name)
			raw = append(raw, `,"arguments":`...)
			raw = session.AppendString(raw, b.Text)
			raw = append(raw, '}')
		default:
			raw = append(raw, `{"type":`...)
			raw = session.AppendString(raw, b.Type)
			raw = append(raw, `,"text":`...)
			raw = session.AppendString(raw, b.Text)
			raw = append(raw, '}')
		}
	}
	return append(raw, ']')
}

// encodedLen is the length of what encodeBlocks writes.
func encodedLen(blocks []block) int {
	n := 2 + max(len(blocks)-1, 0) // [ ] and the commas
	for _, b := range blocks {
		switch {
		case b.final != nil:
			n += len(b.final)
		case b.Type == "tool-call":
			n += len(`{"type":"tool-call","id":,"name":,"arguments":}`) + session.QuotedLen(b.ID) + session.QuotedLen(b.Name) + session.QuotedLen(b.Text)
		default:
			n += len(`{"type":,"text":}`) + session.QuotedLen(b.Type) + session.QuotedLen(b.Text)
		}
	}
	return n
}

// blocksText is the text a surface node keeps of blocks (as contentText
// reads it back from content): a lone block's own, without a copy.
func blocksText(blocks []block) string {
	if len(blocks) == 1 {
		return blocks[0].Text
	}
	var out strings.Builder
	for _, b := range blocks {
		out.WriteString(b.Text)
	}
	return out.String()
}

func toolResultContent(log *session.Log, callID string, out ToolOutcome) json.RawMessage {
	const head, middle, tail = `[{"type":"tool-result","toolCallId":`, `,"content":[{"type":"text","text":`, `}],"isError":false}]`
	// Sized for the text once, exactly (a text's newlines are written
	// twice as long): tool output is the largest thing a step encodes,
	// and growing by doubling copied it several times.
	raw := log.Room(len(head) + session.QuotedLen(callID) + len(middle) + session.QuotedLen(out.Text) + len(tail))
	raw = append(raw, head...)
	raw = session.AppendString(raw, callID)
	raw = append(raw, middle...)
	raw = session.AppendString(raw, out.Text)
	raw = append(raw, `}],"isError":`...)
	raw = strconv.AppendBool(raw, out.IsError)
	return append(raw, `}]`...)
}
