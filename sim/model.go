package sim

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/turnsim/turnsim/internal/arena"
	"github.com/turnsim/turnsim/loop"
	"github.com/turnsim/turnsim/loop/compact"
	"github.com/turnsim/turnsim/loop/session"
	"github.com/turnsim/turnsim/oracle"
)

// RequestRecord is one request the scripted model received.
type RequestRecord struct {
	TimeMs   float64 // virtual ms when dispatched
	Turn     int
	Step     int
	Attempt  int
	Provider string
	// Messages are the seqs of the surface nodes the request carried.
	Messages []int64
}

// okText is the answer past the scenario's list; usageJSON every answer's
// usage. Shared and never written: an answer's chunks only read them.
var (
	okText    = "ok"
	usageJSON = []byte(`{"inputTokens":12,"outputTokens":3}`)
)

// scriptedModel answers requests from the scenario's list, then "ok".
type scriptedModel struct {
	w    *World
	next int
	seqs messageSeqs
}

func (m *scriptedModel) Stream(ctx context.Context, req *loop.Request) (loop.Stream, error) {
	s := m.w.scenario
	now := ms(m.w.clock.Elapsed())
	tokens := req.Tokens
	var out Outcome
	n := m.next
	switch outage := s.OutageAt(now); {
	case outage != nil:
		f := outage.Fail
		out = Outcome{Fail: &f}
	case s.EnforceContextWindow && tokens > s.ContextWindow:
		out = Outcome{Fail: &session.LlmFailure{Code: "CONTEXT_WINDOW_EXCEEDED", Status: ptr(400),
			Message: fmt.Sprintf("request of %d tokens exceeds the model's context window of %d", tokens, s.ContextWindow)}}
	default:
		out = Outcome{Text: &okText}
		if m.next < len(s.Requests) {
			out = s.Requests[m.next]
		}
		m.next++
	}
	rec := RequestRecord{TimeMs: ms(m.w.clock.Elapsed()), Turn: req.Turn, Step: req.Step, Attempt: req.Attempt, Provider: req.Provider,
		Messages: m.seqs.of(req, m.w.agent.Log())}
	m.w.requests = append(m.w.requests, rec)
	m.w.answeringThrows = out.ListenerThrows
	m.w.facts.Requests = append(m.w.facts.Requests, oracle.Request{Seq: int64(m.w.agent.Log().Len()), Order: m.w.nextOrder(),
		Turn: req.Turn, Step: req.Step, Attempt: req.Attempt, Messages: rec.Messages})
	m.w.point(AfterModelCall)
	return play(&m.w.room, out, n, &m.w.clock, s.StreamIdleTimeoutMs), nil
}

// messageSeqs keeps the seqs of the requests' messages with their common
// prefixes shared: a request mostly carries the previous one's history
// and a few new messages, and copying each history whole made a long
// scenario's memory grow with the square of its turns.
type messageSeqs struct {
	// seqs are the longest history of the current generation; every
	// record of it is a prefix, cut to its own length and capacity, so
	// appending here never shows in an earlier record.
	seqs       []int64
	generation int
}

// of is the seqs of req's messages. Their arrays are the log's (its
// storage's seqs), as the records that cite them live as long as it.
func (s *messageSeqs) of(req *loop.Request, log *session.Log) []int64 {
	if req.Generation < 0 || req.Generation != s.generation || len(req.Messages) < len(s.seqs) {
		// Another history: a fresh array, so that no earlier record changes.
		s.seqs, s.generation = log.SeqsRoom(len(req.Messages)), req.Generation
	}
	if n := len(req.Messages); n > cap(s.seqs) {
		// Grown into a fresh array: the records before keep theirs.
		s.seqs = append(log.SeqsRoom(max(2*cap(s.seqs), n)), s.seqs...)
	}
	for _, node := range req.Messages[len(s.seqs):] {
		s.seqs = append(s.seqs, node.Seq)
	}
	return s.seqs[:len(s.seqs):len(s.seqs)]
}

// Play is the stream of one scripted outcome, answering the request with
// index request (from 0): its latency, its chunks, then its end — a
// failure, the idle watchdog's TIMEOUT for a hang (Forever without a
// watchdog), or the end of the stream. Its waits are on clock: the world's
// virtual clock, or a harness's own (package baseline).
func Play(out Outcome, request int, clock loop.Clock, idleTimeoutMs float64) loop.Stream {
	return play(nil, out, request, clock, idleTimeoutMs)
}

// play is Play with the chunks made in a world's room (nil: memory of
// their own).
func play(room *chunkRoom, out Outcome, request int, clock loop.Clock, idleTimeoutMs float64) loop.Stream {
	var s *scriptedStream
	if room != nil {
		s = room.streams.New()
	} else {
		s = new(scriptedStream)
	}
	*s = scriptedStream{clock: clock, idleTimeoutMs: idleTimeoutMs, out: out}
	s.chunks = room.chunksOf(&s.out, request)
	return s
}

// scriptedStream plays one outcome: latency, its chunks, then the end.
type scriptedStream struct {
	clock         loop.Clock
	idleTimeoutMs float64
	out           Outcome
	chunks        []session.StreamChunk
	i             int
	waited        bool
	err           loop.LLMError
}

