package doclinks

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// root is the repository, from this package's folder.
const root = "../.."

var (
	heading  = regexp.MustCompile(`^#{1,6} (.*)$`)
	unsafe   = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	mdLink   = regexp.MustCompile(`\]\(([^)\s]*)\)`)
	citation = regexp.MustCompile(`(?:^|[^\w/.])(docs/[\w.-]+\.md)#([\w-]+)`)
	url      = regexp.MustCompile(`^[a-z]+:`)
)

// anchors are the anchors of a markdown file's headings (outside code
// fences).
func anchors(path string) map[string]bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out, seen, fence := map[string]bool{}, map[string]int{}, false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		m := heading.FindStringSubmatch(line)
		if fence || m == nil {
			continue
		}
		a := strings.ReplaceAll(unsafe.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), ""), " ", "-")
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestLinksResolve: every relative link of the guides, and every guide
// section the code cites, resolves to a file and a heading of it.
func TestLinksResolve(t *testing.T) {
	cache := map[string]map[string]bool{}
	resolves := func(path, anchor string) bool {
		if _, err := os.Stat(path); err != nil {
			return false
		}
		if anchor == "" {
			return true
		}
		if _, ok := cache[path]; !ok {
			cache[path] = anchors(path)
		}
		return cache[path][anchor]
	}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch {
			case rel != "." && strings.HasPrefix(d.Name(), "."), rel == "corpus", d.Name() == "testdata", d.Name() == "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if ext != ".go" && ext != ".md" && ext != ".mjs" && ext != ".sh" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(data)
		type ref struct{ path, anchor, as string }
		var refs []ref
		for _, m := range citation.FindAllStringSubmatch(text, -1) {
			refs = append(refs, ref{filepath.Join(root, m[1]), m[2], m[1] + "#" + m[2]})
		}
		if ext == ".md" {
			for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
				target := m[1]
				if url.MatchString(target) {
					continue // a URL
				}
				file, anchor, _ := strings.Cut(target, "#")
				full := path
				if file != "" {
					full = filepath.Join(filepath.Dir(path), file)
				}
				refs = append(refs, ref{full, anchor, target})
			}
		}
		for _, r := range refs {
			checked++
			if !resolves(r.path, r.anchor) {
				t.Errorf("%s: the link %s does not resolve", rel, r.as)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Errorf("%d links checked: the walk missed the guides", checked)
	}
	t.Logf("%d links checked", checked)
}
