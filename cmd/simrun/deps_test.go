package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestTheCommandLinksNoTesting: simrun does not link package testing.
// It once did, through gopter's root package (whose generators drew the
// seeds' plans; faults/gen.go draws as they did) and budget's Check (now
// budget/budgettest's): a binary that links it carries its flags' code
// and its init, and a test-only package in a binary is a layering slip.
func TestTheCommandLinksNoTesting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, pkg := range []string{"testing", "github.com/leanovate/gopter"} {
		if slices.Contains(deps, pkg) {
			t.Errorf("cmd/simrun links %s", pkg)
		}
	}
}