func (s *scriptedStream) Next(ctx context.Context) (session.StreamChunk, error) {
	if !s.waited {
		s.waited = true
		if err := s.clock.Sleep(ctx, duration(s.out.LatencyMs)); err != nil {
			return session.StreamChunk{}, err
		}
	}
	switch {
	case s.i < len(s.chunks):
		c := s.chunks[s.i]
		s.i++
		return c, nil
	case s.out.Hang:
		// The stream stalls (after its first chunks, if any); the
		// adapter's idle watchdog ends it.
		idle := Forever
		if s.idleTimeoutMs > 0 {
			idle = duration(s.idleTimeoutMs)
			if s.i == 0 {
				// The watchdog is per read (docs/dsh.md#deepseek-adapter):
				// a first read that never gets a byte has waited since the
				// request, its latency included (DSH's adapter times it out
				// idle after the request; found by --sut both).
				idle = max(idle-duration(s.out.LatencyMs), 0)
			}
		}
		if err := s.clock.Sleep(ctx, idle); err != nil {
			return session.StreamChunk{}, err
		}
		// DSH's DeepSeek adapter's wording (observed on 0.1.0-rc.8).
		return session.StreamChunk{}, &loop.LLMError{Failure: session.LlmFailure{Code: "TIMEOUT",
			Message: fmt.Sprintf("DeepSeek stream idle timeout after %vms", s.idleTimeoutMs)}}
	case s.out.Fail != nil:
		s.err = loop.LLMError{Failure: *s.out.Fail} // the stream's own memory: one failure a stream
		return session.StreamChunk{}, &s.err
	}
	return session.StreamChunk{}, io.EOF
}

// OutageAt is the outage covering virtual time ms, if any.
func (s *Scenario) OutageAt(ms float64) *Outage {
	for i := range s.Outages {
		if o := &s.Outages[i]; ms >= o.FromMs && ms < o.ToMs {
			return o
		}
	}
	return nil
}

// chunksOf is what an outcome streams; a failure or a hang streams the
// first AfterChunks chunks of its Stream (default: a text response).
func (r *chunkRoom) chunksOf(out *Outcome, request int) []session.StreamChunk {
	if out.Fail != nil || out.Hang {
		stream := out.Stream
		if stream == nil {
			stream = &partialOutput
		}
		if stream.Text != nil && *stream.Text == "" {
			return nil // an empty stream streams nothing before its failure
		}
		all := r.chunksOf(stream, request)
		return all[:min(out.AfterChunks, len(all))]
	}
	usage := session.StreamChunk{Type: session.ChunkUsage, Usage: usageJSON}
	switch {
	case out.Text != nil && *out.Text == "":
		// DSH's DeepSeek adapter turns a completion without content into an
		// in-band failure (docs/dsh.md#deepseek-adapter): its usage, then
		// an error finish (seen on 0.1.0-rc.8 for an empty content delta).
		return append(r.chunks(2), usage, session.StreamChunk{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishError,
			Failure: &session.LlmFailure{Code: "EMPTY_RESPONSE", Message: "model returned a completed response with no content"}}})
	case out.Text != nil:
		return append(r.textBlock(0, *out.Text), usage, session.StreamChunk{Type: session.ChunkFinish, Reason: &finishStop})
	case out.MaxTokens != nil:
		return append(r.textBlock(0, *out.MaxTokens), usage, session.StreamChunk{Type: session.ChunkFinish, Reason: &finishMaxTokens})
	case len(out.ToolCalls) > 0:
		cs := r.chunks(3*len(out.ToolCalls) + 2)
		for k := range out.ToolCalls {
			call := &out.ToolCalls[k]
			id := r.toolCallID(request, k)
			name := &call.Name // the scenario's: a chunk's name is read, never written
			// {"type":"tool-call","id","name","arguments"}, encoded by hand
			// as encoding/json would (session.AppendString is fuzzed
			// against it): the reflection was a tenth of a run.
			const head, idKey, nameKey, argumentsKey = `{"type":"tool-call","id":`, `,"name":`, `,"arguments":`, `}`
			block := r.bytes(len(head) + session.QuotedLen(id) + len(idKey) + session.QuotedLen(*name) + len(nameKey) +
				session.QuotedLen(call.Arguments) + len(argumentsKey))
			block = append(block, head...)
			block = session.AppendString(block, id)
			block = append(block, idKey...)
			block = session.AppendString(block, *name)
			block = append(block, nameKey...)
			block = append(session.AppendString(block, call.Arguments), argumentsKey...)
			cs = append(cs,
				session.StreamChunk{Type: session.ChunkBlockStart, Index: k, BlockType: "tool-call"},
				session.StreamChunk{Type: session.ChunkToolCallDelta, Index: k, ID: id, Name: name, ArgumentsDelta: call.Arguments},
				session.StreamChunk{Type: session.ChunkBlockEnd, Index: k, Block: block})
		}
		return append(cs, usage, session.StreamChunk{Type: session.ChunkFinish, Reason: &finishToolCalls})
	}
	return nil
}

