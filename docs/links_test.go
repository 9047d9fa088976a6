package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// mdLink is a Markdown link to a relative file, with or without an anchor.
var mdLink = regexp.MustCompile(`\]\(([^)\s#:]*\.md)?(#[^)\s]+)?\)`)

// TestDocLinks fails when a link between the documentation's pages points at
// a page or a heading that does not exist: pages move and headings change,
// and a link that silently lands at the top of a page misleads.
func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("*/*.md")
	pages = append(append(pages, more...), "../README.md")
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		path = filepath.Clean(path)
		if a, ok := anchors[path]; ok {
			return a
		}
		a := headingAnchors(t, path)
		anchors[path] = a
		return a
	}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range outsideCode(string(b)) {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target, anchor := m[1], strings.TrimPrefix(m[2], "#")
				if target == "" && anchor == "" {
					continue
				}
				path := page
				if target != "" {
					path = filepath.Join(filepath.Dir(page), target)
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s:%d: link to %s: no such page", page, n+1, target)
						continue
					}
				}
				if anchor != "" && !anchorsOf(path)[anchor] {
					t.Errorf("%s:%d: link to %s#%s: no such heading", page, n+1, filepath.Base(path), anchor)
				}
			}
		}
	}
}

// outsideCode returns the page's lines with those inside fenced code blocks
// blanked, so a "#" comment in a shell example is not read as a heading or
// a link.
func outsideCode(text string) []string {
	lines := strings.Split(text, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
		}
	}
	return lines
}

// headingAnchors returns the anchors GitHub gives a page's headings:
// lower-cased, punctuation other than hyphens and underscores dropped,
// spaces made hyphens, a repeated anchor numbered.
func headingAnchors(t *testing.T, path string) map[string]bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range outsideCode(string(b)) {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var sb strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				sb.WriteRune(r)
			case r == ' ':
				sb.WriteRune('-')
			}
		}
		a := sb.String()
		if k := seen[a]; k > 0 {
			out[a+"-"+strconv.Itoa(k)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}
