// Package limits names every bound turnsim puts on what it reads: the
// size of a log line, of a packed row, of a file read whole, of a
// duration, of a list, of a tool result and of all of a scenario's, of a
// request body, of JSON nesting, of the events of one turn a streaming
// check holds. Each has a default and a flag that raises it; an input over
// a bound is refused with an error that names the bound and the flag
// (*Exceeded), never read until memory runs out.
//
// The bounds in force are one value, Current, set from the command line
// (Register) before any input is read; tests that change it restore it. A
// flag takes only a positive number, and two take no more than a ceiling
// (MaxDepth, MaxDurationMs) past which the bound could not be honoured:
// no setting turns a bound into a crash or into no bound at all.
package limits

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
)

// Limits are the bounds on input.
type Limits struct {
	// LineBytes bounds one line of a session log, a corpus entry or a
	// shard's output.
	LineBytes int64
	// PackedMembers bounds the members of one packed chunk row.
	PackedMembers int
	// FileBytes bounds a file read whole: a scenario, a policy, an
	// environment, a corpus entry.
	FileBytes int64
	// DurationMs bounds any duration an input gives (a latency, a delay,
	// a time, an outage), and the virtual time a run may reach.
	DurationMs float64
	// Entries bounds a list in an input (requests, inputs, world actions,
	// summaries, outages, a merge's seeds).
	Entries int
	// ResultChars bounds a tool result's size (resultChars).
	ResultChars int
	// TotalResultChars bounds the tool results one input asks for
	// together: a scenario's, or a budget workload's turn (toolSteps ×
	// resultChars). Each result is held as a string and copied into the
	// log, so many results under ResultChars still add up.
	TotalResultChars int
	// BodyBytes bounds a request body simrun serve reads.
	BodyBytes int64
	// Depth bounds JSON nesting; at most MaxDepth.
	Depth int
	// TurnEvents bounds the events of one turn, while it is open, that a
	// streaming check (simrun check) keeps state for until the turn
	// ends: a log is read in memory that follows its largest turn, and
	// this bounds the largest turn.
	TurnEvents int
}

// Ceilings: the largest value a flag takes (strictjson also holds a Depth
// set in Go to MaxDepth).
const (
	// MaxDepth: strictjson checks nesting by recursion, a frame per
	// level; encoding/json, which decodes every input after that check,
	// refuses nesting past 10,000 of its own. A thousand levels are far
	// past any honest input and cost the check little stack.
	MaxDepth = 1000
	// MaxDurationMs: virtual time is int64 nanoseconds (about 292
	// years); 10^12 ms (about 31.7 years) leaves room for a time plus a
	// duration without overflow.
	MaxDurationMs = 1e12
	// MaxBodyBytes: simrun serve reads a body over 256 KiB into one of
	// four buffers of this size, made when first needed; a larger bound
	// than a gigabyte is no request a provider takes, and near 2^63 the
	// buffer could not be made at all.
	MaxBodyBytes = 1 << 30
	// MaxWorkers: the most workers a -j starts. Each is a goroutine (and
	// with --sut dsh a Node process); a thousand is past any machine's
	// use and still starts in milliseconds, where -j 2000000000 took the
	// memory of two billion goroutines before it ran a seed.
	MaxWorkers = 1024
)

// Default are the bounds unless a flag raises them: generous for any
// honest input (a real DSH log line is kilobytes; DSH's own delays stop at
// 2^31−1 ms), small enough that a bad input fails fast.
var Default = Limits{
	LineBytes:     64 << 20,
	PackedMembers: 1 << 20,
	FileBytes:     64 << 20,
	DurationMs:    2147483647, // DSH's bound on delays: about 24.8 days
	Entries:       1 << 20,
	ResultChars:   16 << 20,
	// Four results of the largest size: a scenario's results are held
	// as strings and again in its log, a few times the total in memory.
	TotalResultChars: 64 << 20,
	BodyBytes:        16 << 20,
	Depth:            64,
	// A DSH turn of many steps streams thousands of events; a million
	// costs a check tens of MB.
	TurnEvents: 1 << 20,
}

// Current are the bounds in force.
var Current = Default

// Exceeded is an input over a bound.
type Exceeded struct {
	// What is over the bound ("a log line of 80 MB", "latencyMs 1e13").
	What  string
	Limit string
	Flag  string
	// Ceiling: the limit is the most the flag takes, so raising it is no
	// way out.
	Ceiling bool
}

func (e *Exceeded) Error() string {
	if e.Ceiling {
		return fmt.Sprintf("%s is over the limit of %s, the most --%s allows", e.What, e.Limit, e.Flag)
	}
	return fmt.Sprintf("%s is over the limit of %s (raise it with --%s)", e.What, e.Limit, e.Flag)
}

