package oracle_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/turnsim/turnsim/oracle"
)

var update = flag.Bool("update", false, "rewrite docs/invariants.md from oracle.Invariants")

// invariantsDoc is the guide generated from oracle.Invariants, from the
// package's folder, where go test runs.
var invariantsDoc = filepath.Join("..", "docs", "invariants.md")

// invariantsMarkdown renders docs/invariants.md: a short introduction,
// then one row per invariant, in the order Check reports them.
func invariantsMarkdown() string {
	var b strings.Builder
	b.WriteString(`# Invariants

<!-- Generated from oracle.Invariants by oracle/invariants_doc_test.go; do not edit.
     Regenerate: go test ./oracle -run TestInvariantsDoc -update -->

Every finding turnsim reports names one of these invariants by its id. An
id is stable: reports print it, corpus entries keep it, and
` + "`simrun shrink --invariant ID`" + ` takes it. Each sentence is the oracle's own
(` + "`oracle.Invariants`" + `), and the rows are in the order ` + "`oracle.Check`" + ` reports
violations. An invariant marked "(run facts)" is judged in full only where
turnsim runs the system (in its world, or on DSH's loop through the
driver) and so knows more than the log; on a log read alone
(` + "`simrun check`" + `), only the part the log shows is checked, if there is one.
[model.md](model.md#the-oracle) says how the oracle reads a log and what
the run facts add.

`)
	fmt.Fprintf(&b, "%d invariants:\n\n", len(oracle.Invariants))
	b.WriteString("| id | meaning |\n|---|---|\n")
	for _, inv := range oracle.Invariants {
		meaning := strings.ReplaceAll(inv.Meaning, "|", `\|`)
		fmt.Fprintf(&b, "| `%s` | %s |\n", inv.ID, meaning)
	}
	return b.String()
}

// TestInvariantsDoc: docs/invariants.md is what oracle.Invariants says.
// With -update it writes the file instead.
func TestInvariantsDoc(t *testing.T) {
	want := invariantsMarkdown()
	if *update {
		if err := os.WriteFile(invariantsDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(invariantsDoc)
	if err != nil {
		t.Fatalf("%v (regenerate it: go test ./oracle -run TestInvariantsDoc -update)", err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("%s is not what oracle.Invariants gives; regenerate it: go test ./oracle -run TestInvariantsDoc -update\n(-generated +file):\n%s", invariantsDoc, diff)
	}
}
