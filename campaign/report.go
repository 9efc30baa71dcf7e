package campaign

import (
	"fmt"
	"io"
	"strings"
)

// Write prints a failing seed as simrun run and go test show it: its
// violations (all, or only the principal one and a count of the rest),
// the listener order and shrunk plan, the reproduction lines, and the
// corpus entry, as the campaign that made it (Config.Repro) says they
// read.
func (r *Result) Write(w io.Writer, all bool) {
	if r.Internal != "" {
		fmt.Fprintf(w, "seed %s: internal error of turnsim: %s\n", r.Seed, r.Internal)
		return
	}
	if len(r.Violations) == 0 {
		return
	}
	if all {
		for _, v := range r.Violations {
			fmt.Fprintf(w, "seed %s: %s\n", r.Seed, v.Line())
		}
	} else {
		principal := r.Violations[0]
		for _, v := range r.Violations {
			if v.Invariant == r.Invariant {
				principal = v
				break
			}
		}
		fmt.Fprintf(w, "seed %s: %s\n", r.Seed, principal.Line())
		if n := len(r.Violations) - 1; n > 0 {
			fmt.Fprintf(w, "  (and %d more violations in the same run: %s)\n", n, otherIDs(r))
		}
	}
	if len(r.Plan) == 0 {
		return // not investigated (NoShrink)
	}
	if r.NotShrunk != "" {
		fmt.Fprintf(w, "  plan as drawn (%d lines; not shrunk: %s):\n", len(r.Plan), r.NotShrunk)
	} else {
		fmt.Fprintf(w, "  shrunk plan (%d lines, %d shrink runs):\n", len(r.Plan), r.ShrinkRuns)
	}
	// The plan's own order: shrinking may have moved what the seed drew
	// (simrun replay --seed prints the drawn one).
	fmt.Fprintf(w, "    listeners: %s\n", strings.Join(r.Listeners, ", "))
	for _, l := range r.Plan {
		fmt.Fprintf(w, "    %s\n", l)
	}
	if r.Shrunk != nil {
		fmt.Fprintf(w, "  the shrunk plan gives: %s\n", r.Shrunk.Line())
	}
	if r.Difference != "" {
		fmt.Fprintf(w, "  its skeletons (-DSH's loop +the model):\n")
		for _, l := range strings.Split(strings.TrimSuffix(r.Difference, "\n"), "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	lines := []string{}
	if r.GoTest != "" {
		lines = append(lines, r.GoTest)
	}
	if r.Corpus != "" {
		lines = append(lines, "simrun replay "+r.Corpus+r.repro.EntryFlags+" "+r.repro.PluggedNote())
	}
	lines = append(lines, r.Reproduce+" "+r.repro.PluggedNote())
	for i, l := range lines {
		prefix := "             "
		if i == 0 {
			prefix = "  reproduce: "
		}
		fmt.Fprintf(w, "%s%s\n", prefix, strings.TrimSpace(l))
	}
	switch {
	case r.CorpusErr != "":
		fmt.Fprintf(w, "  corpus: not written: %s\n", r.CorpusErr)
	case r.CorpusReplaced != "":
		fmt.Fprintf(w, "  corpus: %s (replacing a file of that name that was no entry: %s)\n", r.Corpus, r.CorpusReplaced)
	case r.Corpus != "" && r.CorpusNew:
		fmt.Fprintf(w, "  corpus: %s\n", r.Corpus)
	case r.SameFailure:
		fmt.Fprintf(w, "  corpus: %s (already there: that entry's plan fails the same way, %s with the same message but for its numbers)\n", r.Corpus, r.Invariant)
	case r.Corpus != "":
		fmt.Fprintf(w, "  corpus: %s (already there: a seed of this run or an earlier one shrank to the same plan)\n", r.Corpus)
	}
}

// otherIDs lists the invariants of the violations beside the principal
// one, each once, in report order.
func otherIDs(r *Result) string {
	var ids []string
	skipped := false
	for _, v := range r.Violations {
		if v.Invariant == r.Invariant && !skipped {
			skipped = true
			continue
		}
		id := string(v.Invariant)
		if len(ids) == 0 || ids[len(ids)-1] != id {
			ids = append(ids, id)
		}
	}
	return strings.Join(ids, ", ")
}
