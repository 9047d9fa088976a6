package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// record builds a document whose every part carries tag, so a test can tell
// versions apart and spot a mix of two.
func record(name, tag string) *Record {
	text := "MASTER SERVICES AGREEMENT — " + tag + "\n1. Définitions\n1.1 \"Services\" means the services.\n"
	return &Record{
		Doc: &document.Document{
			ID: DocID(name), Name: name, Format: "text", Text: text,
			Pages:  []document.Page{{Number: 1, Span: document.Span{Start: 0, End: 30}}},
			Blocks: []document.Block{{Kind: document.BlockHeading, Span: document.Span{Start: 0, End: 27}, Label: tag}},
		},
		Tree: &clause.Tree{Nodes: []clause.Node{
			{ID: 0, Parent: -1, Children: []int{1}, Kind: clause.KindDocument, Span: document.Span{End: 60}},
			{ID: 1, Parent: 0, Kind: clause.KindSection, Label: tag, Depth: 1, Span: document.Span{Start: 30, End: 60}, Own: document.Span{Start: 30, End: 60}},
		}},
		Source: Source{
			Path: "/contracts/" + name, SHA256: strings.Repeat("ab", 32), Size: 1234,
			ModTime:    time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
			IngestedAt: time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC),
		},
		Artifacts: map[string][]byte{"units": []byte("units of " + tag), "postings": {0, 1, 2, 255}},
	}
}

func sameRecord(t *testing.T, got, want *Record) {
	t.Helper()
	g, w := got.Doc, want.Doc
	if g.ID != w.ID || g.Name != w.Name || g.Format != w.Format || g.Text != w.Text ||
		!reflect.DeepEqual(g.Pages, w.Pages) || !reflect.DeepEqual(g.Blocks, w.Blocks) {
		t.Errorf("document differs:\n got %+v\nwant %+v", g, w)
	}
	if !reflect.DeepEqual(got.Tree, want.Tree) {
		t.Errorf("tree differs:\n got %+v\nwant %+v", got.Tree, want.Tree)
	}
	gs, ws := got.Source, want.Source
	if gs.Path != ws.Path || gs.SHA256 != ws.SHA256 || gs.Size != ws.Size || !gs.ModTime.Equal(ws.ModTime) ||
		(!ws.IngestedAt.IsZero() && !gs.IngestedAt.Equal(ws.IngestedAt)) {
		t.Errorf("source differs:\n got %+v\nwant %+v", gs, ws)
	}
	wa := want.Artifacts
	if wa == nil {
		wa = map[string][]byte{}
	}
	if !reflect.DeepEqual(got.Artifacts, wa) {
		t.Errorf("artifacts differ:\n got %q\nwant %q", got.Artifacts, wa)
	}
}

func TestDocID(t *testing.T) {
	h := sha256.Sum256([]byte("MSA.pdf"))
	if got, want := DocID("MSA.pdf"), hex.EncodeToString(h[:8]); got != want || len(got) != 16 {
		t.Fatalf("DocID = %q, want %q", got, want)
	}
	if DocID("a") == DocID("b") {
		t.Fatal("DocID collides")
	}
}

func TestPutGetRoundTrip(t *testing.T) {
	s := openTemp(t)
	full := record("full.txt", "v1")
	noTree := record("notree.txt", "v1")
	noTree.Tree = nil
	bare := &Record{Doc: &document.Document{ID: "bare", Name: "bare", Format: "text"}}
	unicode := record("ünïcode.txt", "日本語 🙂")
	unicode.Artifacts = map[string][]byte{"empty": {}}
	zeroIngest := record("zero.txt", "v1")
	zeroIngest.Source.IngestedAt = time.Time{}
	for _, tc := range []struct {
		name string
		rec  *Record
	}{
		{"full", full}, {"no tree", noTree}, {"bare", bare}, {"unicode", unicode}, {"zero ingest time", zeroIngest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Put(t.Context(), DefaultCollection, tc.rec); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(t.Context(), DefaultCollection, tc.rec.Doc.ID)
			if err != nil {
				t.Fatal(err)
			}
			sameRecord(t, got, tc.rec)
			info, err := s.Info(t.Context(), DefaultCollection, tc.rec.Doc.ID)
			if err != nil {
				t.Fatal(err)
			}
			nodes := 0
			if tc.rec.Tree != nil {
				nodes = len(tc.rec.Tree.Nodes)
			}
			want := DocInfo{ID: tc.rec.Doc.ID, Name: tc.rec.Doc.Name, Format: tc.rec.Doc.Format,
				Runes: len([]rune(tc.rec.Doc.Text)), Pages: len(tc.rec.Doc.Pages), Nodes: nodes}
			info.Source = Source{}
			var names []string
			want.ArtifactSums = map[string]string{}
			for n, data := range tc.rec.Artifacts {
				names = append(names, n)
				sum := sha256.Sum256(data)
				want.ArtifactSums[n] = hex.EncodeToString(sum[:])
			}
			slices.Sort(names)
			want.Artifacts = names
			if !reflect.DeepEqual(info, want) {
				t.Errorf("Info = %+v, want %+v", info, want)
			}
			if got.Source.IngestedAt.IsZero() {
				t.Error("IngestedAt not set")
			}
		})
	}
	if !zeroIngest.Source.IngestedAt.IsZero() {
		t.Error("Put modified the caller's record")
	}
	text, err := os.ReadFile(filepath.Join(s.Dir(), "collections", "default", "docs", mustDir(t, s, "default", full.Doc.ID), "text.txt"))
	if err != nil || string(text) != full.Doc.Text {
		t.Errorf("text.txt = %q, %v; want the plain text", text, err)
	}
}

