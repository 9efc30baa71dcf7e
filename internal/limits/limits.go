// Package limits names every bound turnsim puts on what it reads: the
// size of a log line, of a packed row, of a file read whole, of a
// duration, of a list, of a tool result, of a request body, of JSON
// nesting. Each has a default and a flag that raises it; an input over a
// bound is refused with an error that names the bound and the flag
// (*Exceeded), never read until memory runs out.
//
// The bounds in force are one value, Current, set from the command line
// (Register) before any input is read; tests that change it restore it.
package limits

import (
	"flag"
	"fmt"
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
	// BodyBytes bounds a request body simrun serve reads.
	BodyBytes int64
	// Depth bounds JSON nesting.
	Depth int
}

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
	BodyBytes:     16 << 20,
	Depth:         64,
}

// Current are the bounds in force.
var Current = Default

// Exceeded is an input over a bound.
type Exceeded struct {
	// What is over the bound ("a log line of 80 MB", "latencyMs 1e13").
	What  string
	Limit string
	Flag  string
}

func (e *Exceeded) Error() string {
	return fmt.Sprintf("%s is over the limit of %s (raise it with --%s)", e.What, e.Limit, e.Flag)
}

// The flags, by limit.
const (
	FlagLineBytes     = "max-line-bytes"
	FlagPackedMembers = "max-packed-members"
	FlagFileBytes     = "max-file-bytes"
	FlagDurationMs    = "max-duration-ms"
	FlagEntries       = "max-entries"
	FlagResultChars   = "max-result-chars"
	FlagBodyBytes     = "max-body-bytes"
	FlagDepth         = "max-depth"
)

// Register adds a flag for each bound of Current to fs.
func Register(fs *flag.FlagSet) {
	fs.Int64Var(&Current.LineBytes, FlagLineBytes, Current.LineBytes, "the longest log line read, in bytes")
	fs.IntVar(&Current.PackedMembers, FlagPackedMembers, Current.PackedMembers, "the most members of one packed chunk row")
	fs.Int64Var(&Current.FileBytes, FlagFileBytes, Current.FileBytes, "the largest scenario, policy, environment or corpus entry read, in bytes")
	fs.Float64Var(&Current.DurationMs, FlagDurationMs, Current.DurationMs, "the longest duration or time an input may give, in ms")
	fs.IntVar(&Current.Entries, FlagEntries, Current.Entries, "the most entries of one list in an input")
	fs.IntVar(&Current.ResultChars, FlagResultChars, Current.ResultChars, "the largest tool result a scenario or environment may ask for")
	fs.Int64Var(&Current.BodyBytes, FlagBodyBytes, Current.BodyBytes, "the largest request body simrun serve reads")
	fs.IntVar(&Current.Depth, FlagDepth, Current.Depth, "the deepest JSON nesting read")
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
