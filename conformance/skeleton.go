// Package conformance compares turnsim's model with the real DSH: the
// overlay that configures DSH like a scenario, and the recovery skeleton
// of a session log, which both sides must share.
package conformance

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/loop/session"
)

// Skeleton is a log's recovery skeleton, one line per event that recovery
// is made of: turn and step boundaries, each attempt's finish, retry
// records, compaction events, assistant messages, tool calls and results,
// and turn ends. What legitimately differs between DSH and the model (ids,
// seqs, times, the system prompt, tools, runtime-context and title events,
// inbox splices, request headers, providers' names) is left out.
func Skeleton(events []session.Event) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for i := range events {
		switch p := events[i].Data.(type) {
		case *session.TurnStart:
			add("turn/start %d", p.Turn)
		case *session.TurnEnd:
			add("turn/end %s", reason(&p.Reason))
		case *session.StepStart:
			add("step/start %d.%d", p.Turn, p.Step)
		case *session.StepEnd:
			add("step/end %d.%d", p.Turn, p.Step)
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
				add("assistant/message interrupted")
			} else {
				add("assistant/message")
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
			add("compaction/summary")
		case *session.CompactionEnd:
			if p.Error != "" {
				add("compaction/end error")
			} else {
				add("compaction/end")
			}
		case *session.CompactionPrune:
			add("compaction/prune")
		}
	}
	return out
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
