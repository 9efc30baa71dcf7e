package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/turnsim/turnsim/internal/inputfile"
	"io"
	"slices"
	"strconv"

	"github.com/turnsim/turnsim/faults"
)

const mergeUsage = `usage: simrun merge FILE…

Merges the --json output of 'simrun run --shard i/n' processes into the
output one unsharded run over the same seeds prints: the corpus lines
(shard 0's), every failing seed in seed order, the coverage added up when
the shards ran with --stats (all of them, or none), then one summary. Each
shard's summary must be there, with its shard, and the shards must be
0/n … n-1/n, each once.

Exit status: 0 merged and clean, 1 violations, 2 bad input (a missing or
repeated shard, a line that is not JSON), 3 an internal error.

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
	of := ""
	for _, file := range files {
		f, err := inputfile.Open(file)
		if err != nil {
			return fail("%v", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		var summary *shardSummary
		for line := 1; sc.Scan(); line++ {
			raw := bytes.TrimSpace(sc.Bytes())
			if len(raw) == 0 {
				continue
			}
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(raw, &keys); err != nil {
				f.Close()
				return fail("%s:%d: not a JSON object: %v", file, line, err)
			}
			switch {
			case keys["seed"] != nil:
				var s struct{ Seed string }
				json.Unmarshal(raw, &s)
				n, err := strconv.ParseUint(s.Seed, 0, 64)
				if err != nil {
					f.Close()
					return fail("%s:%d: seed %q: %v", file, line, s.Seed, err)
				}
				seeds = append(seeds, seedLine{n, slices.Clone(raw)})
			case keys["corpusEntry"] != nil:
				corpus = append(corpus, slices.Clone(raw))
			case keys["runs"] != nil:
				summary = &shardSummary{}
				if err := json.Unmarshal(raw, summary); err != nil {
					f.Close()
					return fail("%s:%d: summary: %v", file, line, err)
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
		var i, n int
		if _, err := fmt.Sscanf(name, "%d/%d", &i, &n); err != nil {
			return fail("%s: shard %q", file, name)
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
	case total.Violations > 0:
		return exitViolation
	case total.CorpusErrors > 0:
		return exitUsage
	}
	return exitClean
}
