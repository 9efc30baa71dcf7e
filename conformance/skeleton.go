// Package conformance compares turnsim's model with the real DSH: what a
// scenario can be on DSH's wire and web API, the overlay that configures
// DSH like it, the driver that puts its inputs and world actions through
// a DSH web host, and the recovery skeleton both sides must share.
package conformance

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
)

// Landing is where a world action landed: before the event with seq
// BeforeSeq.
type Landing struct {
	BeforeSeq int64
	What      string
}

// Side is one side of a comparison: a session log, where its world
// actions landed, what its model requests carried, and the triggers that
// never fired.
type Side struct {
	Events  []session.Event
	Actions []Landing
	// Requests are the conversation requests' messages, one tag each
	// (RequestTags).
	Requests  [][]string
	Summaries int
	Unfired   []string
}

// Lines is a side's skeleton: the log's skeleton with the world actions
// in place, then each request's messages, the request counts and the
// triggers that never fired.
func (s *Side) Lines() []string {
	out := Skeleton(s.Events, s.Actions)
	for i, tags := range s.Requests {
		out = append(out, fmt.Sprintf("request %d: %s", i+1, strings.Join(tags, ", ")))
	}
	out = append(out, fmt.Sprintf("requests: %d conversation, %d summary", len(s.Requests), s.Summaries))
	for _, f := range s.Unfired {
		out = append(out, "never ran: "+f)
	}
	return out
}

// Skeleton is a log's recovery skeleton, one line per event that recovery
// and the inbox are made of: turn and step boundaries, inbox splices, user
// messages, each attempt's finish, retry records, compaction events,
// assistant messages, tool calls and results, and turn ends; world
// actions are lines of their own where they landed. What legitimately
// differs between DSH and the model (ids, seqs, times, the system prompt,
// tools, title and policy events, request headers, providers' names) is
// left out.
func Skeleton(events []session.Event, actions []Landing) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	next := 0
	for i := range events {
		for next < len(actions) && actions[next].BeforeSeq <= events[i].Seq {
			add("» %s", actions[next].What)
			next++
		}
		switch p := events[i].Data.(type) {
		case *session.TurnStart:
			add("turn/start %d", p.Turn)
		case *session.TurnEnd:
			add("turn/end %s", reason(&p.Reason))
		case *session.StepStart:
			add("step/start %d.%d", p.Turn, p.Step)
		case *session.StepEnd:
			add("step/end %d.%d", p.Turn, p.Step)
		case *session.InboxSpliced:
			add("%s", splice(p))
		case *session.UserMessage:
			add("user/message %s", UserTag(p))
		case *session.AssistantChunk:
			if c := p.Chunk; c.Type == session.ChunkFinish && c.Reason != nil {
				if f := c.Reason.Failure; f != nil {
					add("finish %s %s %q", c.Reason.Kind, failure(f), normalize(f.Message))
				} else {
					add("finish %s", c.Reason.Kind)
				}
			}
		case *session.AssistantMessage:
			if p.Interrupted {
				add("assistant/message interrupted %s", AssistantTag(p.Message.Content))
			} else {
				add("assistant/message %s", AssistantTag(p.Message.Content))
			}
		case *session.ToolCall:
			add("tool/call %s", p.Name)
		case *session.ToolResult:
			code := "ok"
			if p.Error != nil {
				code = p.Error.Code
			}
			if events[i].SurfaceOp != nil && events[i].SurfaceOp.Op == session.SurfaceReplace {
				code += " (pruned)"
			}
			add("tool/result %s", code)
		case *session.LLMRetry:
			max := "-"
			if p.MaxRetries != nil {
				max = strconv.Itoa(*p.MaxRetries)
			}
			add("llm/retry %d max %s %s %s delay %s %s", p.Retry, max, p.Mode, p.PolicyKey,
				strconv.FormatFloat(p.DelayMs, 'f', -1, 64), p.Failure.Code)
		case *session.LLMRetryStarted:
			add("llm/retry-started %d", p.Retry)
		case *session.CompactionStart:
			add("compaction/start")
		case *session.CompactionSummary:
			add("compaction/summary %d nodes, %d tokens", len(p.ShadowedSeqs), p.ShadowedTokenCount)
		case *session.CompactionEnd:
			if p.Error != "" {
				add("compaction/end error %q", normalize(p.Error))
			} else {
				add("compaction/end")
			}
		case *session.CompactionPrune:
			add("compaction/prune")
		}
	}
	for ; next < len(actions); next++ {
		add("» %s", actions[next].What)
	}
	return out
}

func splice(p *session.InboxSpliced) string {
	switch {
	case p.Outcome != "":
		return fmt.Sprintf("inbox %s %s %d", p.Target, p.Outcome, p.RemovedCount)
	case len(p.Inserted) > 0:
		tags := make([]string, len(p.Inserted))
		for i := range p.Inserted {
			tags[i] = UserTag(&p.Inserted[i])
		}
		return fmt.Sprintf("inbox %s +%s", p.Target, strings.Join(tags, " +"))
	}
	return fmt.Sprintf("inbox %s claim %d", p.Target, p.RemovedCount)
}

func reason(r *session.TurnEndReason) string {
	switch {
	case r.Cause != nil:
		return r.Kind + " " + r.Cause.Kind
	case r.Error != nil:
		return r.Kind + " " + failure(r.Error) + " " + strconv.Quote(normalize(r.Error.Message))
	}
	return r.Kind
}

// failure is a failure's code, status and Retry-After.
func failure(f *session.LlmFailure) string {
	s := f.Code
	if f.Status != nil {
		s += fmt.Sprintf(" status %d", *f.Status)
	}
	if f.ProviderRetryAfterMs != nil {
		s += " retry-after " + strconv.FormatFloat(*f.ProviderRetryAfterMs, 'f', -1, 64)
	}
	return s
}

var loopbackURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)

// normalize replaces the fake provider's address, which changes per run.
func normalize(msg string) string {
	return loopbackURL.ReplaceAllString(msg, "{{baseURL}}")
}

// Join renders a skeleton for a diff.
func Join(lines []string) string { return strings.Join(lines, "\n") + "\n" }
