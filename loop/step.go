package loop

import (
	"errors"
	"fmt"
	"io"

	"github.com/turnsim/turnsim/loop/session"
)

// runStep runs the open step's attempts on the configured attempt path.
func (a *Agent) runStep() (stepOutcome, error) {
	if a.cfg.Attempts != nil {
		return a.cfg.Attempts(Step{a})
	}
	return RunAttempts(Step{a})
}

// RunAttempts is the agent's attempt path: attempts until one succeeds or
// the waterfall lets a failure end the turn (docs/dsh.md#attempts). Retries
// stay in the same turn and step: no new step/start, no pre-step, no status
// change; each retry prepares its request again, signal checks included.
func RunAttempts(st Step) (StepOutcome, error) {
	for attempt := 1; ; attempt++ {
		req, route, err := st.Prepare(attempt)
		if err != nil {
			return outcomeNone, err
		}
		at, err := st.Stream(req, route)
		if err != nil {
			return outcomeNone, err
		}
		if !at.Failed() {
			return st.Succeed(at)
		}
		retry, err := st.Settle(st.Recover(at))
		if !retry {
			return outcomeNone, err
		}
	}
}

// prepare builds an attempt's request: the route, the header and context
// records, and the derived messages.
func (a *Agent) prepare(attempt int) (*Request, *Route, error) {
	target := a.cfg.Target
	if a.cfg.RequestHook != nil {
		target = a.cfg.RequestHook(a.turn, a.step, attempt, target)
	}
	if err := a.check(); err != nil {
		return nil, nil, err
	}
	if target.Provider == "" || target.Model == "" {
		return nil, nil, errors.New("no provider or model is configured for the request")
	}
	route := a.cfg.Routes[target.Provider] // nil: NO_ADAPTER, tolerated here
	if err := a.check(); err != nil {
		return nil, nil, err
	}
	switch {
	case !a.requested:
		reason := "initial"
		if a.hasHeader() {
			reason = "resume"
		}
		a.appendHeader(target, reason)
	case target != a.lastHeader:
		a.appendHeader(target, "change")
	}
	a.requested = true
	ctx := requestContext{provider: target.Provider, model: target.Model}
	if route != nil {
		ctx.window = route.ContextWindow
	}
	if ctx != a.lastContext {
		rc := session.RequestContext{Provider: ctx.provider, Model: ctx.model}
		if ctx.window > 0 {
			rc.ContextWindow = a.log.KeepInt(ctx.window)
		}
		AppendCopy(a, &rc)
		a.lastContext = ctx
	}
	if err := a.check(); err != nil {
		return nil, nil, err
	}
	nodes := a.surface.Nodes()
	req := a.requests.Put(&Request{Turn: a.turn, Step: a.step, Attempt: attempt, Provider: target.Provider, Model: target.Model,
		MaxTokens: a.cfg.MaxTokens, Messages: nodes[:len(nodes):len(nodes)], Tokens: a.surface.Tokens(), Generation: a.surface.ReplaceGeneration()})
	return req, route, nil
}

func (a *Agent) hasHeader() bool {
	for _, e := range a.log.Events() {
		if _, ok := e.Data.(*session.RequestHeader); ok {
			return true
		}
	}
	return false
}

func (a *Agent) appendHeader(t Target, reason string) {
	AppendCopy(a, &session.RequestHeader{Header: session.RequestHeaderBody{Config: session.RequestConfig{Provider: t.Provider, Model: t.Model}}, Reason: reason})
	a.lastHeader = t
}

// attemptResult is a streamed attempt: its chunks and how it finished.
// attemptMemory is an attempt with its result, made in one allocation.
type attemptMemory struct {
	Attempt
	result attemptResult
}

type attemptResult struct {
	chunks    []int64 // seqs of this attempt's chunks
	chunkBuf  [8]int64
	assembler assembler
	finish    session.StreamChunk
}

// sources are the seqs a message of the attempt cites: nil when it
// streamed no chunk, as the log writes a citation only when there is one.
func (r *attemptResult) sources() []int64 {
	if len(r.chunks) == 0 {
		return nil
	}
	return r.chunks
}

// stream runs one attempt. Whatever the model throws becomes the attempt's
// finish chunk at the adapter boundary
// (docs/dsh.md#which-failures-recover); a cancelled turn takes the
// interrupted path instead and never logs that finish.
func (a *Agent) stream(req *Request, route *Route) (*Attempt, error) {
	// The attempt and its result in one piece of memory.
	at := a.attempts.New()
	at.Attempt = Attempt{req: req, route: route, res: &at.result}
	res := &at.result
	// An answer streams a handful of chunks: their seqs fit in the
	// result itself, without a slice grown chunk by chunk.
	res.chunks = res.chunkBuf[:0]
	var s Stream
	var err error
	if route == nil {
		err = &LLMError{Failure: session.LlmFailure{Code: "NO_ADAPTER",
			Message: fmt.Sprintf("no adapter registered for provider %q", req.Provider)}}
	} else {
		s, err = a.ports.Model.Stream(a.ctx, req)
	}
	finished := false
	for !finished {
		var c session.StreamChunk
		if err == nil {
			c, err = s.Next(a.ctx)
		}
		switch {
		case err == io.EOF:
			// A stream without a finish chunk counts as stop; only the
			// chunks it sent are logged.
			res.finish = session.StreamChunk{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishStop}}
			finished = true
			continue
		case err != nil:
			c = a.boundaryFinish(err)
		}
		if a.signalled() {
			return nil, a.interrupt(req, res)
		}
		e := AppendCopy(a, &session.AssistantChunk{Turn: a.turn, Step: a.step, Chunk: c})
		res.chunks = append(res.chunks, e.Seq)
		res.assembler.feed(&c)
		if c.Type == session.ChunkFinish {
			res.finish = c
			finished = true
		}
	}
	if a.signalled() {
		if res.finish.Failed() {
			// The attempt had already failed when the cancel was seen:
			// a failed attempt's chunks are never cited by a message
			// (docs/dsh.md#attempts), so it ends like a cancel after the
			// waterfall (docs/dsh.md#after-the-waterfall), without an
			// interrupted message.
			return nil, errAborted
		}
		return nil, a.interrupt(req, res)
	}
	return &at.Attempt, nil
}

