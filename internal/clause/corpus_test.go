package clause

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/document"
)

const corpusDir = "../../../shared/data/legalbenchrag/corpus"

func corpusFiles(t testing.TB) []string {
	var files []string
	for _, sub := range []string{"cuad", "contractnli"} {
		m, _ := filepath.Glob(filepath.Join(corpusDir, sub, "*.txt"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("shared corpus not present at " + corpusDir)
	}
	return files
}

// TestCorpusInvariants parses every corpus file and checks the tree
// invariants. Skipped with -short.
func TestCorpusInvariants(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus test skipped in -short mode")
	}
	files := corpusFiles(t)
	var total time.Duration
	var chars, nodes int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := &document.Document{Name: filepath.Base(f), Text: string(b)}
		start := time.Now()
		tr := Parse(doc)
		total += time.Since(start)
		chars += len(b)
		nodes += len(tr.Nodes)
		if err := Check(doc, tr); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
	t.Logf("%d files, %d bytes, %d nodes (%.1f/doc), parse %v", len(files), chars, nodes, float64(nodes)/float64(len(files)), total)
}

// TestDumpTree prints the tree of the file named by PAKTON_TREE; a
// development aid.
func TestDumpTree(t *testing.T) {
	f := os.Getenv("PAKTON_TREE")
	if f == "" {
		t.Skip("set PAKTON_TREE=file to print its clause tree")
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	doc := &document.Document{Name: filepath.Base(f), Text: string(b)}
	tr := Parse(doc)
	if err := Render(os.Stdout, doc, tr, RenderOptions{Preview: 70}); err != nil {
		t.Fatal(err)
	}
	if err := Check(doc, tr); err != nil {
		t.Error(err)
	}
}

// TestCorpusStats prints per-corpus structure statistics when
// PAKTON_STATS is set; a development aid for judging parse quality.
func TestCorpusStats(t *testing.T) {
	if os.Getenv("PAKTON_STATS") == "" {
		t.Skip("set PAKTON_STATS=1 to print corpus statistics")
	}
	for _, sub := range []string{"cuad", "contractnli"} {
		files, _ := filepath.Glob(filepath.Join(corpusDir, sub, "*.txt"))
		if len(files) == 0 {
			continue
		}
		var docs, nodes, fallback, chars, fallbackChars, preChars, bigLeaf int
		kinds := map[Kind]int{}
		var dur time.Duration
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			doc := &document.Document{Text: string(b)}
			start := time.Now()
			tr := Parse(doc)
			dur += time.Since(start)
			docs++
			nodes += len(tr.Nodes)
			n := doc.Runes()
			chars += n
			numbered := 0
			for _, nd := range tr.Nodes {
				kinds[nd.Kind]++
				if nd.Label != "" {
					numbered++
				}
				if nd.Kind == KindPreamble {
					preChars += nd.Span.Len()
				}
				if nd.Leaf() && nd.Own.Len() > 5000 {
					bigLeaf++
				}
			}
			if numbered == 0 {
				fallback++
				fallbackChars += n
			}
			if os.Getenv("PAKTON_STATS") == "2" {
				t.Logf("%5d nodes %4d numbered %s", len(tr.Nodes), numbered, filepath.Base(f))
			}
		}
		t.Logf("%s: %d docs, %.1f nodes/doc, %d docs without numbering (%.1f%% of text), preamble %.1f%% of text, %d leaves > 5000 chars, parse %v; kinds %v",
			sub, docs, float64(nodes)/float64(docs), fallback, 100*float64(fallbackChars)/float64(chars), 100*float64(preChars)/float64(chars), bigLeaf, dur, kinds)
	}
}

// TestCorpusSample prints nodes whose own text is suspiciously short, for
// eyeballing false splits; set PAKTON_SAMPLE.
func TestCorpusSample(t *testing.T) {
	if os.Getenv("PAKTON_SAMPLE") == "" {
		t.Skip("set PAKTON_SAMPLE=1")
	}
	files := corpusFiles(t)
	count := 0
	for fi, f := range files {
		if fi%7 != 0 {
			continue
		}
		b, _ := os.ReadFile(f)
		doc := &document.Document{Text: string(b)}
		tr := Parse(doc)
		for _, nd := range tr.Nodes[1:] {
			if nd.Own.Len() < 25 && nd.Label != "" && count < 150 {
				count++
				prev := tr.Nodes[nd.ID-1]
				t.Logf("%-40.40s %-10s %q  <- after %q", filepath.Base(f), nd.Label, doc.Slice(nd.Own), previewText(doc.Slice(prev.Own), 50))
			}
		}
	}
}
