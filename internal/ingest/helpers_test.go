package ingest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
)

// contractText generates a small agreement with articles, numbered
// clauses, lettered items and a definition; seed varies names and numbers so
// generated documents differ. Each article adds about 1,000 characters.
func contractText(seed, articles int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "SERVICES AGREEMENT NO. %d\n\nThis Services Agreement is made between Provider %d Ltd and Customer %d Inc.\n\n", seed, seed, seed*7)
	fmt.Fprintf(&b, "ARTICLE 1 DEFINITIONS\n\n1.1 \"Services\" means the services described in Schedule %d.\n\n", seed%5+1)
	for a := 2; a <= articles; a++ {
		fmt.Fprintf(&b, "ARTICLE %d OBLIGATIONS PART %d\n\n", a, a)
		for c := 1; c <= 3; c++ {
			fmt.Fprintf(&b, "%d.%d The Provider shall perform obligation %d-%d-%d with due care and within %d days of a written request by the Customer, except that:\n\n", a, c, seed, a, c, (seed+a+c)%60+1)
			for i, l := range []string{"a", "b"} {
				fmt.Fprintf(&b, "(%s) no obligation applies to goods delivered after termination under clause %d.%d; and\n\n", l, a, i+1)
			}
		}
	}
	fmt.Fprintf(&b, "IN WITNESS WHEREOF the parties have signed this Agreement number %d.\n", seed)
	return b.String()
}

// writeFile writes data to dir/name, creating directories.
func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// zipOf builds a zip from name → content pairs.
func zipOf(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zipBomb returns a DOCX-named zip whose document part expands to n bytes
// of XML-ish filler. When lie is set, the zip header claims the part is
// tiny, so only a bounded read stops it.
func zipBomb(t testing.TB, n int, lie bool) []byte {
	t.Helper()
	var raw bytes.Buffer
	fw, _ := flate.NewWriter(&raw, flate.BestCompression)
	chunk := bytes.Repeat([]byte(" "), 1<<16)
	fw.Write([]byte(`<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`))
	for written := 0; written < n; written += len(chunk) {
		fw.Write(chunk)
	}
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	size := uint64(n)
	if lie {
		size = 1000
	}
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate, CompressedSize64: uint64(raw.Len()), UncompressedSize64: size})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(raw.Bytes())
	w2, _ := zw.Create("[Content_Types].xml")
	w2.Write([]byte(`<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// verifyStore reopens the store in dir and checks that every listed
// document reads back whole (checksums verified), has valid UTF-8 text, a
// clause tree, a summary, and a segment that decodes and belongs to it; and
// that the collection's index loads with no document left out. It returns
// the number of documents.
func verifyStore(ctx context.Context, t testing.TB, dir, collection string) int {
	t.Helper()
	st, err := store.Open(dir)
	if err != nil {
		t.Fatalf("reopen store: %v", err)
	}
	defer st.Close()
	infos, err := st.List(ctx, collection)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	for _, in := range infos {
		rec, err := st.Get(ctx, collection, in.ID)
		if err != nil {
			t.Errorf("document %s (%s) does not read back: %v", in.ID, in.Name, err)
			continue
		}
		if !utf8.ValidString(rec.Doc.Text) || rec.Doc.Text == "" {
			t.Errorf("document %s: text empty or not valid UTF-8", in.Name)
		}
		if rec.Tree == nil || len(rec.Tree.Nodes) == 0 {
			t.Errorf("document %s: no clause tree", in.Name)
		}
		if len(rec.Artifacts[docread.ArtifactSummary]) == 0 {
			t.Errorf("document %s: no summary artifact", in.Name)
		}
		seg, err := index.DecodeDoc(rec.Artifacts[docread.ArtifactSegment])
		if err != nil {
			t.Errorf("document %s: segment: %v", in.Name, err)
		} else if seg.ID != in.ID || seg.Name != in.Name {
			t.Errorf("document %s: segment names %s (%s)", in.Name, seg.ID, seg.Name)
		}
		if in.ID != store.DocID(in.Name) {
			t.Errorf("document %s: id %s, want DocID(name) %s", in.Name, in.ID, store.DocID(in.Name))
		}
	}
	_, rep, err := Load(context.Background(), st, collection)
	if err != nil {
		t.Fatalf("load index: %v", err)
	}
	for _, p := range rep.Skipped {
		t.Errorf("load index: %v", p)
	}
	if len(rep.Reanalyzed) > 0 {
		t.Errorf("load index re-analyzed %v: their stored segments do not decode", rep.Reanalyzed)
	}
	return len(infos)
}
