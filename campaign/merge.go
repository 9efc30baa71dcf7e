package campaign

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

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
	Stats         *CoverageReport
	Summary       ShardSummary
	// Shards is how many shards were merged.
	Shards int
}

// ShardSummary is the summary object a shard prints last; merged, it
// carries no shard.
type ShardSummary struct {
	Runs         int `json:"runs"`
	Violations   int `json:"violations"`
	Events       int `json:"events"`
	Internal     int `json:"internal"`
	CorpusErrors int `json:"corpusErrors"`
	// CorpusNotWritten counts the failing seeds whose entry could not be
	// written.
	CorpusNotWritten int  `json:"corpusNotWritten"`
	Interrupted      bool `json:"interrupted"`
	// Blocked names the plug-in that blocked outside virtual time and
	// stopped the run short of its seeds (Summary.Blocked).
	Blocked string `json:"blocked,omitempty"`
	// ViewFindings count DSH's view code's recorded findings by class
	// (--dsh-view).
	ViewFindings []ViewFindingCount `json:"viewFindings,omitempty"`
	// ViewRuns and ViewDiffering are Summary's.
	ViewRuns      int    `json:"viewRuns,omitempty"`
	ViewDiffering int    `json:"viewDiffering,omitempty"`
	Shard         string `json:"shard,omitempty"`
	// Campaign names the run the shard belongs to (its first seed, its
	// count or duration, its flags, turnsim's version); Start and Seeds
	// are its first seed and count as numbers (Seeds 0 under a duration),
	// for the checks of each shard's seeds.
	Campaign string `json:"campaign"`
	Start    string `json:"start"`
	Seeds    uint64 `json:"seeds,omitempty"`
}

// JSON is the summary object as simrun run prints it last: the same keys
// for a whole run, a shard and a merge, so that merged shards are the
// whole run's bytes.
func (t ShardSummary) JSON() []byte {
	b, _ := json.Marshal(t)
	return b
}

