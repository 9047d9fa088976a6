package graph

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

const corpusDir = "../../../shared/data/legalbenchrag/corpus"

// check verifies the invariants of an extraction: every span lies in the
// text, every definition span inside its node's span and holding its term,
// every reference's text is the text of its span, every node id exists.
func check(doc *document.Document, t *clause.Tree, g *Doc) error {
	n := utf8.RuneCountInString(doc.Text)
	inText := func(sp document.Span) bool { return 0 <= sp.Start && sp.Start <= sp.End && sp.End <= n }
	node := func(id int) bool { return id >= 0 && id < len(t.Nodes) }
	for _, d := range g.Definitions {
		switch {
		case !inText(d.Span) || !inText(d.TermSpan) || !node(d.Node):
			return fmt.Errorf("definition %q: span %v term %v node %d out of range", d.Term, d.Span, d.TermSpan, d.Node)
		case !t.Nodes[d.Node].Span.Contains(d.Span):
			return fmt.Errorf("definition %q: span %v outside its node %d %v", d.Term, d.Span, d.Node, t.Nodes[d.Node].Span)
		case !d.Span.Contains(d.TermSpan):
			return fmt.Errorf("definition %q: term span %v outside its span %v", d.Term, d.TermSpan, d.Span)
		case d.Term == "":
			return fmt.Errorf("definition with an empty term at %v", d.Span)
		}
	}
	for _, r := range g.References {
		switch {
		case !inText(r.Span) || r.Span.Empty() || !node(r.Node):
			return fmt.Errorf("reference %q: span %v node %d out of range", r.Text, r.Span, r.Node)
		case doc.Slice(r.Span) != r.Text:
			return fmt.Errorf("reference %q: span %v holds %q", r.Text, r.Span, doc.Slice(r.Span))
		case r.Target >= len(t.Nodes) || (r.Target < 0) != (r.Status == External || r.Status == Unresolved):
			return fmt.Errorf("reference %q: target %d with status %s", r.Text, r.Target, r.Status)
		}
	}
	for _, u := range g.Uses {
		if !node(u.Node) || u.Term < 0 || u.Term >= len(g.Terms) || u.Count <= 0 {
			return fmt.Errorf("use %+v out of range", u)
		}
	}
	return nil
}

// TestCorpusInvariants extracts every contract of the shared corpus and
// checks the invariants. Skipped with -short or without the corpus.
func TestCorpusInvariants(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	files, _ := filepath.Glob(filepath.Join(corpusDir, "cuad", "*.txt"))
	if len(files) == 0 {
		t.Skip("shared corpus not present at " + corpusDir)
	}
	if os.Getenv("PAKTON_SLOW") == "" && len(files) > 60 {
		files = files[:60]
	}
	var defs, refs, resolved int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := &document.Document{Name: filepath.Base(f), Text: string(b)}
		tr := clause.Parse(doc)
		g := Extract(doc, tr)
		if err := check(doc, tr, g); err != nil {
			t.Errorf("%s: %v", doc.Name, err)
		}
		defs += len(g.Definitions)
		refs += len(g.References)
		for _, r := range g.References {
			if r.Status == Resolved || r.Status == Within {
				resolved++
			}
		}
	}
	t.Logf("%d files: %d definitions, %d references (%d resolved)", len(files), defs, refs, resolved)
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		sample, "", "\"", "“X” means", "(the \"A\")", "Section", "Sections 1 through 9999", "§§ 5(a)-(z)",
		"Exhibit \"", "Article MMMM", "clauses (a) and", "\"X\" or \"Y\" or \"Z\" means (", "\xff\"\xfe\" means",
		"1.1 \"A\" means b.\n1.2 \"B\" has the meaning in Section 1.1(a)(ii) through (iv).",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		doc := &document.Document{Text: text}
		tr := clause.Parse(doc)
		g := Extract(doc, tr)
		if err := check(doc, tr, g); err != nil {
			t.Fatal(err)
		}
	})
}

func BenchmarkExtract(b *testing.B) {
	path := filepath.Join(corpusDir, "cuad", "Antares Pharma, Inc. - Manufacturing Agreement.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip("corpus not present")
	}
	doc := &document.Document{Text: string(data)}
	tr := clause.Parse(doc)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Extract(doc, tr)
	}
}
