package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/parse/pdftest"

	"github.com/pakton/pakton/examples"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

// TestIngestBadInput ingests one directory holding good contracts next to
// every kind of bad input of issue §9. Each bad file must fail (or be
// skipped) with an error naming it and the reason, the good ones must be
// stored, and the store must read back consistently.
func TestIngestBadInput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "batch")
	pdf := pdftest.OnePage("SUPPLY AGREEMENT", "1. Term", "This Agreement lasts five years.", "2. Governing Law", "The laws of Delaware govern.")
	encrypted, err := os.ReadFile(filepath.Join("..", "parse", "testdata", "pdf", "encrypted-rc4.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	docx, err := examples.FS.ReadFile("contracts/supply-agreement.docx")
	if err != nil {
		t.Fatal(err)
	}
	html, err := examples.FS.ReadFile("contracts/software-license-agreement.html")
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(i*7919 + i/3)
	}
	latin1 := []byte(contractText(9, 3) + "\nSigned at Cr\xe9teil, Fran\xe7ois D\xfcrr, \xa9 2024.\n")

	files := map[string][]byte{
		"good-1.txt":             []byte(contractText(1, 4)),
		"good-2.md":              []byte(contractText(2, 3)),
		"sub/good-3.txt":         []byte(contractText(3, 3)),
		"good.pdf":               pdf,
		"supply.docx":            docx,
		"license.html":           html,
		"latin1.txt":             latin1,
		".hidden.txt":            []byte(contractText(4, 2)),
		".git/objects/x.txt":     []byte(contractText(5, 2)),
		"notes.csv":              []byte("a,b\n1,2\n"),
		"corrupt.pdf":            append([]byte("%PDF-1.4\n"), garbage...),
		"truncated.pdf":          pdf[:200],
		"encrypted.pdf":          encrypted,
		"malformed.docx":         append([]byte("PK\x03\x04"), garbage...),
		"no-document-part.docx":  zipOf(t, map[string][]byte{"[Content_Types].xml": []byte("<Types/>")}),
		"bomb.docx":              zipBomb(t, 70<<20, false),
		"bomb-lying-header.docx": zipBomb(t, 70<<20, true),
		"garbage.txt":            garbage,
		"empty.txt":              nil,
	}
	for name, data := range files {
		writeFile(t, src, name, data)
	}
	// 200 MB, sparse: over the 100 MB limit set below without writing it.
	huge := writeFile(t, src, "huge.txt", nil)
	if err := os.Truncate(huge, 200<<20); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "missing.txt"), filepath.Join(src, "dangling.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(src, "fifo.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	unreadable := os.Geteuid() != 0 // root reads files whatever their mode
	if unreadable {
		p := writeFile(t, src, "unreadable.txt", []byte(contractText(6, 2)))
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
	}

	type want struct {
		status Status
		is     error  // the error must wrap this, when set
		reason string // the reason must contain this
	}
	wants := map[string]want{
		"good-1.txt":             {status: StatusAdded},
		"good-2.md":              {status: StatusAdded},
		"sub/good-3.txt":         {status: StatusAdded},
		"good.pdf":               {status: StatusAdded},
		"supply.docx":            {status: StatusAdded},
		"license.html":           {status: StatusAdded},
		"latin1.txt":             {status: StatusAdded},
		"notes.csv":              {status: StatusSkipped, reason: "unsupported file type (.csv"},
		"corrupt.pdf":            {status: StatusFailed, is: parse.ErrCorrupt},
		"truncated.pdf":          {status: StatusFailed},
		"encrypted.pdf":          {status: StatusFailed, is: parse.ErrEncrypted, reason: "encrypted"},
		"malformed.docx":         {status: StatusFailed},
		"no-document-part.docx":  {status: StatusFailed},
		"bomb.docx":              {status: StatusFailed, is: parse.ErrTooLarge, reason: "zip bomb"},
		"bomb-lying-header.docx": {status: StatusFailed},
		"garbage.txt":            {status: StatusFailed, is: parse.ErrNotText, reason: "binary"},
		"empty.txt":              {status: StatusFailed, is: parse.ErrEmpty, reason: "empty file"},
		"huge.txt":               {status: StatusFailed, is: parse.ErrTooLarge, reason: "file too large: 209715200 bytes (200 MiB), the limit is 104857600 bytes (100 MiB)"},
		"dangling.txt":           {status: StatusFailed, reason: "broken symbolic link"},
		"fifo.txt":               {status: StatusFailed, reason: "not a regular file (named pipe)"},
	}
	if unreadable {
		wants["unreadable.txt"] = want{status: StatusFailed, is: os.ErrPermission, reason: "permission denied"}
	}

	storeDir := filepath.Join(dir, "store")
	st, err := store.Open(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	var calls int
	sum, err := Ingest(context.Background(), st, "room-1", []string{src}, Options{
		Parse:    parse.Options{MaxBytes: 100 << 20, OCR: parse.OCROff},
		Progress: func(p Progress) { calls++ },
	})
	if err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	if calls != len(sum.Files)+1 {
		t.Errorf("progress called %d times for %d files, want once more (the start)", calls, len(sum.Files))
	}
	got := map[string]FileResult{}
	for _, f := range sum.Files {
		got[f.Name] = f
	}
	for name, w := range wants {
		f, ok := got[name]
		if !ok {
			t.Errorf("%s: missing from the summary", name)
			continue
		}
		if f.Status != w.status {
			t.Errorf("%s: status %s (%s), want %s", name, f.Status, f.Reason, w.status)
			continue
		}
		if w.status == StatusFailed {
			if f.Err == nil || !strings.Contains(f.Err.Error(), f.Path) {
				t.Errorf("%s: error %v does not name the file %s", name, f.Err, f.Path)
			}
			if f.Reason == "" {
				t.Errorf("%s: failed without a reason", name)
			}
			if w.is != nil && !errors.Is(f.Err, w.is) {
				t.Errorf("%s: error %q does not wrap %v", name, f.Err, w.is)
			}
		}
		if !strings.Contains(f.Reason, w.reason) {
			t.Errorf("%s: reason %q lacks %q", name, f.Reason, w.reason)
		}
		t.Logf("%-24s %-8s %s", name, f.Status, f.Reason)
	}
	for name := range got {
		if _, ok := wants[name]; !ok {
			t.Errorf("%s: in the summary but not expected (hidden files must be skipped silently)", name)
		}
	}
	if sum.Err() == nil {
		t.Error("Summary.Err() is nil despite failed files")
	}
	st.Close()

	if n := verifyStore(t.Context(), t, storeDir, "room-1"); n != 7 {
		t.Errorf("store holds %d documents, want 7", n)
	}
	st, err = store.Open(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec, err := st.Get(t.Context(), "room-1", store.DocID("latin1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.Doc.Text, "Créteil, François Dürr, © 2024") {
		t.Errorf("latin1.txt: Windows-1252 text not decoded: %q", rec.Doc.Text[len(rec.Doc.Text)-60:])
	}
}

// TestIngestAgain checks names, ids, and the added / unchanged / replaced
// cycle, including a file given directly (named by its base name) and a
// missing path.
func TestIngestAgain(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "deals/a.txt", []byte(contractText(1, 2)))
	writeFile(t, dir, "deals/nested/b.txt", []byte(contractText(2, 2)))
	single := writeFile(t, dir, "elsewhere/c.md", []byte(contractText(3, 2)))
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	paths := []string{filepath.Join(dir, "deals"), single, filepath.Join(dir, "nope.txt")}
	sum, err := Ingest(ctx, st, store.DefaultCollection, paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	statuses := func(s Summary) string {
		var out []string
		for _, f := range s.Files {
			out = append(out, f.Name+"="+string(f.Status))
		}
		return strings.Join(out, " ")
	}
	if got, want := statuses(sum), "a.txt=added nested/b.txt=added c.md=added nope.txt=failed"; got != want {
		t.Errorf("first run: %s, want %s", got, want)
	}
	for _, f := range sum.Files[:3] {
		if f.ID != store.DocID(f.Name) {
			t.Errorf("%s: id %s, want %s", f.Name, f.ID, store.DocID(f.Name))
		}
	}
	if r := sum.Files[3].Reason; r != "no such file or directory" {
		t.Errorf("missing path reason %q", r)
	}

	if err := os.WriteFile(a, []byte(contractText(11, 3)), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err = Ingest(ctx, st, store.DefaultCollection, paths[:2], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := statuses(sum), "a.txt=replaced nested/b.txt=unchanged c.md=unchanged"; got != want {
		t.Errorf("second run: %s, want %s", got, want)
	}
	sum, err = Ingest(ctx, st, store.DefaultCollection, paths[:1], Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := statuses(sum), "a.txt=replaced nested/b.txt=replaced"; got != want {
		t.Errorf("forced run: %s, want %s", got, want)
	}
	rec, err := st.Get(t.Context(), store.DefaultCollection, store.DocID("a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.Doc.Text, "SERVICES AGREEMENT NO. 11") {
		t.Error("replaced document still holds the old text")
	}
	if !strings.Contains(sum.String(), "0 added, 2 replaced") {
		t.Errorf("summary line %q", sum.String())
	}
}

// TestIngestDuplicateNames refuses a second file with the same document
// name rather than letting it replace the first.
func TestIngestDuplicateNames(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "one/a.txt", []byte(contractText(1, 2)))
	writeFile(t, dir, "two/a.txt", []byte(contractText(2, 2)))
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := Ingest(context.Background(), st, store.DefaultCollection, []string{filepath.Join(dir, "one"), filepath.Join(dir, "two"), filepath.Join(dir, "one")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Files) != 2 || sum.Files[0].Status != StatusAdded || sum.Files[1].Status != StatusFailed ||
		!strings.Contains(sum.Files[1].Reason, "same document name") {
		t.Errorf("summary: %+v", sum.Files)
	}
}

// TestIngestCancel cancels an ingest after the first file: the call returns
// the cancellation, and whatever was stored reads back.
func TestIngestCancel(t *testing.T) {
	dir := t.TempDir()
	for i := range 30 {
		writeFile(t, dir, filepath.Join("src", "c"+string(rune('a'+i%26))+string(rune('a'+i/26))+".txt"), []byte(contractText(i, 6)))
	}
	storeDir := filepath.Join(dir, "store")
	st, err := store.Open(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum, err := Ingest(ctx, st, store.DefaultCollection, []string{filepath.Join(dir, "src")}, Options{
		Progress: func(p Progress) {
			if p.Done > 0 {
				cancel()
			}
		},
	})
	st.Close()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Ingest error %v, want context.Canceled", err)
	}
	if len(sum.Files) == 0 || len(sum.Files) >= 30 {
		t.Errorf("summary lists %d files after cancelling at the first", len(sum.Files))
	}
	n := verifyStore(t.Context(), t, storeDir, store.DefaultCollection)
	if n < 1 || n > len(sum.Files) {
		t.Errorf("store holds %d documents; the summary lists %d", n, len(sum.Files))
	}
}

// TestLoadIndexBadSegment damages one document's segment: Load analyzes
// that document again from its stored text and Reindex repairs it. A
// document whose stored text is damaged is left out with an error naming it.
func TestLoadIndexBadSegment(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "src/a.txt", []byte(contractText(1, 3)))
	writeFile(t, dir, "src/b.txt", []byte(contractText(2, 3)))
	storeDir := filepath.Join(dir, "store")
	st, err := store.Open(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := Ingest(ctx, st, store.DefaultCollection, []string{filepath.Join(dir, "src")}, Options{}); err != nil {
		t.Fatal(err)
	}
	const q = "obligation 2-3-2 due care"
	ix0, err := LoadIndex(ctx, st, store.DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	before, err := ix0.Search(ctx, search.Query{Text: q, K: 3})
	if err != nil {
		t.Fatal(err)
	}

	// Store b.txt again with a segment that does not decode (as one written
	// by another version of pakton would not).
	id := store.DocID("b.txt")
	rec, err := st.Get(t.Context(), store.DefaultCollection, id)
	if err != nil {
		t.Fatal(err)
	}
	rec.Artifacts[docread.ArtifactSegment] = []byte("PKSEG0\n\xff\xff\xff")
	if err := st.Put(t.Context(), store.DefaultCollection, rec); err != nil {
		t.Fatal(err)
	}
	ix, rep, err := Load(ctx, st, store.DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Docs() != 2 || len(rep.Reanalyzed) != 1 || !strings.Contains(rep.Reanalyzed[0], "b.txt") || len(rep.Skipped) != 0 {
		t.Errorf("index holds %d docs, report %+v; want 2 docs, b.txt re-analyzed", ix.Docs(), rep)
	}
	if after, err := ix.Search(ctx, search.Query{Text: q, K: 3}); err != nil || fmt.Sprint(after.Hits) != fmt.Sprint(before.Hits) {
		t.Errorf("hits differ after re-analysis (%v):\n%v\n%v", err, before.Hits, after.Hits)
	}
	if n, err := Reindex(ctx, st, store.DefaultCollection, nil); err != nil || n != 2 {
		t.Fatalf("Reindex: %d, %v", n, err)
	}
	if _, rep, _ = Load(ctx, st, store.DefaultCollection); len(rep.Reanalyzed) != 0 {
		t.Errorf("after Reindex, still re-analyzed: %v", rep.Reanalyzed)
	}

	// Damage b.txt's stored segment file (same size, so only its checksum
	// notices): the document cannot be read reliably and is left out.
	matches, _ := filepath.Glob(filepath.Join(storeDir, "collections", "default", "docs", id+"@*", "artifacts", docread.ArtifactSegment+".bin"))
	if len(matches) != 1 {
		t.Fatalf("found %d segment files for %s", len(matches), id)
	}
	data, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(matches[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The index written by the last load does not read the stored
	// segments: it answers as before. Built again, the index leaves b.txt
	// out, and the next load tries it again.
	if ix, rep, err = Load(ctx, st, store.DefaultCollection); err != nil || !rep.Opened || ix.Docs() != 2 {
		t.Fatalf("load with a current index: %d docs, report %+v, %v; want it opened with 2 docs", ix.Docs(), rep, err)
	}
	cache, err := st.CacheDir(t.Context(), store.DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(cache, IndexDir)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		ix, rep, err = Load(ctx, st, store.DefaultCollection)
		if err != nil {
			t.Fatal(err)
		}
		if ix.Docs() != 1 || len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0].Error(), "b.txt") || !strings.Contains(rep.Skipped[0].Error(), "checksum") {
			t.Errorf("with a damaged segment file: %d docs, skipped %v; want 1 doc and an error naming b.txt", ix.Docs(), rep.Skipped)
		}
		if rep.Opened {
			t.Error("an index with a document left out was taken as up to date")
		}
	}
}
