package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/parse/pdftest"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/store"
)

// TestIngestLayout: a PDF read by pdfium is stored with its layout and its
// source bytes (for page images); a text file with neither.
func TestIngestLayout(t *testing.T) {
	dir := t.TempDir()
	pdf := pdftest.OnePage("SUPPLY AGREEMENT", "1. Term", "This Agreement lasts five years.")
	os.WriteFile(filepath.Join(dir, "a.pdf"), pdf, 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte(contractText(1, 2)), 0o644)
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := Ingest(context.Background(), st, store.DefaultCollection, []string{dir}, Options{})
	if err != nil || sum.Err() != nil {
		t.Fatal(err, sum.Err())
	}
	a, err := st.Info(t.Context(), store.DefaultCollection, store.DocID("a.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(a.Artifacts, docread.ArtifactLayout) || !slices.Contains(a.Artifacts, docread.ArtifactSource) {
		t.Fatalf("PDF artifacts %v, want layout and source", a.Artifacts)
	}
	src, _ := st.Artifact(t.Context(), store.DefaultCollection, a.ID, docread.ArtifactSource)
	if !bytes.Equal(src, pdf) {
		t.Error("source artifact differs from the file")
	}
	raw, _ := st.Artifact(t.Context(), store.DefaultCollection, a.ID, docread.ArtifactLayout)
	l, err := document.DecodeLayout(raw)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := st.Get(t.Context(), store.DefaultCollection, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Pages) != 1 || len(l.Pages[0].Lines) != 3 || rec.Doc.Slice(l.Pages[0].Lines[2].Span) != "This Agreement lasts five years." {
		t.Errorf("layout %+v", l)
	}
	b, _ := st.Info(t.Context(), store.DefaultCollection, store.DocID("b.txt"))
	if slices.Contains(b.Artifacts, docread.ArtifactLayout) || slices.Contains(b.Artifacts, docread.ArtifactSource) {
		t.Errorf("text artifacts %v: want no layout or source", b.Artifacts)
	}
}
