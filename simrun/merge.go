package simrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/internal/inputfile"
	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/internal/strictjson"
)

const mergeUsage = `usage: simrun merge FILE…

Merges the --json output of 'simrun run --shard i/n' processes into the
output one unsharded run over the same seeds prints: the corpus lines
(shard 0's), every failing seed in seed order, the coverage added up when
the shards ran with --stats (all of them, or none), then one summary. Each
shard's summary must be there, with its shard, and the shards must be
0/n … n-1/n, each once.

Exit status: 0 merged and clean, 1 violations, 2 bad input (a missing or
repeated shard, a line that is not JSON), 3 an internal error, 130 a
shard was interrupted (its summary says "interrupted": true).

flags:
`

// shardSummary is the summary object a shard prints last.
type shardSummary struct {
	Runs         int    `json:"runs"`
	Violations   int    `json:"violations"`
	Events       int    `json:"events"`
	CorpusErrors int    `json:"corpusErrors"`
	Interrupted  bool   `json:"interrupted"`
	Shard        string `json:"shard"`
}

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("merge", stderr, mergeUsage)
	files, err := parseInterspersed(fs, args)
	if err == errHelp {
		return exitClean
	} else if err != nil {
		return exitUsage
	}
	if len(files) == 0 {
		fmt.Fprint(stderr, mergeUsage)
		return exitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "simrun merge: "+format+"\n", a...)
		return exitUsage
	}
	type seedLine struct {
		seed uint64
		raw  []byte
	}
	var corpus [][]byte
	var seeds []seedLine
	var total shardSummary
	// Shards run with --stats add up their coverage; all or none must.
	var coverage faults.Coverage
	withStats := 0
	seen := map[string]bool{}
	seenSeeds := map[uint64]bool{}
	of := ""
	for _, file := range files {
		f, err := inputfile.Open(file)
		if err != nil {
			return fail("%v", err)
		}
		sc := bufio.NewScanner(f)
		// The scanner's limit is the larger of its buffer and its max, so
		// the first buffer must not be bigger than the limit.
		maxLine := int(min(limits.Current.LineBytes, 1<<30)) + 1
		sc.Buffer(make([]byte, min(maxLine, 64<<10)), maxLine)
		var summary *shardSummary
		line := 0
		for sc.Scan() {
			line++
			raw := bytes.TrimSpace(sc.Bytes())
			if len(raw) == 0 {
				continue
			}
			if summary != nil {
				f.Close()
				return fail("%s:%d: a line after the summary (a shard's summary is its last line)", file, line)
			}
			if err := strictjson.Check(raw); err != nil {
				f.Close()
				return fail("%s:%d: %v", file, line, err)
			}
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(raw, &keys); err != nil {
				f.Close()
				return fail("%s:%d: not a JSON object", file, line)
			}
			switch {
			case keys["seed"] != nil:
				var s struct{ Seed string }
				json.Unmarshal(raw, &s)
				n, err := strconv.ParseUint(s.Seed, 0, 64)
				if err != nil {
					f.Close()
					return fail("%s:%d: seed %s is not an unsigned integer", file, line, strictjson.Printable(strconv.Quote(s.Seed)))
				}
				if seenSeeds[n] {
					f.Close()
					return fail("%s:%d: seed %#x appears twice (shards run disjoint seeds)", file, line, n)
				}
				seenSeeds[n] = true
				seeds = append(seeds, seedLine{n, slices.Clone(raw)})
			case keys["corpusEntry"] != nil:
				corpus = append(corpus, slices.Clone(raw))
			case keys["runs"] != nil:
				summary = &shardSummary{}
				if err := json.Unmarshal(raw, summary); err != nil {
					f.Close()
					return fail("%s:%d: summary: %v", file, line, strictjson.Describe(err))
				}
				if summary.Runs < 0 || summary.Violations < 0 || summary.Events < 0 || summary.CorpusErrors < 0 {
					f.Close()
					return fail("%s:%d: summary: a negative count", file, line)
				}
			case keys["stats"] != nil:
				var s struct{ Stats faults.Report }
				if err := json.Unmarshal(raw, &s); err != nil {
					f.Close()
					return fail("%s:%d: stats: %v", file, line, err)
				}
				coverage.AddReport(s.Stats)
				withStats++
			}
		}
		f.Close()
		if errors.Is(sc.Err(), bufio.ErrTooLong) {
			return fail("%s:%d: %v", file, line+1, &limits.Exceeded{What: "a line of more than " + limits.Bytes(limits.Current.LineBytes), Limit: limits.Bytes(limits.Current.LineBytes), Flag: limits.FlagLineBytes})
		}
		if err := sc.Err(); err != nil {
			return fail("%s: %v", file, err)
		}
		if summary == nil {
			return fail("%s: no summary line: was the shard cut short?", file)
		}
		name := summary.Shard
		if name == "" {
			name = "0/1"
		}
		_, n, err := splitShard(name)
		if err != nil {
			return fail("%s: shard %s: %v", file, strictjson.Printable(strconv.Quote(name)), err)
		}
		if of == "" {
			of = strconv.Itoa(n)
		} else if of != strconv.Itoa(n) {
			return fail("%s: shard %s of a run cut in %s", file, name, of)
		}
		if seen[name] {
			return fail("%s: shard %s appears twice", file, name)
		}
		seen[name] = true
		total.Runs += summary.Runs
		total.Violations += summary.Violations
		total.Events += summary.Events
		total.CorpusErrors += summary.CorpusErrors
		total.Interrupted = total.Interrupted || summary.Interrupted
	}
	if withStats > 0 && withStats != len(files) {
		return fail("%d of %d shards were run with --stats: run all of them with it, or none", withStats, len(files))
	}
	n, _ := strconv.Atoi(of)
	for i := range n {
		if !seen[fmt.Sprintf("%d/%d", i, n)] {
			return fail("shard %d/%d is missing", i, n)
		}
	}
	slices.SortStableFunc(seeds, func(a, b seedLine) int {
		switch {
		case a.seed < b.seed:
			return -1
		case a.seed > b.seed:
			return 1
		}
		return 0
	})
	for _, c := range corpus {
		fmt.Fprintf(stdout, "%s\n", c)
	}
	for _, s := range seeds {
		fmt.Fprintf(stdout, "%s\n", s.raw)
	}
	if withStats > 0 {
		b, _ := json.Marshal(map[string]any{"stats": coverage.Report()})
		fmt.Fprintf(stdout, "%s\n", b)
	}
	b, _ := json.Marshal(map[string]any{"runs": total.Runs, "violations": total.Violations, "events": total.Events,
		"corpusErrors": total.CorpusErrors, "interrupted": total.Interrupted})
	fmt.Fprintf(stdout, "%s\n", b)
	fmt.Fprintf(stderr, "%d runs, %d violations, %d events (%d shards merged)\n", total.Runs, total.Violations, total.Events, n)
	switch {
	case total.Interrupted:
		fmt.Fprintf(stderr, "simrun merge: a shard was interrupted: the merged run is not whole\n")
		return exitInterrupted
	case total.Violations > 0:
		return exitViolation
	case total.CorpusErrors > 0:
		return exitUsage
	}
	return exitClean
}

// splitShard reads a shard's "i/n", 0 ≤ i < n.
func splitShard(name string) (i, n int, err error) {
	is, ns, ok := strings.Cut(name, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("not i/n with 0 ≤ i < n")
	}
	return i, n, nil
}