// The flags, by limit.
const (
	FlagLineBytes        = "max-line-bytes"
	FlagPackedMembers    = "max-packed-members"
	FlagFileBytes        = "max-file-bytes"
	FlagDurationMs       = "max-duration-ms"
	FlagEntries          = "max-entries"
	FlagResultChars      = "max-result-chars"
	FlagTotalResultChars = "max-total-result-chars"
	FlagBodyBytes        = "max-body-bytes"
	FlagDepth            = "max-depth"
	FlagTurnEvents       = "max-turn-events"
)

// Register adds a flag for each bound of Current to fs. Each flag refuses
// a value that is not a positive number, or over its ceiling, with the
// flag's name (the flag package's "invalid value … for flag -…"): a NaN
// duration compared false against every input and so bounded nothing, and
// a bound of 0 or less refused everything with a message about nesting
// "0 deep".
func Register(fs *flag.FlagSet) {
	fs.Var(&intLimit[int64]{&Current.LineBytes, 0}, FlagLineBytes, "the longest log line read, in `bytes`")
	fs.Var(&intLimit[int]{&Current.PackedMembers, 0}, FlagPackedMembers, "the most `members` of one packed chunk row")
	fs.Var(&intLimit[int64]{&Current.FileBytes, 0}, FlagFileBytes, "the largest scenario, policy, environment or corpus entry read, in `bytes`")
	fs.Var(&durationLimit{&Current.DurationMs}, FlagDurationMs, "the longest duration or time an input may give, in `ms` (at most 1e12, about 31.7 years)")
	fs.Var(&intLimit[int]{&Current.Entries, 0}, FlagEntries, "the most `entries` of one list in an input")
	fs.Var(&intLimit[int]{&Current.ResultChars, 0}, FlagResultChars, "the largest tool result a scenario or environment may ask for, in `chars`")
	fs.Var(&intLimit[int]{&Current.TotalResultChars, 0}, FlagTotalResultChars, "the most `chars` of tool results one scenario, or one turn of a budget workload, may ask for in all")
	fs.Var(&intLimit[int64]{&Current.BodyBytes, MaxBodyBytes}, FlagBodyBytes, "the largest request body simrun serve reads, in `bytes` (at most 1 GiB)")
	fs.Var(&intLimit[int]{&Current.Depth, MaxDepth}, FlagDepth, "the deepest JSON nesting read, in `levels` (at most 1000)")
	fs.Var(&intLimit[int]{&Current.TurnEvents, 0}, FlagTurnEvents, "the most `events` one turn of a log may hold, for simrun check, which keeps state for a turn until it ends")
}

// intLimit is a flag for a whole-number bound: decimal, ≥ 1, and at most
// ceiling when it is not 0.
type intLimit[T int | int64] struct {
	p       *T
	ceiling T
}

func (v *intLimit[T]) String() string {
	if v == nil || v.p == nil {
		return "0" // the zero value flag.PrintDefaults compares against
	}
	return strconv.FormatInt(int64(*v.p), 10)
}

func (v *intLimit[T]) Set(s string) error {
	// Decimal only: the flag package's own integers read "017" as octal.
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) || err == nil && int64(T(n)) != n:
		return fmt.Errorf("is too large")
	case err != nil:
		return fmt.Errorf("must be a whole number ≥ 1 (decimal)")
	case n < 1:
		return fmt.Errorf("must be ≥ 1: a bound of %d refuses every input", n)
	case v.ceiling != 0 && n > int64(v.ceiling):
		return fmt.Errorf("must be at most %d, the ceiling of this bound", v.ceiling)
	}
	*v.p = T(n)
	return nil
}

// durationLimit is the flag of DurationMs: a finite number of ms > 0, at
// most MaxDurationMs.
type durationLimit struct{ p *float64 }

func (v *durationLimit) String() string {
	if v == nil || v.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*v.p, 'f', -1, 64)
}

func (v *durationLimit) Set(s string) error {
	// A range error gives ±Inf or 0, which the cases below refuse.
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return fmt.Errorf("must be a number of ms > 0")
	case math.IsNaN(f) || math.IsInf(f, 0):
		// NaN compares false with every duration, so it bounded none.
		return fmt.Errorf("must be a finite number of ms")
	case !(f > 0):
		return fmt.Errorf("must be > 0: a bound of %s ms refuses every duration", s)
	case f > MaxDurationMs:
		return fmt.Errorf("must be at most %s ms (about 31.7 years): virtual time is int64 nanoseconds", strconv.FormatFloat(MaxDurationMs, 'f', -1, 64))
	}
	*v.p = f
	return nil
}

// Bytes renders a size for a message.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// Number writes a figure as an input writes it: 4000000, not 4e+06; but
// 1e+308, not a 309-digit number, from 1e21 up and below 1e-6 (where
// JavaScript, which DSH's files are written for, switches too).
func Number(v float64) string {
	if a := math.Abs(v); a != 0 && (a >= 1e21 || a < 1e-6) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
