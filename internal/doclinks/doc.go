// Package doclinks holds the test that every link of the guides resolves:
// each relative link of README.md and docs/*.md, and each guide section
// cited from the code (docs/<name>.md#<anchor>), to a file and, with an
// anchor, to one of its headings (GitHub's rule: lowercase, spaces to '-',
// punctuation dropped, a repeated heading numbered -1, -2, …).
package doclinks
