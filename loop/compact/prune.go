package compact

import (
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
)

// PrunerConfig is the optional tool-result pruner: a result longer than
// ThresholdChars keeps its first HeadChars and last TailChars.
type PrunerConfig struct {
	ThresholdChars int
	HeadChars      int
	TailChars      int
}

// DefaultPruner is DSH's pruner default.
func DefaultPruner() *PrunerConfig {
	return &PrunerConfig{ThresholdChars: 8192, HeadChars: 4096, TailChars: 1024}
}

// PruneMarker stands where a pruned tool result's middle was: DSH's
// tool-result pruner's PRUNE_MARKER (0.1.0-rc.8), which its token meter
// prices with the rest of the replacement (found by --sut both: the
// model's own marker priced a summary's shadowed tokens 3 lower a pruned
// result).
const PruneMarker = "\n\n[... tool result middle pruned ...]\n\n"

// prune replaces each oversized tool result on the surface: a
// compaction/prune event, then the replacing tool/result. Each replacement
// advances the surface's generation.
func (c *Compactor) prune(a *loop.Agent) {
	p := c.cfg.Pruner
	for _, n := range append([]loop.SurfaceNode(nil), a.Surface().Nodes()...) {
		if n.Kind != loop.NodeTool || len(n.Text) <= p.ThresholdChars {
			continue
		}
		orig, ok := a.Log().At(n.Seq).Data.(*session.ToolResult)
		if !ok {
			continue
		}
		text := n.Text[:p.HeadChars] + PruneMarker + n.Text[len(n.Text)-p.TailChars:]
		loop.AppendCopy(a, &session.CompactionPrune{ShadowedRange: session.SeqRange{Start: n.Seq, End: n.Seq},
			ShadowedSeqs: []int64{n.Seq}, ShadowedTokenCount: int64(n.Tokens)})
		a.AppendSurface(&session.ToolResult{Turn: orig.Turn, Step: orig.Step, Message: &session.UserMessage{
			Content: prunedContent(n.CallID, text),
			Source:  session.Source{Kind: "tool", CallID: n.CallID},
			Role:    "user",
			ID:      a.IDs().NewID(loop.IDMessage),
		}}, session.SurfaceOp{Op: session.SurfaceReplace, Start: n.Seq, End: n.Seq}, []int64{n.Seq})
	}
}

func prunedContent(callID, text string) []byte {
	type txt struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	b, _ := session.Marshal([]struct {
		Type       string `json:"type"`
		ToolCallID string `json:"toolCallId"`
		Content    []txt  `json:"content"`
		IsError    bool   `json:"isError"`
	}{{"tool-result", callID, []txt{{"text", text}}, false}})
	return b
}