// Merge merges the shards' outputs. Each shard's summary must be there,
// with its shard, and the shards must be 0/n … n-1/n, each once; the
// shards ran with --stats all, or none. What a summary counts is held to
// the lines above it, and every seed to its shard's share of the
// campaign's seeds: a shard edited, cut or mixed up with another's is
// refused rather than merged into figures no run printed. An error names
// the shard's file and line.
func Merge(outputs []ShardOutput) (*Merged, error) {
	fail := func(format string, a ...any) (*Merged, error) { return nil, fmt.Errorf(format, a...) }
	var corpus [][]byte
	var seeds []seedLine
	var total ShardSummary
	campaignFile := "" // the file whose campaign the others must share
	// Shards run with --stats add up their coverage; all or none must.
	var coverage Coverage
	withStats := 0
	seen := map[string]bool{}
	seenSeeds := map[uint64]bool{}
	of := ""
	for _, o := range outputs {
		sh, err := readShard(o, &coverage)
		if err != nil {
			return nil, err
		}
		file, summary := o.Name, sh.summary
		if sh.stats {
			withStats++
		}
		name := summary.Shard
		if name == "" {
			name = "0/1"
		}
		index, n, err := splitShard(name)
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
		if summary.Campaign == "" || summary.Start == "" {
			return fail("%s: its summary names no campaign (a shard of an older simrun?)", file)
		}
		if total.Campaign == "" {
			total.Campaign, total.Start, total.Seeds, campaignFile = summary.Campaign, summary.Start, summary.Seeds, file
		} else if field, this, that := campaignDiffers(summary, total); field != "" {
			// Name the field that differs: two campaign lines that read
			// the same (a start or a count set apart) said nothing.
			return fail("%s: shard %s of another campaign than %s's: its %s is %s, %s's is %s", file, name, campaignFile,
				field, this, campaignFile, that)
		}
		if err := sh.check(Shard{uint64(index), uint64(n)}); err != nil {
			return fail("%s: shard %s: %v", file, name, err)
		}
		for _, l := range sh.seeds {
			if seenSeeds[l.seed] {
				return fail("%s:%d: seed %#x appears twice (shards run disjoint seeds)", file, l.line, l.seed)
			}
			seenSeeds[l.seed] = true
		}
		seen[name] = true
		corpus = append(corpus, sh.corpus...)
		seeds = append(seeds, sh.seeds...)
		total.Runs += summary.Runs
		total.Violations += summary.Violations
		total.Events += summary.Events
		total.Internal += summary.Internal
		total.CorpusErrors += summary.CorpusErrors
		total.CorpusNotWritten += summary.CorpusNotWritten
		total.Interrupted = total.Interrupted || summary.Interrupted
		total.Blocked = cmp.Or(total.Blocked, summary.Blocked)
		total.ViewFindings = mergeViewFindings(total.ViewFindings, summary.ViewFindings)
		total.ViewRuns += summary.ViewRuns
		total.ViewDiffering += summary.ViewDiffering
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
	slices.SortStableFunc(seeds, func(a, b seedLine) int { return cmp.Compare(a.seed, b.seed) })
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

// seedLine is a failing seed's line of a shard.
type seedLine struct {
	seed uint64
	line int
	raw  []byte
	// What the line says, for the summary's counts.
	violated, internal, notWritten bool
}

// shardOutput is one shard's output, read.
type shardOutput struct {
	corpus [][]byte
	// corpusFailed and corpusBad count the corpus lines with violations
	// and with a read error.
	corpusFailed, corpusBad int
	seeds                   []seedLine
	summary                 ShardSummary
	stats                   bool
}

// readShard reads one shard's lines (its coverage added to coverage).
func readShard(o ShardOutput, coverage *Coverage) (*shardOutput, error) {
	fail := func(format string, a ...any) (*shardOutput, error) { return nil, fmt.Errorf(format, a...) }
	file := o.Name
	sc := bufio.NewScanner(o.R)
	// The scanner's limit is the larger of its buffer and its max, so
	// the first buffer must not be bigger than the limit.
	maxLine := int(min(limits.Current.LineBytes, 1<<30)) + 1
	sc.Buffer(make([]byte, min(maxLine, 64<<10)), maxLine)
	sh := &shardOutput{}
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
			var s struct {
				Seed       string
				Violations []json.RawMessage
				Internal   string `json:"internalError"`
				CorpusErr  string `json:"corpusError"`
			}
			if err := json.Unmarshal(raw, &s); err != nil {
				return fail("%s:%d: %v", file, line, strictjson.Describe(err))
			}
			n, err := ParseSeed(s.Seed)
			if err != nil {
				return fail("%s:%d: %v", file, line, err)
			}
			sh.seeds = append(sh.seeds, seedLine{seed: n, line: line, raw: slices.Clone(raw),
				violated: len(s.Violations) > 0, internal: s.Internal != "", notWritten: s.CorpusErr != ""})
		case keys["corpusEntry"] != nil:
			sh.corpus = append(sh.corpus, slices.Clone(raw))
			switch {
			case keys["error"] != nil:
				sh.corpusBad++
			case keys["violations"] != nil:
				sh.corpusFailed++
			}
		case keys["runs"] != nil:
			summary = &ShardSummary{}
			// Held to the summary's own keys: one run prints no other.
			if located := strictjson.Locate(raw, summary); located != nil {
				return fail("%s:%d: summary: %v", file, line, located)
			}
			if err := json.Unmarshal(raw, summary); err != nil {
				return fail("%s:%d: summary: %v", file, line, strictjson.Describe(err))
			}
			if summary.Runs < 0 || summary.Violations < 0 || summary.Events < 0 || summary.Internal < 0 || summary.CorpusErrors < 0 || summary.CorpusNotWritten < 0 {
				return fail("%s:%d: summary: a negative count", file, line)
			}
		case keys["stats"] != nil:
			var s struct{ Stats CoverageReport }
			if err := json.Unmarshal(raw, &s); err != nil {
				return fail("%s:%d: stats: %v", file, line, strictjson.Describe(err))
			}
			coverage.addReport(s.Stats)
			sh.stats = true
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
	sh.summary = *summary
	return sh, nil
}

// check holds the shard's summary to its lines, and its seeds to its
// share of the campaign's.
func (sh *shardOutput) check(shard Shard) error {
	t := sh.summary
	first, err := ParseSeed(t.Start)
	if err != nil {
		return fmt.Errorf("summary: start: %v", err)
	}
	if shard.Index != 0 && len(sh.corpus) > 0 {
		return fmt.Errorf("%d corpus lines, but only shard 0 replays the corpus", len(sh.corpus))
	}
	violated, internal, notWritten := sh.corpusFailed, 0, 0
	for _, l := range sh.seeds {
		// The seed's index in the campaign, which falls to shard index
		// mod n, and is under the count of a campaign of --seeds.
		k := l.seed - first
		switch {
		case l.seed < first || t.Seeds > 0 && k >= t.Seeds:
			return fmt.Errorf("seed %#x (line %d) is not one of the campaign's (%d from %s)", l.seed, l.line, t.Seeds, t.Start)
		case shard.Of > 1 && k%shard.Of != shard.Index:
			return fmt.Errorf("seed %#x (line %d) is shard %d/%d's, not this one's", l.seed, l.line, k%shard.Of, shard.Of)
		}
		if l.violated {
			violated++
		}
		if l.internal {
			internal++
		}
		if l.notWritten {
			notWritten++
		}
	}
	share := shard.Count(t.Seeds)
	switch {
	case t.Seeds > 0 && !t.Interrupted && t.Blocked == "" && uint64(t.Runs) != share:
		return fmt.Errorf("summary: %d runs, but the shard's share of %d seeds is %d", t.Runs, t.Seeds, share)
	case t.Seeds > 0 && uint64(t.Runs) > share:
		return fmt.Errorf("summary: %d runs, more than the shard's share of %d seeds, %d", t.Runs, t.Seeds, share)
	case t.Runs < len(sh.seeds):
		return fmt.Errorf("summary: %d runs, fewer than its %d failing seed lines", t.Runs, len(sh.seeds))
	case t.Violations != violated:
		return fmt.Errorf("summary: %d violations, but its lines show %d (failing seeds and corpus entries)", t.Violations, violated)
	case t.Internal != internal:
		return fmt.Errorf("summary: %d internal errors, but its lines show %d", t.Internal, internal)
	case t.CorpusErrors != sh.corpusBad:
		return fmt.Errorf("summary: %d corpus errors, but its lines show %d", t.CorpusErrors, sh.corpusBad)
	case t.CorpusNotWritten != notWritten:
		return fmt.Errorf("summary: %d corpus entries not written, but its lines show %d", t.CorpusNotWritten, notWritten)
	}
	return nil
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
	fmt.Fprintf(w, "%s\n", m.Summary.JSON())
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

// campaignDiffers names the first field by which a shard's summary is of
// another campaign than the total's, with the two values ("" when none).
func campaignDiffers(a, b ShardSummary) (field, this, that string) {
	switch {
	case a.Campaign != b.Campaign:
		return "campaign", strconv.Quote(a.Campaign), strconv.Quote(b.Campaign)
	case a.Start != b.Start:
		return "start", strconv.Quote(a.Start), strconv.Quote(b.Start)
	case a.Seeds != b.Seeds:
		return "seeds", strconv.FormatUint(a.Seeds, 10), strconv.FormatUint(b.Seeds, 10)
	}
	return "", "", ""
}

// mergeViewFindings adds a shard's counts of view findings to the total:
// by class, in class order, the first seed the lowest of the shards'.
func mergeViewFindings(total, shard []ViewFindingCount) []ViewFindingCount {
	for _, f := range shard {
		i, found := slices.BinarySearchFunc(total, f.Class, func(c ViewFindingCount, n string) int { return strings.Compare(c.Class, n) })
		if !found {
			total = slices.Insert(total, i, f)
			continue
		}
		t := &total[i]
		t.Seeds += f.Seeds
		t.Turns += f.Turns
		if a, errA := ParseSeed(f.First); errA == nil {
			if b, errB := ParseSeed(t.First); errB != nil || a < b {
				t.First, t.Example, t.Reproduce = f.First, f.Example, f.Reproduce
			}
		}
	}
	return total
}
