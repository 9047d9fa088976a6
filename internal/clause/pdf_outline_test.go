package clause_test

// The labelled PDF sample: testdata/pdf_outline holds, for each of the 30
// CUAD PDFs in ../shared/data/cuad/pdf, the top-level and second-level
// numbered units a reader sees in the document (number and heading),
// labelled by hand from `pdftotext -layout` output, not from pakton's trees.
// TestPDFOutline parses every PDF and reports how many of those units the
// clause tree reproduces. See docs/EVALUATION.md ("Clause trees on PDFs").

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/parse"
)

const pdfDir = "../../../shared/data/cuad/pdf"

// outlineUnit is one labelled unit.
type outlineUnit struct {
	Number   string        `json:"number"`
	Heading  string        `json:"heading"`
	Children []outlineUnit `json:"children,omitempty"`
}

type outlineFile struct {
	PDF   string        `json:"pdf"`
	Units []outlineUnit `json:"units"`
}

// unitKey is a unit as the measurement compares it: the normalised number
// of its parent ("" at the top level), its own number and its heading.
type unitKey struct{ parent, number, heading string }

// labelKeywords lead a label that is a keyword and an identifier
// ("Exhibit A", "ARTICLE IV"); the rest of such a label ("Exhibit A to
// Exhibit E") does not identify it further.
var labelKeywords = map[string]bool{
	"article": true, "exhibit": true, "schedule": true, "annex": true, "appendix": true,
	"attachment": true, "addendum": true, "part": true, "item": true, "term": true,
}

// normNumber reduces a label to what identifies it: lower case, no quotes
// or dashes, no "Section"/"§" prefix, no final period.
func normNumber(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("“", " ", "”", " ", "\"", " ", "–", " ", "—", " ", "§", " ").Replace(s)
	f := strings.Fields(s)
	if len(f) > 0 && (f[0] == "section" || f[0] == "clause") {
		f = f[1:]
	}
	if len(f) > 2 && labelKeywords[f[0]] {
		f = f[:2]
	}
	return strings.TrimRight(strings.Join(f, " "), ".:")
}

