package loop

import (
	"errors"
	"fmt"

	"github.com/turnsim/turnsim/loop/session"
)

// stepOutcome is what a step concluded.
type stepOutcome int

const (
	outcomeNone      stepOutcome = iota // tool calls ran; the turn goes on
	outcomeCompleted                    // a reply without tool calls
	outcomeMaxTokens                    // the reply hit max tokens
)

// errAborted is returned where the loop observed its signal.
var errAborted = errors.New("loop: turn signal aborted")

// drive runs the driver: turns while they continue, then idle
// (docs/dsh.md#turns).
func (a *Agent) drive() {
	a.drives++
	for {
		a.newActivity()
		a.turn, a.step = a.lastTurn, 0
		a.setStatus(StatusRunning)
		for a.runTurn() {
		}
		a.setStatus(StatusIdle)
		if !(a.wakeRequested && a.inboxPending()) || a.disposed {
			a.wakeRequested = false
			return
		}
		a.wakeRequested = false
	}
}

// runTurn runs one turn and reports whether the driver continues with
// another.
func (a *Agent) runTurn() bool {
	if a.signalled() {
		return false // no turn/start
	}
	a.turn++
	a.lastTurn = a.turn
	a.openTurn = a.turn
	AppendCopy(a, &session.TurnStart{Turn: a.turn})
	reason, err := a.turnBody()
	if err != nil {
		if a.signalled() {
			reason = session.TurnEndReason{Kind: session.EndAborted, Cause: a.cause}
		} else {
			f := failureOf(err)
			reason = session.TurnEndReason{Kind: session.EndError, Error: a.log.KeepFailure(&f)}
		}
	}
	AppendCopy(a, &session.TurnEnd{Turn: a.turn, Reason: reason})
	a.openTurn = 0
	if err != nil {
		return false
	}
	if a.inboxPending() {
		a.newActivity()
		a.wakeRequested = false
		a.step = 0
		return true
	}
	return false
}

// turnBody runs the steps of a turn and returns its end reason.
func (a *Agent) turnBody() (session.TurnEndReason, error) {
	boundary := NextTurn
	outcome := outcomeNone
	hasOutcome := false
	steps := 0
	for {
		if a.signalled() {
			return session.TurnEndReason{}, errAborted
		}
		step := a.step + 1
		batch := a.claim(boundary)
		if a.cfg.Yield != nil {
			a.cfg.Yield()
		}
		// System prompt assembly and the pre-step waterfall are awaits
		// in DSH; their stand-ins decide nothing, but the signal is
		// checked after each. The default decision enters the claimed
		// messages and, when it changed, the runtime-context snapshot.
		if a.signalled() {
			return session.TurnEndReason{}, errAborted
		}
		if snapshot := a.context.project(a.cfg.RuntimeContext, a.ports.IDs); snapshot != nil {
			batch = append(batch, *snapshot)
		}
		if hasOutcome && len(batch) == 0 {
			break
		}
		if steps == 0 && len(batch) == 0 {
			return session.TurnEndReason{Kind: session.EndCompleted}, nil // a turn with no step
		}
		if a.signalled() {
			return session.TurnEndReason{}, errAborted
		}
		AppendCopy(a, &session.StepStart{Turn: a.turn, Step: step})
		a.step = step
		steps++
		for i := range batch {
			a.AppendSurface(&batch[i], session.SurfaceOp{Op: session.SurfaceAppend}, nil)
		}
		out, err := a.runStep()
		AppendCopy(a, &session.StepEnd{Turn: a.turn, Step: step})
		if err != nil {
			return session.TurnEndReason{}, err
		}
		// The turn's outcome becomes the step's, none included (a step
		// whose tools ran leaves the turn to go on, whatever an earlier
		// step concluded), unless it is max-tokens, which is sticky
		// (docs/dsh.md#turns, step 3; DSH's turnEnds = stepEnd). Found by
		// --sut both: the model kept an earlier step's outcome and ended a
		// turn whose steered step had called tools.
		if !hasOutcome || outcome != outcomeMaxTokens {
			outcome, hasOutcome = out, out != outcomeNone
		}
		if a.signalled() {
			return session.TurnEndReason{}, errAborted
		}
		if hasOutcome && len(a.nextStep) == 0 {
			// agent/turn-stopping: no listener here; check the signal.
			if a.signalled() {
				return session.TurnEndReason{}, errAborted
			}
			if len(a.nextStep) == 0 {
				break
			}
		}
		boundary = NextStep
	}
	if outcome == outcomeMaxTokens {
		return session.TurnEndReason{Kind: session.EndMaxTokens}, nil
	}
	return session.TurnEndReason{Kind: session.EndCompleted}, nil
}

// claim takes the batch of a step: all of next-step, and at a turn
// boundary the first next-turn message. The next-step splice comes first,
// and so do its messages: DSH's Inbox.claim returns "next-step input
// followed by the queued turn" (seen on 0.1.0-rc.8's web host: a steer
// left pending by an aborted turn enters the next turn before the prompt
// that starts it).
func (a *Agent) claim(boundary string) []session.UserMessage {
	// Each list is taken before its splice is logged (see Send).
	var steps, turn []session.UserMessage
	if len(a.nextStep) > 0 {
		steps, a.nextStep = a.nextStep, nil
		AppendCopy(a, &session.InboxSpliced{Target: NextStep, Start: 0, RemovedCount: len(steps)})
	}
	if boundary == NextTurn && len(a.nextTurn) > 0 {
		turn, a.nextTurn = a.nextTurn[:1:1], a.nextTurn[1:]
		AppendCopy(a, &session.InboxSpliced{Target: NextTurn, Start: 0, RemovedCount: 1})
	}
	if len(steps) == 0 {
		return turn // no copy: the common case, a prompt alone
	}
	return append(steps, turn...)
}

// failureOf is the LlmFailure a turn ends with: an LLM error's own, or
// UNKNOWN with the rendered cause chain.
func failureOf(err error) session.LlmFailure {
	if le, ok := err.(*LLMError); ok { // the common case, without errors.As's allocation
		return le.Failure
	}
	var le *LLMError
	if errors.As(err, &le) {
		return le.Failure
	}
	return session.LlmFailure{Message: message(err), Code: "UNKNOWN"}
}

// ErrorChain renders an error as DSH's errorChain does for the errors the
// model raises: an LLM error by its failure's message (its code is data,
// not text), anything else by its message.
func ErrorChain(err error) string {
	var le *LLMError
	if errors.As(err, &le) {
		return le.Failure.Message
	}
	return message(err)
}

// message is an error's message, or its type when it has none.
func message(err error) string {
	msg := err.Error()
	if msg == "" {
		return fmt.Sprintf("%T", err)
	}
	return msg
}

// check returns errAborted when the turn signal is aborted.
func (a *Agent) check() error {
	if a.signalled() {
		return errAborted
	}
	return nil
}
