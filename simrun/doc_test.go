package simrun

import (
	"go/parser"
	"go/token"
	"regexp"
	"testing"
)

// TestPackageDocListsEveryCommand: the package comment lists each command
// of the usage, one line each, so that go doc tells what simrun can do.
func TestPackageDocListsEveryCommand(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatal("main.go has no package comment")
	}
	doc := f.Doc.Text()
	commands := regexp.MustCompile(`(?m)^  ([a-z][a-z-]*)\b`).FindAllStringSubmatch(usage, -1)
	if len(commands) < 13 {
		t.Fatalf("found %d commands in the usage, want at least 13: %v", len(commands), commands)
	}
	for _, c := range commands {
		if !regexp.MustCompile(`simrun ` + regexp.QuoteMeta(c[1]) + `([^a-z-]|$)`).MatchString(doc) {
			t.Errorf("the package comment (simrun/main.go) does not list 'simrun %s'", c[1])
		}
	}
}
