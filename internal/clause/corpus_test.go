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