// boundaryFinish is the runtime's final adapter boundary: a thrown failure
// becomes an aborted or error finish chunk.
func (a *Agent) boundaryFinish(err error) session.StreamChunk {
	f := failureOf(err)
	kind := session.FinishError
	if f.Code == "ABORTED" {
		kind = session.FinishAborted
	}
	return session.StreamChunk{Type: session.ChunkFinish, Reason: a.log.KeepReason(&session.FinishReason{Kind: kind, Failure: a.log.KeepFailure(&f)})}
}

// interrupt writes the interrupted message of a cancelled attempt when it
// streamed non-blank text or reasoning, and ends the step.
func (a *Agent) interrupt(req *Request, res *attemptResult) error {
	if blocks := res.assembler.interruptedBlocks(); len(blocks) > 0 {
		msg := &session.AssistantMessage{Turn: a.turn, Step: a.step, Interrupted: true,
			Message: a.assistantBody(req, blocks), Usage: res.assembler.usage}
		a.AppendSurface(msg, session.SurfaceOp{Op: session.SurfaceAppend}, res.sources())
	}
	return errAborted
}

func (a *Agent) assistantBody(req *Request, blocks []block) session.AssistantBody {
	return session.AssistantBody{Role: "assistant", Content: encodeBlocks(a.log, blocks),
		Source: session.Source{Kind: "model", Provider: req.Provider, Model: req.Model},
		ID:     a.ports.IDs.NewID(IDMessage)}
}

// succeed appends the attempt's message and runs its tool calls.
func (a *Agent) succeed(req *Request, res *attemptResult) (stepOutcome, error) {
	blocks := res.assembler.blocks()
	maxTokens := res.finish.Reason.Kind == session.FinishMaxTokens
	if maxTokens {
		blocks = withoutToolCalls(blocks)
	}
	body := a.assistantBody(req, blocks)
	body.Source.ReplayState = res.finish.ReplayState
	text := blocksText(blocks)
	var callIDs []string // nil without calls, as the surface reads a message (apply)
	if n := countToolCalls(blocks); n > 0 {
		callIDs = a.log.StringsRoom(n)
		for _, b := range blocks {
			if b.Type == "tool-call" {
				callIDs = append(callIDs, b.ID)
			}
		}
	}
	appendNode(a, &session.AssistantMessage{Turn: a.turn, Step: a.step, Message: body, Usage: res.assembler.usage},
		res.sources(), SurfaceNode{Kind: NodeAssistant, Text: text, Tokens: blocksTokens(blocks), ToolCalls: callIDs})
	if maxTokens {
		return outcomeMaxTokens, nil
	}
	if len(callIDs) == 0 {
		return outcomeCompleted, nil
	}
	a.runTools(blocks)
	return outcomeNone, nil
}

// runTools runs the blocks' tool calls in model order; after a cancel the
// remaining calls get a synthetic call and an aborted result.
func (a *Agent) runTools(blocks []block) {
	for _, c := range blocks {
		if c.Type != "tool-call" {
			continue
		}
		call := ToolCall{Turn: a.turn, Step: a.step, ID: c.ID, Name: c.Name, Arguments: c.Text}
		callEvent := AppendCopy(a, &session.ToolCall{Turn: a.turn, Step: a.step, CallID: c.ID, Name: c.Name, Arguments: c.Text})
		var out ToolOutcome
		var toolErr *session.ToolError
		if a.signalled() {
			out = ToolOutcome{Text: "Error: tool call aborted before dispatch", IsError: true}
			toolErr = &session.ToolError{Name: "AbortError", Code: "ABORTED_BEFORE_DISPATCH"}
		} else {
			out = a.ports.Tools.Run(a.ctx, call)
			if a.signalled() {
				// DSH's tool runtime: cancellation supersedes whatever the
				// body returned (toolAbortedResult, 0.1.0-rc.8).
				out = ToolOutcome{Text: "Error: tool call aborted", IsError: true}
				toolErr = &session.ToolError{Name: "AbortError", Code: "ABORTED"}
			}
		}
		appendNode(a, &session.ToolResult{Turn: a.turn, Step: a.step, Error: toolErr, Message: session.Keep(a.log, &session.UserMessage{
			Content: toolResultContent(a.log, c.ID, out),
			Source:  session.Source{Kind: "tool", CallID: c.ID},
			Role:    "user",
			ID:      a.ports.IDs.NewID(IDMessage),
		})}, append(a.log.SeqsRoom(1), callEvent.Seq), SurfaceNode{Kind: NodeTool, Text: out.Text, Tokens: ToolResultTokens(out.Text), CallID: c.ID})
	}
}
