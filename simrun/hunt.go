package simrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/turnsim/turnsim/campaign"
	"github.com/turnsim/turnsim/faults"
	"github.com/turnsim/turnsim/hunt"
	"github.com/turnsim/turnsim/mutants"
)

const huntUsage = `usage: simrun hunt [--mutant NAME] [--max-seeds N] [--budget D] [--start S]
                   [--candidates K] [--corpus DIR] [--json]

Runs the ordinary randomized search against each mutant of the zoo, from
seed --start, until the invariant the mutant must trip is violated. Prints
one row per mutant: the invariant, found or not, seeds and wall time to the
first violation, the size of the shrunk plan (the smallest among the first
--candidates violating seeds) and the time spent shrinking. Each shrunk
reproduction is written to the corpus as that mutant's entry. The last line
is "K/M mutants found".

Exit status: 0 every mutant found and its entry written, 1 some mutant
not found, 2 bad usage or an entry that could not be written, 130
interrupted (SIGINT or SIGTERM) before every mutant was hunted.

flags:
`

func runHunt(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("hunt", stderr, huntUsage)
	only := fs.String("mutant", "", "hunt just this mutant ("+fmt.Sprint(mutants.Names())+")")
	maxSeeds := fs.Int("max-seeds", 10000, "give up on a mutant after this many seeds")
	budget := fs.Duration("budget", 10*time.Second, "give up on a mutant after this much wall time (0: no limit)")
	start := fs.String("start", "1", "the first seed")
	candidates := fs.Int("candidates", 3, "shrink this many violating seeds and keep the smallest plan")
	corpus := fs.String("corpus", "corpus", "where the mutants' entries are written")
	asJSON := fs.Bool("json", false, "print one JSON object per mutant, then a summary object")
	rest, err := parseInterspersed(fs, args)
	if err == errHelp {
		return exitClean
	} else if err != nil {
		return exitUsage
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "simrun hunt: unexpected argument %q\n", rest[0])
		return exitUsage
	}
	first, err := parseSeed(*start)
	if err != nil {
		fmt.Fprintf(stderr, "simrun hunt: --start: %v\n", err)
		return exitUsage
	}
	for _, bad := range []struct {
		is   bool
		what string
	}{
		{*maxSeeds < 1, fmt.Sprintf("--max-seeds %d: must be at least 1", *maxSeeds)},
		{*candidates < 1, fmt.Sprintf("--candidates %d: must be at least 1", *candidates)},
		{*budget < 0, fmt.Sprintf("--budget %v: must not be negative", *budget)},
	} {
		if bad.is {
			fmt.Fprintf(stderr, "simrun hunt: %s\n", bad.what)
			return exitUsage
		}
	}
	if err := campaign.SeedRange(first, uint64(*maxSeeds)); err != nil {
		fmt.Fprintf(stderr, "simrun hunt: --start %s --max-seeds %d: %v\n", *start, *maxSeeds, err)
		return exitUsage
	}
	if why := notAFolder(*corpus); why != "" {
		fmt.Fprintf(stderr, "simrun hunt: --corpus %s (the mutants' entries are written into one)\n", why)
		return exitUsage
	}
	zoo := mutants.Zoo
	if *only != "" {
		m, ok := mutants.Find(*only)
		if !ok {
			fmt.Fprintf(stderr, "simrun hunt: --mutant: unknown mutant %q (known: %v)\n", *only, mutants.Names())
			return exitUsage
		}
		zoo = []mutants.Mutant{m}
	}
	tuneGCForRuns()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := hunt.Options{Start: first, MaxSeeds: *maxSeeds, Budget: *budget, Candidates: *candidates, Now: time.Now}
	var rows []huntRow
	for _, m := range zoo {
		if ctx.Err() != nil {
			break
		}
		r := huntRow{Result: hunt.Mutant(ctx, m, o)}
		if r.Found {
			r.write(*corpus, m.Name)
		}
		rows = append(rows, r)
		if *asJSON {
			b, _ := json.Marshal(r)
			fmt.Fprintf(stdout, "%s\n", b)
		}
	}
	found, unwritten := 0, 0
	for _, r := range rows {
		if r.Found {
			found++
		}
		if r.CorpusErr != "" {
			unwritten++
		}
	}
	if *asJSON {
		b, _ := json.Marshal(map[string]any{"found": found, "mutants": len(zoo), "corpusNotWritten": unwritten, "interrupted": ctx.Err() != nil})
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		printHunt(stdout, rows)
		if ctx.Err() != nil {
			fmt.Fprintf(stdout, "(interrupted after %d of %d mutants)\n", len(rows), len(zoo))
		}
		fmt.Fprintf(stdout, "%d/%d mutants found\n", found, len(zoo))
	}
	switch {
	case ctx.Err() != nil:
		return exitInterrupted
	case found < len(zoo):
		return exitViolation
	case unwritten > 0:
		// A hunt's product is its entries: one that is not on disk is a
		// failed hunt, whatever the table says.
		fmt.Fprintf(stderr, "simrun hunt: %d of %d entries could not be written to %s\n", unwritten, found, *corpus)
		return exitUsage
	}
	return exitClean
}

// huntRow is a result and where its entry went.
type huntRow struct {
	hunt.Result
	Corpus    string `json:"corpus,omitempty"`
	CorpusErr string `json:"corpusError,omitempty"`
}

func (r *huntRow) write(dir, mutant string) {
	e, err := campaign.NewEntry(version, r.Seed, faults.Overrides{}, mutant, r.Violation.Invariant, r.Violation.Message, r.Shrunk)
	if err == nil {
		r.Corpus, _, _, err = e.Write(dir)
	}
	if err != nil {
		r.CorpusErr = err.Error()
	}
}

func printHunt(w io.Writer, rows []huntRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "mutant\ttrips\tfound\tseeds\tto find\tentries\tshrink\tfirst seed")
	for _, r := range rows {
		if !r.Found {
			fmt.Fprintf(tw, "%s\t%s\tno\t%d\t-\t-\t-\t-\n", r.Mutant, r.Invariant, r.Seeds)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\tyes\t%d\t%s\t%d\t%s\t%#x\n", r.Mutant, r.Invariant, r.Seeds,
			millis(r.TimeToFind), r.Entries, millis(r.ShrinkTime), r.FirstSeed)
	}
	tw.Flush()
	for _, r := range rows {
		switch {
		case r.CorpusErr != "":
			fmt.Fprintf(w, "%s: the corpus entry could not be written: %s\n", r.Mutant, r.CorpusErr)
		case r.Corpus != "":
			fmt.Fprintf(w, "%s: %s\n", r.Mutant, r.Corpus)
		}
	}
}

func millis(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}