func mustDir(t *testing.T, s *Store, collection, id string) string {
	t.Helper()
	e, err := s.lookup(t.Context(), collection, id)
	if err != nil {
		t.Fatalf("no manifest entry for %s/%s: %v", collection, id, err)
	}
	return e.Dir
}

func TestArtifact(t *testing.T) {
	s := openTemp(t)
	rec := record("a.txt", "v1")
	if err := s.Put(t.Context(), DefaultCollection, rec); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id, name string
		want     []byte
		err      error
	}{
		{rec.Doc.ID, "units", []byte("units of v1"), nil},
		{rec.Doc.ID, "postings", []byte{0, 1, 2, 255}, nil},
		{rec.Doc.ID, "vectors", nil, ErrNotFound},
		{"nosuchdoc", "units", nil, ErrNotFound},
		{rec.Doc.ID, "../meta", nil, ErrInvalidName},
	} {
		got, err := s.Artifact(t.Context(), DefaultCollection, tc.id, tc.name)
		if !errors.Is(err, tc.err) || string(got) != string(tc.want) {
			t.Errorf("Artifact(%q, %q) = %q, %v; want %q, %v", tc.id, tc.name, got, err, tc.want, tc.err)
		}
	}
}

func TestDocumentSkipsArtifacts(t *testing.T) {
	s := openTemp(t)
	rec := record("a.txt", "v1")
	if err := s.Put(t.Context(), DefaultCollection, rec); err != nil {
		t.Fatal(err)
	}
	got, err := s.Document(t.Context(), DefaultCollection, rec.Doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Doc.Text != rec.Doc.Text || got.Tree == nil || len(got.Artifacts) != 0 {
		t.Fatalf("Document = text %q, tree %v, %d artifacts; want the text and tree without artifacts", got.Doc.Text, got.Tree != nil, len(got.Artifacts))
	}
	full, err := s.Get(t.Context(), DefaultCollection, rec.Doc.ID)
	if err != nil || len(full.Artifacts) != len(rec.Artifacts) {
		t.Fatalf("Get returned %d artifacts (%v), want %d", len(full.Artifacts), err, len(rec.Artifacts))
	}
	if _, err := s.Document(t.Context(), DefaultCollection, "nosuchdoc"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Document of a missing id: %v", err)
	}
}

func TestListSortedByName(t *testing.T) {
	s := openTemp(t)
	for _, n := range []string{"c.txt", "a.txt", "b.txt"} {
		if err := s.Put(t.Context(), DefaultCollection, record(n, n)); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.List(t.Context(), DefaultCollection)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range list {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"a.txt", "b.txt", "c.txt"}) {
		t.Fatalf("List names = %v", names)
	}
	if list[0].Nodes != 2 || list[0].Pages != 1 || list[0].ID != DocID("a.txt") {
		t.Errorf("List[0] = %+v", list[0])
	}
}

func TestDelete(t *testing.T) {
	s := openTemp(t)
	rec := record("a.txt", "v1")
	if err := s.Put(t.Context(), DefaultCollection, rec); err != nil {
		t.Fatal(err)
	}
	id := rec.Doc.ID
	if err := s.Delete(t.Context(), DefaultCollection, id); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"Get":    second(s.Get(t.Context(), DefaultCollection, id)),
		"Info":   second(s.Info(t.Context(), DefaultCollection, id)),
		"Delete": s.Delete(t.Context(), DefaultCollection, id),
		"Art":    second(s.Artifact(t.Context(), DefaultCollection, id, "units")),
	} {
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), "default") {
			t.Errorf("%s after Delete: %v, want ErrNotFound naming collection and id", name, err)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(s.Dir(), "collections", "default", "docs")); len(ents) != 0 {
		t.Errorf("docs dir not empty after Delete: %v", ents)
	}
}

