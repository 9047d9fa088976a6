package store

import (
	"cmp"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// benchRecord is a 50 KB contract with a 200-node tree and two artifacts.
func benchRecord(name string) *Record {
	var b strings.Builder
	for i := 0; b.Len() < 50_000; i++ {
		fmt.Fprintf(&b, "%d.%d The Supplier shall indemnify and hold harmless the Customer from any claim.\n", i/10, i%10)
	}
	text := b.String()
	nodes := []clause.Node{{ID: 0, Parent: -1, Kind: clause.KindDocument, Span: document.Span{End: len(text)}}}
	for i := 1; i < 200; i++ {
		nodes[0].Children = append(nodes[0].Children, i)
		sp := document.Span{Start: (i - 1) * 250, End: i * 250}
		nodes = append(nodes, clause.Node{ID: i, Parent: 0, Kind: clause.KindClause, Label: fmt.Sprint(i), Depth: 1, Span: sp, Own: sp})
	}
	return &Record{
		Doc:       &document.Document{ID: DocID(name), Name: name, Format: "text", Text: text},
		Tree:      &clause.Tree{Nodes: nodes},
		Artifacts: map[string][]byte{"units": make([]byte, 8_000), "postings": make([]byte, 20_000)},
	}
}

// BenchmarkPut measures inserting a new 50 KB document (fsyncs included).
//
//	go test -run '^$' -bench . ./internal/store/
func BenchmarkPut(b *testing.B) {
	s := openTemp(b)
	rec := benchRecord("bench.txt")
	b.SetBytes(int64(len(rec.Doc.Text)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		rec.Doc.ID = fmt.Sprintf("doc-%d", i)
		if err := s.Put(b.Context(), DefaultCollection, rec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet measures reading a 50 KB document back with its tree and
// artifacts, checksums verified, from a collection of 100.
func BenchmarkGet(b *testing.B) {
	s := openTemp(b)
	rec := benchRecord("bench.txt")
	for i := range 100 {
		rec.Doc.ID = fmt.Sprintf("doc-%d", i)
		if err := s.Put(b.Context(), DefaultCollection, rec); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(rec.Doc.Text)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Get(b.Context(), DefaultCollection, fmt.Sprintf("doc-%d", i%100)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenCollection opens the default collection of an existing store
// read-only, as a one-shot command does first (PAKTON_OPEN_STORE=DIR; its
// checkpoint is used when there is one).
func BenchmarkOpenCollection(b *testing.B) {
	dir := os.Getenv("PAKTON_OPEN_STORE")
	if dir == "" {
		b.Skip("set PAKTON_OPEN_STORE to a store directory")
	}
	for b.Loop() {
		s, err := OpenReader(dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Collections(b.Context()); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkListCollection measures a collection's first listing after the
// store is opened read-only (PAKTON_OPEN_STORE=DIR; PAKTON_OPEN_COLLECTION,
// default "default"): every live record decoded, as a server's first
// document list does. -cpu 1,2 compares one decoder with several.
func BenchmarkListCollection(b *testing.B) {
	dir := os.Getenv("PAKTON_OPEN_STORE")
	if dir == "" {
		b.Skip("set PAKTON_OPEN_STORE to a store directory")
	}
	coll := cmp.Or(os.Getenv("PAKTON_OPEN_COLLECTION"), "default")
	for b.Loop() {
		b.StopTimer()
		s, err := OpenReader(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		infos, err := s.List(b.Context(), coll)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		b.ReportMetric(float64(len(infos)), "docs")
		s.Close()
		b.StartTimer()
	}
}
