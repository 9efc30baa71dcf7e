package compact

import (
	"context"
	"errors"
	"fmt"

	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/session"
)

// CodeOverflow is the failure code this listener owns.
const CodeOverflow = "CONTEXT_WINDOW_EXCEEDED"

// Config is the overflow part of compaction-basic's configuration.
type Config struct {
	// MaxOverflowRetries bounds consecutive overflow recoveries since the
	// last model message; 0 disables overflow recovery. DSH's default is 1.
	MaxOverflowRetries int
	// MaxTokens caps the summary (DSH's default 8192).
	MaxTokens int
	// Pruner, when set, prunes oversized tool results before summarizing.
	Pruner *PrunerConfig
}

// DefaultConfig is DSH's default: one overflow recovery, no pruner.
func DefaultConfig() Config { return Config{MaxOverflowRetries: 1, MaxTokens: 8192} }

// Summarizer makes the one direct model call of a compaction. It is not
// retried.
type Summarizer interface {
	Summarize(ctx context.Context, req SummaryRequest) (Summary, error)
}

// SummaryRequest is what the summarizer is asked to condense.
type SummaryRequest struct {
	Provider, Model string
	MaxTokens       int
	Messages        []loop.SurfaceNode
}

// Summary is the summarizer's answer.
type Summary struct {
	Text         string
	InputTokens  int
	OutputTokens int
}

// Compactor is compaction-basic on one agent.
type Compactor struct {
	agent      *loop.Agent
	cfg        Config
	summarizer Summarizer
	remove     func()
	// count is the per-agent counter of consecutive overflow recoveries.
	count int
	// associated: an overflow was seen, so any model message resets the
	// counter.
	associated bool
	// Warn receives DSH's warnings; nil drops them.
	Warn func(string)
	// hooks are c's listener and observers, made once for c.
	hooks *compactorHooks
}

// compactorHooks are a compactor's method values, handed to its agent.
type compactorHooks struct {
	handle   loop.RequestErrorListener
	status   func(loop.Status)
	appended func(*session.Event)
}

// Install registers the overflow listener on the agent, after the
// listeners registered before it, and the counter's resets.
func Install(a *loop.Agent, cfg Config, s Summarizer) *Compactor {
	return InstallIn(&Compactor{}, a, cfg, s)
}

// InstallIn is Install with c the compactor: a worker's, made again in
// place for each agent (one that must no longer run), whose listener and
// observers are made once.
func InstallIn(c *Compactor, a *loop.Agent, cfg Config, s Summarizer) *Compactor {
	hooks := c.hooks
	if hooks == nil {
		hooks = &compactorHooks{handle: c.Handle, status: c.idle, appended: c.appended}
	}
	*c = Compactor{agent: a, cfg: cfg, summarizer: s, hooks: hooks}
	c.remove = a.AddRequestErrorListener("compaction-basic", hooks.handle)
	a.OnStatus(hooks.status)
	a.OnAppend(hooks.appended)
	return c
}

// idle resets the counter when the agent goes idle.
func (c *Compactor) idle(st loop.Status) {
	if st == loop.StatusIdle {
		c.count = 0
	}
}

// appended resets the counter at a model message, once an overflow was
// seen.
func (c *Compactor) appended(e *session.Event) {
	if _, ok := e.Data.(*session.AssistantMessage); ok && c.associated {
		c.count = 0
	}
}

// Remove unregisters the overflow listener; the counter's resets stay, so
// a caller that re-registers Handle (under its own name or wrapped) keeps
// the plugin's behaviour.
func (c *Compactor) Remove() { c.remove() }

// Count is the current counter.
func (c *Compactor) Count() int { return c.count }

// Handle is the overflow listener (docs/dsh.md#overflow-listener).
func (c *Compactor) Handle(ev *loop.RequestError, next loop.Next) (loop.Action, error) {
	if ev.Failure.Code != CodeOverflow || ev.Signal.Err() != nil {
		return next()
	}
	c.associated = true
	target, ok := routedTarget(ev.Agent.Log())
	if !ok {
		return next()
	}
	if c.count >= c.cfg.MaxOverflowRetries {
		return next()
	}
	generation := ev.Agent.Surface().ReplaceGeneration()
	err := c.compact(ev, target)
	advanced := ev.Agent.Surface().ReplaceGeneration() > generation
	switch {
	case err != nil && ev.Signal.Err() == nil && advanced:
		c.warn("compaction failed after pruning; retrying from the replacement surface: " + loop.ErrorChain(err))
	case err != nil:
		if ev.Signal.Err() != nil {
			c.warn("compaction failed; cancellation prevents retry: " + loop.ErrorChain(err))
		} else {
			c.warn("compaction failed; preserving the original request error: " + loop.ErrorChain(err))
		}
		return next()
	case ev.Signal.Err() != nil || !advanced:
		return next()
	}
	c.count++
	return loop.Retry, nil
}