func second[T any](_ T, err error) error { return err }

func TestReplace(t *testing.T) {
	s := openTemp(t)
	v1, v2 := record("a.txt", "v1"), record("a.txt", "version two, longer")
	v2.Artifacts = map[string][]byte{"units": []byte("new units")}
	v2.Tree = nil
	for _, r := range []*Record{v1, v2} {
		if err := s.Put(t.Context(), DefaultCollection, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Get(t.Context(), DefaultCollection, v1.Doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameRecord(t, got, v2)
	if _, err := s.Artifact(t.Context(), DefaultCollection, v1.Doc.ID, "postings"); !errors.Is(err, ErrNotFound) {
		t.Errorf("artifact of the replaced version still readable: %v", err)
	}
	if list, _ := s.List(t.Context(), DefaultCollection); len(list) != 1 {
		t.Errorf("List after replace has %d docs, want 1", len(list))
	}
	if ents, _ := os.ReadDir(filepath.Join(s.Dir(), "collections", "default", "docs")); len(ents) != 1 {
		t.Errorf("docs dir holds %d versions after replace, want 1", len(ents))
	}
}

func TestGeneration(t *testing.T) {
	s := openTemp(t)
	g0, err := s.Generation(t.Context(), DefaultCollection)
	if err != nil || g0 != 0 {
		t.Fatalf("Generation of a new store = %d, %v; want 0", g0, err)
	}
	rec := record("a.txt", "v1")
	steps := []struct {
		name   string
		op     func() error
		bumped bool
	}{
		{"put", func() error { return s.Put(t.Context(), DefaultCollection, rec) }, true},
		{"replace", func() error { return s.Put(t.Context(), DefaultCollection, rec) }, true},
		{"get", func() error { return second(s.Get(t.Context(), DefaultCollection, rec.Doc.ID)) }, false},
		{"list", func() error { return second(s.List(t.Context(), DefaultCollection)) }, false},
		{"put other", func() error { return s.Put(t.Context(), DefaultCollection, record("b.txt", "b")) }, true},
		{"delete", func() error { return s.Delete(t.Context(), DefaultCollection, rec.Doc.ID) }, true},
		{"failed delete", func() error { s.Delete(t.Context(), DefaultCollection, rec.Doc.ID); return nil }, false},
		{"create other collection", func() error { return s.CreateCollection(t.Context(), "other") }, false},
		{"put into other collection", func() error { return s.Put(t.Context(), "other", rec) }, false},
	}
	prev, _ := s.Generation(t.Context(), DefaultCollection)
	for _, st := range steps {
		if err := st.op(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		g, err := s.Generation(t.Context(), DefaultCollection)
		if err != nil {
			t.Fatal(err)
		}
		// The first write materialises the default collection, whose
		// generation starts from the clock.
		if st.bumped && g != prev+1 && !(prev == 0 && g != 0) || !st.bumped && g != prev {
			t.Errorf("after %s: generation %d -> %d, bumped=%v expected", st.name, prev, g, st.bumped)
		}
		prev = g
	}
	// A collection deleted and created again must not repeat a generation.
	before, _ := s.Generation(t.Context(), "other")
	if err := s.DeleteCollection(t.Context(), "other"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateCollection(t.Context(), "other"); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(t.Context(), "other", rec); err != nil {
		t.Fatal(err)
	}
	if after, _ := s.Generation(t.Context(), "other"); after == before {
		t.Errorf("recreated collection repeats generation %d", after)
	}
}

func TestCollections(t *testing.T) {
	s := openTemp(t)
	infos, err := s.Collections(t.Context())
	if err != nil || len(infos) != 1 || infos[0].Name != DefaultCollection || infos[0].Docs != 0 {
		t.Fatalf("Collections of a new store = %+v, %v; want just default", infos, err)
	}
	rec := record("a.txt", "in A")
	if err := s.Put(t.Context(), "deal-a", rec); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "deal-a") {
		t.Errorf("Put into a missing collection: %v, want ErrNotFound naming it", err)
	}
	for range 2 { // idempotent
		for _, c := range []string{"deal-a", "deal-b", DefaultCollection} {
			if err := s.CreateCollection(t.Context(), c); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Put(t.Context(), "deal-a", rec); err != nil {
		t.Fatal(err)
	}
	// Isolation: the document in A is invisible in B and default.
	for _, c := range []string{"deal-b", DefaultCollection} {
		if _, err := s.Get(t.Context(), c, rec.Doc.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get from %s: %v, want ErrNotFound", c, err)
		}
		if l, _ := s.List(t.Context(), c); len(l) != 0 {
			t.Errorf("List(%s) = %v, want empty", c, l)
		}
	}
	infos, err = s.Collections(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ci := range infos {
		got = append(got, fmt.Sprintf("%s:%d", ci.Name, ci.Docs))
		if ci.Created.IsZero() {
			t.Errorf("collection %s has no creation time", ci.Name)
		}
	}
	if !slices.Equal(got, []string{"deal-a:1", "deal-b:0", "default:0"}) {
		t.Errorf("Collections = %v", got)
	}
	if err := s.DeleteCollection(t.Context(), "deal-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(t.Context(), "deal-a", rec.Doc.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get from a deleted collection: %v", err)
	}
	if _, err := s.List(t.Context(), "deal-a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("List of a deleted collection: %v", err)
	}
	if err := s.DeleteCollection(t.Context(), "deal-a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting a missing collection: %v", err)
	}
	if err := s.Put(t.Context(), DefaultCollection, rec); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteCollection(t.Context(), DefaultCollection); err != nil {
		t.Fatal(err)
	}
	if l, err := s.List(t.Context(), DefaultCollection); err != nil || len(l) != 0 {
		t.Errorf("default after DeleteCollection: %v, %v; want empty", l, err)
	}
}

func TestInvalidNames(t *testing.T) {
	s := openTemp(t)
	bad := []string{"", ".", "..", "../x", "a/b", "/abs", ".hidden", "UPPER", "a b", "é", "a\\b", strings.Repeat("x", 65), "x\x00"}
	for _, name := range bad {
		rec := record("x", "x")
		rec.Doc.ID = name
		calls := map[string]error{
			"CreateCollection": s.CreateCollection(t.Context(), name),
			"DeleteCollection": s.DeleteCollection(t.Context(), name),
			"List":             second(s.List(t.Context(), name)),
			"Generation":       second(s.Generation(t.Context(), name)),
			"Put(coll)":        s.Put(t.Context(), name, record("x", "x")),
			"Put(id)":          s.Put(t.Context(), DefaultCollection, rec),
			"Get(coll)":        second(s.Get(t.Context(), name, "x")),
			"Get(id)":          second(s.Get(t.Context(), DefaultCollection, name)),
			"Info(id)":         second(s.Info(t.Context(), DefaultCollection, name)),
			"Delete(id)":       s.Delete(t.Context(), DefaultCollection, name),
			"Artifact(name)":   second(s.Artifact(t.Context(), DefaultCollection, "x", name)),
		}
		if len(name) == 65 { // too long for a collection but fine as an id
			delete(calls, "Put(id)")
			delete(calls, "Get(id)")
			delete(calls, "Info(id)")
			delete(calls, "Delete(id)")
		}
		for call, err := range calls {
			if !errors.Is(err, ErrInvalidName) {
				t.Errorf("%s(%q) = %v, want ErrInvalidName", call, name, err)
			}
		}
	}
	if err := s.Put(t.Context(), DefaultCollection, &Record{}); err == nil {
		t.Error("Put of a record without a document succeeded")
	}
	art := record("x", "x")
	art.Artifacts["../../escape"] = []byte("x")
	if err := s.Put(t.Context(), DefaultCollection, art); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Put with a bad artifact name: %v", err)
	}
	if ents, _ := os.ReadDir(s.Dir()); len(ents) != 3 {
		t.Errorf("store root holds %d entries, want VERSION, LOCK, collections", len(ents))
	}
}

func TestReopenSeesWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(dir) // another "process": own lock fd, own cache
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r1, r2 := record("one.txt", "v1"), record("two.txt", "v1")
	if err := a.Put(t.Context(), DefaultCollection, r1); err != nil {
		t.Fatal(err)
	}
	got, err := b.Get(t.Context(), DefaultCollection, r1.Doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameRecord(t, got, r1)
	if l, _ := b.List(t.Context(), DefaultCollection); len(l) != 1 {
		t.Fatal("b does not list a's document")
	}
	if err := b.Put(t.Context(), DefaultCollection, r2); err != nil {
		t.Fatal(err)
	}
	r1b := record("one.txt", "v2")
	if err := b.Put(t.Context(), DefaultCollection, r1b); err != nil {
		t.Fatal(err)
	}
	ga, _ := a.Generation(t.Context(), DefaultCollection)
	gb, _ := b.Generation(t.Context(), DefaultCollection)
	if ga != gb {
		t.Errorf("generations disagree: %d vs %d", ga, gb)
	}
	got, err = a.Get(t.Context(), DefaultCollection, r1.Doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameRecord(t, got, r1b)
	if l, _ := a.List(t.Context(), DefaultCollection); len(l) != 2 {
		t.Errorf("a lists %d documents, want 2", len(l))
	}
	a.Close()
	if _, err := a.Get(t.Context(), DefaultCollection, r1.Doc.ID); !errors.Is(err, ErrClosed) {
		t.Errorf("Get on a closed store: %v", err)
	}
	if err := a.Put(t.Context(), DefaultCollection, r1); !errors.Is(err, ErrClosed) {
		t.Errorf("Put on a closed store: %v", err)
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if l, _ := c.List(t.Context(), DefaultCollection); len(l) != 2 {
		t.Errorf("reopened store lists %d documents, want 2", len(l))
	}
}

func TestVersionFile(t *testing.T) {
	for _, tc := range []struct {
		content string
		wantErr string
	}{
		{"", ""},
		{"1\n", ""},
		{"3\n", "newer"},
		{"banana", "unreadable"},
	} {
		dir := t.TempDir()
		if tc.content != "" {
			os.WriteFile(filepath.Join(dir, "VERSION"), []byte(tc.content), 0o644)
		}
		s, err := Open(dir)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("VERSION %q: %v", tc.content, err)
				continue
			}
			s.Close()
			if b, _ := os.ReadFile(filepath.Join(dir, "VERSION")); string(b) != "2\n" {
				t.Errorf("VERSION = %q", b)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("VERSION %q: Open error %v, want one mentioning %q", tc.content, err, tc.wantErr)
			if s != nil {
				s.Close()
			}
		}
	}
}

// TestConcurrent runs writers and readers in goroutines of one process, over
// two Stores on the same directory; run with -race.
func TestConcurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	var stores [2]*Store
	for i := range stores {
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	if err := stores[0].Put(t.Context(), DefaultCollection, record("shared.txt", "w0-0")); err != nil {
		t.Fatal(err)
	}
	id := DocID("shared.txt")
	var writersWG sync.WaitGroup
	const writers, puts = 4, 15
	for w := range writers {
		writersWG.Go(func() {
			s := stores[w%2]
			for i := range puts {
				if err := s.Put(t.Context(), DefaultCollection, record("shared.txt", fmt.Sprintf("w%d-%d", w, i))); err != nil {
					t.Error(err)
					return
				}
				if err := s.Put(t.Context(), DefaultCollection, record(fmt.Sprintf("own-%d-%d.txt", w, i), "x")); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	stop := make(chan struct{})
	var readersWG sync.WaitGroup
	for r := range 2 {
		readersWG.Go(func() {
			s := stores[r]
			for {
				select {
				case <-stop:
					return
				default:
				}
				rec, err := s.Get(t.Context(), DefaultCollection, id)
				if err != nil {
					t.Error(err)
					return
				}
				tag := rec.Tree.Nodes[1].Label
				if !strings.Contains(rec.Doc.Text, tag) || string(rec.Artifacts["units"]) != "units of "+tag || rec.Doc.Blocks[0].Label != tag {
					t.Errorf("read a mix of versions: text %q, tree %q, units %q", rec.Doc.Text, tag, rec.Artifacts["units"])
					return
				}
			}
		})
	}
	writersWG.Wait()
	close(stop)
	readersWG.Wait()
	if l, _ := stores[1].List(t.Context(), DefaultCollection); len(l) != 1+writers*puts {
		t.Errorf("List has %d documents, want %d", len(l), 1+writers*puts)
	}
	g0, _ := stores[0].Generation(t.Context(), DefaultCollection)
	g1, _ := stores[1].Generation(t.Context(), DefaultCollection)
	if g0 != g1 {
		t.Errorf("generations disagree: %d vs %d", g0, g1)
	}
}