// normHeading compares headings by their words, ignoring case and
// punctuation.
func normHeading(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

func expectedUnits(f outlineFile) []unitKey {
	var out []unitKey
	for _, u := range f.Units {
		top := normNumber(u.Number)
		out = append(out, unitKey{"", top, normHeading(u.Heading)})
		for _, c := range u.Children {
			out = append(out, unitKey{top, normNumber(c.Number), normHeading(c.Heading)})
		}
	}
	return out
}

// treeUnits returns the tree's top-level and second-level numbered units.
// A numbered unit is a node with a label that is not a list item ((a), (i)):
// items are not part of the sample. Unlabelled nodes (an unnumbered
// heading, the preamble) are transparent; a unit below an item is not a
// top- or second-level unit.
func treeUnits(t *clause.Tree) []unitKey {
	var out []unitKey
	var walk func(id int, path []string)
	walk = func(id int, path []string) {
		for _, c := range t.Nodes[id].Children {
			n := &t.Nodes[c]
			switch {
			case n.Kind == clause.KindItem || itemLabel(n.Label):
				// A lettered definition ("a. "Affiliate" means") is a list
				// item too.
				continue
			case n.Label == "":
				walk(c, path)
				continue
			}
			num := normNumber(n.Label)
			switch len(path) {
			case 0:
				out = append(out, unitKey{"", num, normHeading(n.Heading)})
			case 1:
				out = append(out, unitKey{path[0], num, normHeading(n.Heading)})
			default:
				continue
			}
			walk(c, append(path[:len(path):len(path)], num))
		}
	}
	walk(0, nil)
	return out
}

// itemLabel reports whether a label is list-item numbering: "(a)", "a.",
// "iv)", "1)".
func itemLabel(l string) bool {
	if strings.HasPrefix(l, "(") {
		return true
	}
	t := strings.TrimRight(l, ".)")
	if t == l || t == "" || len(t) > 4 {
		return false
	}
	if strings.HasSuffix(l, ")") {
		return true
	}
	for _, r := range t {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// matchUnits counts the units present in both lists (as multisets), by the
// full key and by number and nesting alone.
func matchUnits(want, got []unitKey) (full, structure int) {
	count := map[unitKey]int{}
	for _, u := range want {
		count[u]++
	}
	for _, u := range got {
		if count[u] > 0 {
			count[u]--
			full++
		}
	}
	type pk struct{ parent, number string }
	cs := map[pk]int{}
	for _, u := range want {
		cs[pk{u.parent, u.number}]++
	}
	for _, u := range got {
		k := pk{u.parent, u.number}
		if cs[k] > 0 {
			cs[k]--
			structure++
		}
	}
	return full, structure
}

// TestPDFOutline measures clause trees of the 30 CUAD PDFs against the
// labelled sample. It needs ../shared/data and PAKTON_SLOW=1 (pdfium reads
// 585 pages); PAKTON_PDF_ENGINE picks the engine (default auto). With
// PAKTON_OUTLINE_MIN=0.9 it fails when overall F1 (number, heading and
// nesting) falls below that value.
func TestPDFOutline(t *testing.T) {
	if os.Getenv("PAKTON_SLOW") != "1" {
		t.Skip("set PAKTON_SLOW=1 to parse the 30 CUAD PDFs")
	}
	if _, err := os.Stat(pdfDir); err != nil {
		t.Skip("shared PDFs not present at " + pdfDir)
	}
	files, err := filepath.Glob("testdata/pdf_outline/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no labelled outlines: %v", err)
	}
	sort.Strings(files)
	engine := os.Getenv("PAKTON_PDF_ENGINE")
	var sumWant, sumGot, sumFull, sumStruct int
	var report strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var of outlineFile
		if err := json.Unmarshal(b, &of); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		doc, err := parse.File(context.Background(), filepath.Join(pdfDir, of.PDF), parse.Options{PDFEngine: engine, OCR: parse.OCROff})
		if err != nil {
			t.Fatalf("%s: %v", of.PDF, err)
		}
		tr := clause.Parse(doc)
		if err := clause.Check(doc, tr); err != nil {
			t.Errorf("%s: %v", of.PDF, err)
		}
		want, got := expectedUnits(of), treeUnits(tr)
		full, st := matchUnits(want, got)
		sumWant += len(want)
		sumGot += len(got)
		sumFull += full
		sumStruct += st
		fmt.Fprintf(&report, "%-60.60s want %3d got %3d  P %.3f R %.3f  (structure P %.3f R %.3f)\n",
			of.PDF, len(want), len(got), ratio(full, len(got)), ratio(full, len(want)), ratio(st, len(got)), ratio(st, len(want)))
		if testing.Verbose() && os.Getenv("PAKTON_OUTLINE_DIFF") != "" {
			logDiff(t, of.PDF, want, got)
		}
	}
	p, r := ratio(sumFull, sumGot), ratio(sumFull, sumWant)
	sp, sr := ratio(sumStruct, sumGot), ratio(sumStruct, sumWant)
	fmt.Fprintf(&report, "ALL: %d labelled units, %d in trees; number+heading+nesting P %.3f R %.3f F1 %.3f; number+nesting P %.3f R %.3f F1 %.3f\n",
		sumWant, sumGot, p, r, f1(p, r), sp, sr, f1(sp, sr))
	t.Log("\n" + report.String())
	if min := os.Getenv("PAKTON_OUTLINE_MIN"); min != "" {
		var want float64
		if _, err := fmt.Sscan(min, &want); err == nil && f1(p, r) < want {
			t.Errorf("F1 %.3f below PAKTON_OUTLINE_MIN %s", f1(p, r), min)
		}
	}
}

func logDiff(t *testing.T, name string, want, got []unitKey) {
	count := map[unitKey]int{}
	for _, u := range got {
		count[u]++
	}
	for _, u := range want {
		if count[u] > 0 {
			count[u]--
			continue
		}
		t.Logf("%s: missing %q > %q %q", name, u.parent, u.number, u.heading)
	}
	count = map[unitKey]int{}
	for _, u := range want {
		count[u]++
	}
	for _, u := range got {
		if count[u] > 0 {
			count[u]--
			continue
		}
		t.Logf("%s: extra   %q > %q %q", name, u.parent, u.number, u.heading)
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}