func (c *Compactor) warn(msg string) {
	if c.Warn != nil {
		c.Warn(msg)
	}
}

// routedTarget is the provider and model of the latest request/header.
func routedTarget(log *session.Log) (loop.Target, bool) {
	events := log.Events()
	for i := len(events) - 1; i >= 0; i-- {
		if h, ok := events[i].Data.(*session.RequestHeader); ok {
			t := loop.Target{Provider: h.Header.Config.Provider, Model: h.Header.Config.Model}
			return t, t.Provider != "" && t.Model != ""
		}
	}
	return loop.Target{}, false
}

// errBusy: another compaction is open.
var errBusy = errors.New("compaction busy: another compaction is in progress")

// compact runs the overflow compaction (docs/dsh.md#overflow-compaction):
// prune, select the range, then one region transaction.
func (c *Compactor) compact(ev *loop.RequestError, target loop.Target) error {
	a := ev.Agent
	if c.cfg.Pruner != nil {
		c.prune(a)
	}
	nodes := a.Surface().Nodes()
	keepFrom := newestUnit(nodes)
	if keepFrom <= 0 {
		return nil // nothing to summarize
	}
	shadowed := nodes[:keepFrom]
	if openCompaction(a.Log()) {
		return errBusy
	}
	turn := a.OpenTurn()
	if turn == 0 {
		return errors.New("compaction needs an open turn")
	}
	id := a.IDs().NewID(loop.IDCompaction)
	start := loop.AppendCopy(a, &session.CompactionStart{CompactionID: id, Turn: &turn})
	fail := func(err error) error {
		loop.AppendCopy(a, &session.CompactionEnd{CompactionID: id, Turn: &turn, Error: loop.ErrorChain(err)})
		return err
	}
	generation, size := a.Surface().ReplaceGeneration(), len(a.Surface().Nodes())
	summary, err := c.summarizer.Summarize(ev.Signal, SummaryRequest{Provider: target.Provider, Model: target.Model,
		MaxTokens: c.cfg.MaxTokens, Messages: append([]loop.SurfaceNode(nil), shadowed...)})
	if err != nil {
		return fail(err)
	}
	shadowedTokens := 0
	seqs := make([]int64, len(shadowed))
	for i, n := range shadowed {
		shadowedTokens += n.Tokens
		seqs[i] = n.Seq
	}
	framed := loop.TextBlocksTokens(checkpointOpening, summary.Text, checkpointClosing) // the checkpoint's blocks
	if framed >= shadowedTokens {
		return fail(fmt.Errorf("summary is not smaller than the shadowed content (%d estimated framed tokens >= %d)", framed, shadowedTokens))
	}
	if a.Surface().ReplaceGeneration() != generation || len(a.Surface().Nodes()) != size {
		return fail(errors.New("the surface changed during compaction"))
	}
	blocks := summaryBlocks(summary.Text)
	maxTokens := c.cfg.MaxTokens
	sum := loop.AppendCopy(a, &session.CompactionSummary{CompactionID: id, Summary: blocks, RawOutput: blocks, LLMStreamCall: true,
		ShadowedRange: session.SeqRange{Start: seqs[0], End: seqs[len(seqs)-1]}, ShadowedSeqs: seqs,
		ShadowedTokenCount: int64(shadowedTokens), Provider: target.Provider, Model: target.Model,
		MaxTokens: &maxTokens, Usage: usage(summary)})
	a.AppendSurface(&session.UserMessage{
		Content: checkpointContent(summary.Text),
		Source:  session.Source{Kind: "plugin", Plugin: "compact", CompactionID: id},
		Role:    "user",
		ID:      a.IDs().NewID(loop.IDMessage),
	}, session.SurfaceOp{Op: session.SurfaceReplace, Start: seqs[0], End: seqs[len(seqs)-1]},
		append([]int64{start.Seq, sum.Seq}, seqs...))
	loop.AppendCopy(a, &session.CompactionEnd{CompactionID: id, Turn: &turn})
	return nil
}

// newestUnit is the index where the newest indivisible unit begins: an
// assistant message with tool calls is never separated from its results.
func newestUnit(nodes []loop.SurfaceNode) int {
	i := len(nodes) - 1
	for i > 0 && nodes[i].Kind == loop.NodeTool {
		i--
	}
	return max(i, 0)
}

// openCompaction reports an unmatched compaction/start after the last
// session/end-seed: the newest of those three events is a start.
func openCompaction(log *session.Log) bool {
	events := log.Events()
	for i := len(events) - 1; i >= 0; i-- {
		switch events[i].Data.(type) {
		case *session.SessionEndSeed, *session.CompactionEnd:
			return false
		case *session.CompactionStart:
			return true
		}
	}
	return false
}