// The finish reasons of scripted answers, shared by their chunks: a
// reason is read, never changed.
var (
	finishStop      = session.FinishReason{Kind: session.FinishStop}
	finishMaxTokens = session.FinishReason{Kind: session.FinishMaxTokens}
	finishToolCalls = session.FinishReason{Kind: session.FinishToolCalls}
	partialOutput   = Outcome{Text: ptr("partial output")}
)

// textBlock is a text block's three chunks, in a slice with room for the
// usage and finish chunks an answer appends.
func (r *chunkRoom) textBlock(index int, text string) []session.StreamChunk {
	const head, tail = `{"type":"text","text":`, `}`
	block := r.bytes(len(head) + session.QuotedLen(text) + len(tail))
	block = append(session.AppendString(append(block, head...), text), tail...)
	return append(r.chunks(5),
		session.StreamChunk{Type: session.ChunkBlockStart, Index: index, BlockType: "text"},
		session.StreamChunk{Type: session.ChunkTextDelta, Index: index, Text: text},
		session.StreamChunk{Type: session.ChunkBlockEnd, Index: index, Block: block})
}

// chunkRoom is where a world makes the chunks its scripted model streams:
// the chunks in one run of them, reused run after run with the world's
// storage, and their blocks' bytes in the log's room. A stream's chunks
// are copied into the log's events as they are read, so a run's streams
// can share one run of chunks. A nil room makes each in memory of its own.
type chunkRoom struct {
	run *arena.Slices[session.StreamChunk]
	log *session.Log
	// streams are where the streams live (nil: each on its own); a run
	// hands none out twice, so a stream the loop still holds is never
	// written over.
	streams *arena.Arena[scriptedStream]
	// names are the worker's names made before (nil: none kept).
	names *names
}

// chunks is an empty slice with room for n chunks.
func (r *chunkRoom) chunks(n int) []session.StreamChunk {
	if r == nil || r.run == nil {
		return make([]session.StreamChunk, 0, n)
	}
	return r.run.Room(n, 32)
}

// bytes is an empty slice with room for n bytes an event keeps.
func (r *chunkRoom) bytes(n int) []byte {
	if r == nil || r.log == nil {
		return make([]byte, 0, n)
	}
	return r.log.Room(n)
}

func toolCallID(request, k int) string { return fmt.Sprintf("call-%d-%d", request+1, k+1) }

// toolCallID is toolCallID, made once for the worker's runs.
func (r *chunkRoom) toolCallID(request, k int) string {
	if r == nil {
		return toolCallID(request, k)
	}
	// The kind is no id's kind (those come from NewID) nor an input's.
	return r.names.of(nameKey{kind: "\x00call", n: request, m: k}, func() string { return toolCallID(request, k) })
}

// scriptedTools answers each call with the result its request scripted.
type scriptedTools struct{ w *World }

func (t *scriptedTools) Run(ctx context.Context, call loop.ToolCall) loop.ToolOutcome {
	spec := t.w.toolSpec(call.ID)
	if err := t.w.clock.Sleep(ctx, duration(spec.LatencyMs)); err != nil {
		return loop.ToolOutcome{Text: "Error: tool call aborted: " + err.Error(), IsError: true}
	}
	return loop.ToolOutcome{Text: spec.Result, IsError: spec.IsError}
}

// scriptedSummarizer answers compactions from the scenario's list.
type scriptedSummarizer struct {
	w    *World
	next int
}

func (s *scriptedSummarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (compact.Summary, error) {
	out := SummaryOutcome{Text: ptr("ok")}
	if s.next < len(s.w.scenario.Summaries) {
		out = s.w.scenario.Summaries[s.next]
	}
	s.next++
	s.w.summaries++
	return PlaySummary(ctx, out, &s.w.clock)
}

// PlaySummary is the summarizer's answer to one compaction, given its
// scripted outcome: its latency on clock, then the summary or the failure.
// A cancel during the latency fails as DSH's DeepSeek adapter fails a
// request its caller aborted.
func PlaySummary(ctx context.Context, out SummaryOutcome, clock loop.Clock) (compact.Summary, error) {
	if err := clock.Sleep(ctx, duration(out.LatencyMs)); err != nil {
		return compact.Summary{}, &loop.LLMError{Failure: session.LlmFailure{Code: "ABORTED", Message: "DeepSeek request aborted by caller"}}
	}
	if out.Fail != nil {
		return compact.Summary{}, fmt.Errorf("%s", *out.Fail)
	}
	return compact.Summary{Text: *out.Text, InputTokens: 20, OutputTokens: loop.EstimateTokens(*out.Text)}, nil
}

func ptr[T any](v T) *T { return &v }

// duration converts virtual ms, saturating: inputs are bounded (package
// limits), but a sum of them must not wrap around to a negative time.
func duration(ms float64) time.Duration {
	if ns := ms * float64(time.Millisecond); ns < float64(Forever) {
		return time.Duration(ns)
	}
	return Forever
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ToolCallID is the id of the kth tool call (from 0) of the answer to the
// request with index request.
func ToolCallID(request, k int) string { return toolCallID(request, k) }
