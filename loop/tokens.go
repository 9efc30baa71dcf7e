package loop

import (
	"encoding/json"
	"unicode/utf8"
)

// Token estimates follow DSH's token meter (token-meter/estimate.ts, the
// same in 0.1.0-rc.8 and 0.1.1-rc.2): a fixed density of four characters
// a token, where a character is a UTF-16 code unit (JavaScript's
// String.length), plus four tokens of framing per content block and four
// per message. DSH prices the surface with it, so it decides what
// compaction shadows, the shadowedTokenCount it logs and whether a summary
// is smaller than what it replaces; turnsim's natural overflow uses it too.
const (
	charsPerToken = 4
	blockOverhead = 4
	roleOverhead  = 4
)

// EstimateTokens is the density part of the estimate: the tokens of a text
// without framing.
func EstimateTokens(text string) int { return (utf16Len(text) + charsPerToken - 1) / charsPerToken }

// TextMessageTokens is the estimate of a message made of one text block.
func TextMessageTokens(text string) int { return EstimateTokens(text) + blockOverhead + roleOverhead }

// TextBlocksTokens is the estimate of a message made of text blocks.
func TextBlocksTokens(texts ...string) int {
	tokens := roleOverhead
	for _, t := range texts {
		tokens += EstimateTokens(t) + blockOverhead
	}
	return tokens
}

// ToolResultTokens is the estimate of a tool result message: one
// tool-result block holding one text block.
func ToolResultTokens(text string) int {
	return EstimateTokens(text) + blockOverhead + blockOverhead + roleOverhead
}

// MessageTokens is the estimate of a message with the given content
// blocks (a JSON array, as logged).
func MessageTokens(content json.RawMessage) int { return contentTokens(content) + roleOverhead }

// contentTokens prices content blocks: text and reasoning by their text,
// a tool call by its name and arguments, a tool result by its content,
// any other block by its JSON.
func contentTokens(content json.RawMessage) int {
	var blocks []json.RawMessage
	if json.Unmarshal(content, &blocks) != nil {
		return 0
	}
	tokens := 0
	for _, raw := range blocks {
		var b struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Content   json.RawMessage `json:"content"`
		}
		json.Unmarshal(raw, &b)
		switch b.Type {
		case "text", "reasoning":
			tokens += EstimateTokens(b.Text) + blockOverhead
		case "tool-call":
			tokens += EstimateTokens(b.Name) + EstimateTokens(b.Arguments) + blockOverhead
		case "tool-result":
			tokens += contentTokens(b.Content) + blockOverhead
		default:
			tokens += blockOverhead + (utf16Len(string(raw))+charsPerToken-1)/charsPerToken
		}
	}
	return tokens
}

// blocksTokens prices assembled blocks the same way, without encoding
// them first.
func blocksTokens(blocks []block) int {
	tokens := roleOverhead
	for _, b := range blocks {
		if b.Type == "tool-call" {
			tokens += EstimateTokens(b.Name) + EstimateTokens(b.Text) + blockOverhead
		} else {
			tokens += EstimateTokens(b.Text) + blockOverhead
		}
	}
	return tokens
}

// utf16Len is a string's length in UTF-16 code units.
func utf16Len(s string) int {
	// ASCII is one unit a byte, and looked at eight bytes a step: a
	// tool's output, the longest text a run measures, mostly is.
	const highs = 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&highs != 0 {
			return utf16Slow(s)
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf16Slow(s)
		}
	}
	return len(s)
}

func utf16Slow(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
