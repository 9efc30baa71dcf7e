package simrun

import (
	"fmt"
	"io"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/internal/inputfile"
)

const mergeUsage = `usage: simrun merge FILE…

Merges the --json output of 'simrun run --shard i/n' processes into the
output one unsharded run over the same seeds prints: the corpus lines
(shard 0's), every failing seed in seed order, the coverage added up when
the shards ran with --stats (all of them, or none), then one summary. Each
shard's summary must be there, with its shard, and the shards must be
0/n … n-1/n, each once.

Each shard's summary is held to its lines (its counts of violations,
internal errors and corpus entries, its runs to its share of the seeds),
and each failing seed to its shard: an edited or mixed-up shard is
refused.

Exit status: 0 merged and clean, 1 violations, 2 bad input (a missing or
repeated shard, a line that is not JSON, a summary its lines contradict,
a seed of another shard), 3 an internal error (of merge, or of a shard's
run), 130 a shard was interrupted (its summary says "interrupted": true).

flags:
`

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
	var outputs []campaign.ShardOutput
	for _, file := range files {
		f, err := inputfile.Open(file)
		if err != nil {
			fmt.Fprintf(stderr, "simrun merge: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		outputs = append(outputs, campaign.ShardOutput{Name: file, R: f})
	}
	m, err := campaign.Merge(outputs)
	if err != nil {
		fmt.Fprintf(stderr, "simrun merge: %v\n", err)
		return exitUsage
	}
	m.Write(stdout)
	t := m.Summary
	shards := "shards"
	if m.Shards == 1 {
		shards = "shard"
	}
	fmt.Fprintf(stderr, "%d runs, %d violations, %d events (%d %s merged)\n", t.Runs, t.Violations, t.Events, m.Shards, shards)
	switch {
	case t.Internal > 0:
		return exitInternal
	case t.Interrupted:
		fmt.Fprintf(stderr, "simrun merge: a shard was interrupted: the merged run is not whole\n")
		return exitInterrupted
	case t.Violations > 0:
		return exitViolation
	case t.CorpusErrors > 0:
		return exitUsage
	}
	return exitClean
}
