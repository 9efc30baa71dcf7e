package loop

import (
	"bytes"
	"encoding/json"
	"unsafe"

	"github.com/turnsim/turnsim/loop/session"
)

// SurfaceNode is one model-visible message: a user message, an assistant
// message or a tool result, as the surface events left it.
type SurfaceNode struct {
	Seq  int64
	Kind string // "user", "assistant" or "tool"
	// Text is the message's text content, joined. It may share the log's
	// bytes (Log.Holds): read it while the log is read, and copy it
	// (strings.Clone) to keep it longer.
	Text string
	// Tokens is the node's estimated size, as DSH's token meter prices it
	// (MessageTokens).
	Tokens int
	// ToolCalls are an assistant node's tool-call ids; CallID is a tool
	// result's call.
	ToolCalls []string
	CallID    string
}

// Surface kinds.
const (
	NodeUser      = "user"
	NodeAssistant = "assistant"
	NodeTool      = "tool"
)

// Surface is the derived message history: surface events applied in order,
// replacements in place.
type Surface struct {
	// log is the agent's, whose bytes a node's text may share (nil: none).
	log   *session.Log
	nodes []SurfaceNode
	// generation counts committed replacements (pruning and checkpoints).
	generation int
	// tokens is the sum of the nodes' Tokens, kept as they change: a
	// request's size is then known without reading its history again.
	tokens int
}

// Nodes are the current messages, oldest first. The slice must not be
// modified.
func (s *Surface) Nodes() []SurfaceNode { return s.nodes }

// ReplaceGeneration is the monotonic count of committed replacements.
func (s *Surface) ReplaceGeneration() int { return s.generation }

// Tokens is the estimated size of the whole surface.
func (s *Surface) Tokens() int { return s.tokens }

// push appends a node: the one way a node joins the end, so that the
// token total follows.
func (s *Surface) push(node SurfaceNode) {
	s.nodes = append(s.nodes, node)
	s.tokens += node.Tokens
}

// apply updates the surface with a surface event.
func (s *Surface) apply(e *session.Event) {
	node, ok := surfaceNode(e, s.log)
	if !ok || e.SurfaceOp == nil {
		return
	}
	if e.SurfaceOp.Op != session.SurfaceReplace {
		s.push(node)
		return
	}
	// The range runs in surface order, from the node with seq Start to
	// the node with seq End: once a checkpoint stands in for older nodes,
	// surface order is no longer seq order.
	first, last := -1, -1
	for i, n := range s.nodes {
		if n.Seq == e.SurfaceOp.Start {
			first = i
		}
		if n.Seq == e.SurfaceOp.End {
			last = i
		}
	}
	if first < 0 || last < first {
		return
	}
	for _, n := range s.nodes[first : last+1] {
		s.tokens -= n.Tokens
	}
	s.tokens += node.Tokens
	s.nodes = append(s.nodes[:first], append([]SurfaceNode{node}, s.nodes[last+1:]...)...)
	s.generation++
}

// surfaceNode is the node of a surface event of log (nil: of none).
func surfaceNode(e *session.Event, log *session.Log) (SurfaceNode, bool) {
	switch p := e.Data.(type) {
	case *session.UserMessage:
		if text, ok := oneTextBlock(p.Content, log); ok {
			return SurfaceNode{Seq: e.Seq, Kind: NodeUser, Text: text, Tokens: TextMessageTokens(text)}, true
		}
		return SurfaceNode{Seq: e.Seq, Kind: NodeUser, Text: contentText(p.Content), Tokens: MessageTokens(p.Content)}, true
	case *session.AssistantMessage:
		return SurfaceNode{Seq: e.Seq, Kind: NodeAssistant, Text: contentText(p.Message.Content), Tokens: MessageTokens(p.Message.Content),
			ToolCalls: session.ToolCallIDs(p.Message.Content)}, true
	case *session.ToolResult:
		node := SurfaceNode{Seq: e.Seq, Kind: NodeTool, Tokens: roleOverhead, CallID: p.CallID()}
		if p.Message != nil {
			node.Text, node.Tokens = contentText(p.Message.Content), MessageTokens(p.Message.Content)
		}
		return node, true
	}
	return SurfaceNode{}, false
}

// oneTextBlock reads the common shape of content, one text block without
// escapes, without a decoder. The text shares the content's bytes when
// log holds them (they stay as long as the log, and the node with them);
// otherwise it is a copy, since the caller's bytes may change.
func oneTextBlock(content json.RawMessage, log *session.Log) (string, bool) {
	const prefix, suffix = `[{"type":"text","text":"`, `"}]`
	if !bytes.HasPrefix(content, []byte(prefix)) || !bytes.HasSuffix(content, []byte(suffix)) {
		return "", false
	}
	text := content[len(prefix) : len(content)-len(suffix)]
	if bytes.ContainsAny(text, "\\\"") {
		return "", false
	}
	if log != nil && log.Holds(text) {
		return unsafe.String(unsafe.SliceData(text), len(text)), true
	}
	return string(text), true
}

// contentText joins the text of content blocks, nested tool-result content
// and tool-call arguments included.
func contentText(content json.RawMessage) string {
	if text, ok := oneTextBlock(content, nil); ok {
		return text
	}
	var blocks []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Arguments string          `json:"arguments"`
		Content   json.RawMessage `json:"content"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return ""
	}
	var out []byte
	for _, b := range blocks {
		switch {
		case b.Text != "":
			out = append(out, b.Text...)
		case b.Arguments != "":
			out = append(out, b.Arguments...)
		case len(b.Content) > 0:
			out = append(out, contentText(b.Content)...)
		}
	}
	return string(out)
}
