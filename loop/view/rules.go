package view

import (
	"slices"

	"github.com/turnsim/turnsim/loop/session"
)

// TurnErrorRule decides which error turns show their turn-error node.
type TurnErrorRule string

const (
	// EveryErrorTurn is DSH 0.1.1-rc.2's rule
	// (docs/dsh.md#turn-error-node): every error-reason turn/end shows its
	// turn-error node, whatever retry history the turn has, beside its
	// retry rows.
	EveryErrorTurn TurnErrorRule = ""
	// HiddenByRetry is the rule DSH 0.1.0-rc.8's released Web UI renders
	// by (@deepseek-ai/dsh-client-ui-conversation, conversation-nodes/
	// turn-error.ts): a turn that owns a retry chain — the window holds an
	// llm/retry or llm/retry-started naming it — hides its turn-error
	// node. An exhausted turn then shows "Retried model request (n/n)" and
	// no error at all; DSH's second design note retires the rule
	// (docs/dsh.md#design-notes).
	HiddenByRetry TurnErrorRule = "dsh-0.1.0-rc.8"
)

// TurnErrorRules are the rules, for flags and messages.
var TurnErrorRules = []TurnErrorRule{EveryErrorTurn, HiddenByRetry}

// Options choose the view's rules.
type Options struct {
	TurnErrors TurnErrorRule
}

// DeriveWith is Derive under a rule other than EveryErrorTurn.
func DeriveWith(events []session.Event, o Options) Nodes {
	nodes := Derive(events)
	if o.TurnErrors != HiddenByRetry {
		return nodes
	}
	retried := map[int]bool{}
	for i := range events {
		switch p := events[i].Data.(type) {
		case *session.LLMRetry:
			retried[p.Turn] = true
		case *session.LLMRetryStarted:
			retried[p.Turn] = true
		}
	}
	nodes.TurnErrors = slices.DeleteFunc(nodes.TurnErrors, func(n TurnError) bool { return retried[n.Turn] })
	return nodes
}
