package campaign

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
	"github.com/turnsim/turnsim/internal/limits"
	"github.com/turnsim/turnsim/internal/strictjson"
)

// ShardOutput is one shard's --json output (simrun run --shard i/n --json),
// named for errors.
type ShardOutput struct {
	Name string
	R    io.Reader
}

// Merged is what the shards of one campaign add up to: the output one
// unsharded run over the same seeds prints.
type Merged struct {
	// Corpus are the corpus lines (shard 0's), Seeds every failing
	// seed's line in seed order, Stats the coverage added up (nil when
	// the shards ran without --stats).
	Corpus, Seeds [][]byte
	Stats         *faults.Report
	Summary       ShardSummary
	// Shards is how many shards were merged.
	Shards int
}

// ShardSummary is the summary object a shard prints last; merged, it
// carries no shard.
type ShardSummary struct {
	Runs         int    `json:"runs"`
	Violations   int    `json:"violations"`
	Events       int    `json:"events"`
	CorpusErrors int    `json:"corpusErrors"`
	Interrupted  bool   `json:"interrupted"`
	Shard        string `json:"shard,omitempty"`
	// Campaign names the run the shard belongs to (its first seed, its
	// count or duration, its flags, turnsim's version).
	Campaign string `json:"campaign"`
}

// Merge merges the shards' outputs. Each shard's summary must be there,
// with its shard, and the shards must be 0/n … n-1/n, each once; the
// shards ran with --stats all, or none. An error names the shard's file
// and line.
func Merge(outputs []ShardOutput) (*Merged, error) {
	fail := func(format string, a ...any) (*Merged, error) { return nil, fmt.Errorf(format, a...) }
	type seedLine struct {
		seed uint64
		raw  []byte
	}
	var corpus [][]byte
	var seeds []seedLine
	var total ShardSummary
	campaignFile := "" // the file whose campaign the others must share
	// Shards run with --stats add up their coverage; all or none must.
	var coverage faults.Coverage
	withStats := 0
	seen := map[string]bool{}
	seenSeeds := map[uint64]bool{}
	of := ""
	for _, o := range outputs {
		file := o.Name
		sc := bufio.NewScanner(o.R)
		// The scanner's limit is the larger of its buffer and its max, so
		// the first buffer must not be bigger than the limit.
		maxLine := int(min(limits.Current.LineBytes, 1<<30)) + 1
		sc.Buffer(make([]byte, min(maxLine, 64<<10)), maxLine)
		var summary *ShardSummary
		line := 0
		for sc.Scan() {
			line++
			raw := bytes.TrimSpace(sc.Bytes())
			if len(raw) == 0 {
				continue
			}
			if summary != nil {
				return fail("%s:%d: a line after the summary (a shard's summary is its last line)", file, line)
			}
			if err := strictjson.Check(raw); err != nil {
				return fail("%s:%d: %v", file, line, err)
			}
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(raw, &keys); err != nil {
				return fail("%s:%d: not a JSON object", file, line)
			}
			switch {
			case keys["seed"] != nil:
				var s struct{ Seed string }
				json.Unmarshal(raw, &s)
				n, err := strconv.ParseUint(s.Seed, 0, 64)
				if err != nil {
					return fail("%s:%d: seed %s is not an unsigned integer", file, line, strictjson.Printable(strconv.Quote(s.Seed)))
				}
				if seenSeeds[n] {
					return fail("%s:%d: seed %#x appears twice (shards run disjoint seeds)", file, line, n)
				}
				seenSeeds[n] = true
				seeds = append(seeds, seedLine{n, slices.Clone(raw)})
			case keys["corpusEntry"] != nil:
				corpus = append(corpus, slices.Clone(raw))
			case keys["runs"] != nil:
				summary = &ShardSummary{}
				if err := json.Unmarshal(raw, summary); err != nil {
					return fail("%s:%d: summary: %v", file, line, strictjson.Describe(err))
				}
				if summary.Runs < 0 || summary.Violations < 0 || summary.Events < 0 || summary.CorpusErrors < 0 {
					return fail("%s:%d: summary: a negative count", file, line)
				}
			case keys["stats"] != nil:
				var s struct{ Stats faults.Report }
				if err := json.Unmarshal(raw, &s); err != nil {
					return fail("%s:%d: stats: %v", file, line, err)
				}
				coverage.AddReport(s.Stats)
				withStats++
			}
		}
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
		if summary.Campaign == "" {
			return fail("%s: its summary names no campaign (a shard of an older simrun?)", file)
		}
		if total.Campaign == "" {
			total.Campaign, campaignFile = summary.Campaign, file
		} else if summary.Campaign != total.Campaign {
			return fail("%s: shard %s of another campaign (%s) than %s's (%s)", file, name, summary.Campaign, campaignFile, total.Campaign)
		}
		seen[name] = true
		total.Runs += summary.Runs
		total.Violations += summary.Violations
		total.Events += summary.Events
		total.CorpusErrors += summary.CorpusErrors
		total.Interrupted = total.Interrupted || summary.Interrupted
	}
	if withStats > 0 && withStats != len(outputs) {
		return fail("%d of %d shards were run with --stats: run all of them with it, or none", withStats, len(outputs))
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
	m := &Merged{Corpus: corpus, Summary: total, Shards: n}
	for _, s := range seeds {
		m.Seeds = append(m.Seeds, s.raw)
	}
	if withStats > 0 {
		r := coverage.Report()
		m.Stats = &r
	}
	return m, nil
}

// Write prints the merged output: the lines one unsharded run prints.
func (m *Merged) Write(w io.Writer) {
	for _, c := range m.Corpus {
		fmt.Fprintf(w, "%s\n", c)
	}
	for _, s := range m.Seeds {
		fmt.Fprintf(w, "%s\n", s)
	}
	if m.Stats != nil {
		b, _ := json.Marshal(map[string]any{"stats": *m.Stats})
		fmt.Fprintf(w, "%s\n", b)
	}
	t := m.Summary
	b, _ := json.Marshal(map[string]any{"runs": t.Runs, "violations": t.Violations, "events": t.Events,
		"corpusErrors": t.CorpusErrors, "interrupted": t.Interrupted, "campaign": t.Campaign})
	fmt.Fprintf(w, "%s\n", b)
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
