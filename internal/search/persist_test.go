package search

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/embed"
	"github.com/pakton/pakton/internal/embed/embedtest"
	"github.com/pakton/pakton/internal/search/index"
)

// persist writes ix to a temporary file and opens it again.
func persist(t testing.TB, ix *Index, label uint64) (*Index, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "search.idx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.WriteTo(f, label); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	opened, err := OpenIndex(path, label)
	if err != nil {
		t.Fatal(err)
	}
	return opened, path
}

// persistQueries exercise routing, reference-term removal, expansion,
// document filters, filling and every view.
var persistQueries = []Query{
	{Text: "Consider the Supply Agreement between Acme Widgets and Borealis Foods; is there a cap on liability?", K: 5},
	{Text: "In the Zenith Software license, can the licensee assign?", K: 3},
	{Text: "which law governs?", K: 10},
	{Text: "liability", K: 10, Docs: []string{"orion-nda"}},
	{Text: "confidential information", K: 4, Views: []View{ViewPlain}},
	{Text: "deliver products assign", K: 8, NoExpand: true, NoRoute: true},
	{Text: "nothing matches zzzz", K: 3, Docs: []string{"acme-supply"}},
}

// TestPersistedIndexAnswersTheSame writes an index, opens the file and
// checks that every query returns exactly what the built index returns.
func TestPersistedIndexAnswersTheSame(t *testing.T) {
	built := corpus(t, contracts)
	opened, _ := persist(t, built, 42)
	sameIndex(t, reflect.ValueOf(opened).Elem(), reflect.ValueOf(built).Elem(), "Index")
	for _, q := range persistQueries {
		want, got := built.Search(q), opened.Search(q)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: opened index returned %+v, built %+v", q.Text, got, want)
		}
		if len(want.Hits) == 0 && !strings.Contains(q.Text, "zzzz") {
			t.Errorf("%q: no hits; the test proves nothing", q.Text)
		}
	}
	for id := range contracts {
		if opened.DocName(id) != built.DocName(id) {
			t.Errorf("DocName(%s) = %q, want %q", id, opened.DocName(id), built.DocName(id))
		}
	}
	if err := opened.Add(DocInput{ID: "new"}); !errors.Is(err, ErrMapped) {
		t.Errorf("Add to an opened index: %v, want ErrMapped", err)
	}
}

func TestPersistedIndexKeepsVectors(t *testing.T) {
	srv := embedtest.NewServer(t, concepts)
	emb, err := embed.New(embed.Config{BaseURL: srv.BaseURL(), Model: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	built := denseCorpus(t, emb)
	opened, _ := persist(t, built, 1)
	sameIndex(t, reflect.ValueOf(opened).Elem(), reflect.ValueOf(built).Elem(), "Index")
	if d, m := opened.Dense(); !d || m != "scripted" {
		t.Fatalf("opened index Dense() = %v %q", d, m)
	}
	qv, err := emb.Embed(t.Context(), []string{"can we cancel early for any reason"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []Query{
		{Text: "can we cancel early for any reason", K: 2, Vector: qv[0]},
		{Text: "can we cancel early for any reason", K: 2, Vector: qv[0], Docs: []string{"msa"}},
	} {
		if want, got := built.Search(q), opened.Search(q); !reflect.DeepEqual(got, want) {
			t.Errorf("hybrid search on the opened index %+v, built %+v", got, want)
		}
	}
}

func TestOpenIndexRefusesStaleAndDamaged(t *testing.T) {
	built := corpus(t, contracts)
	_, path := persist(t, built, 7)
	if _, err := OpenIndex(path, 8); !errors.Is(err, ErrStaleIndex) {
		t.Errorf("label 8 over a file of label 7: %v, want ErrStaleIndex", err)
	}
	if _, err := OpenIndex(filepath.Join(t.TempDir(), "none"), 7); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damage := map[string]func([]byte) []byte{
		"truncated":     func(b []byte) []byte { return b[:len(b)/2] },
		"empty":         func(b []byte) []byte { return nil },
		"other format":  func(b []byte) []byte { b[8]++; return b },
		"section table": func(b []byte) []byte { b[headerSize+8+3]++; return b },
		"meta":          func(b []byte) []byte { b[int(leU64(b[headerSize+8:]))+2] ^= 1; return b },
	}
	for name, f := range damage {
		p := filepath.Join(t.TempDir(), "x.idx")
		if err := os.WriteFile(p, f(append([]byte(nil), good...)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenIndex(p, 7); !errors.Is(err, ErrBadIndex) {
			t.Errorf("%s: %v, want ErrBadIndex", name, err)
		}
	}
}

func leU64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// TestDamagedArraysNeverPanic flips random bytes in the unchecksummed
// arrays of an index file: searches may misrank but must not panic.
func TestDamagedArraysNeverPanic(t *testing.T) {
	built := corpus(t, contracts)
	_, path := persist(t, built, 3)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(5))
	start := int(leU64(good[headerSize+(secDocRange-1)*tableEntry+8:]))
	for round := range 200 {
		b := append([]byte(nil), good...)
		for range 1 + rng.Intn(20) {
			b[start+rng.Intn(len(b)-start)] = byte(rng.Intn(256))
		}
		p := filepath.Join(t.TempDir(), fmt.Sprint(round))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := OpenIndex(p, 3)
		if err != nil {
			continue
		}
		for _, q := range persistQueries {
			ix.Search(q)
		}
	}
}

// notPersisted are the Index fields a persisted index does not carry: caches
// rebuilt lazily, and the mapping itself. The learned associations are
// written (learned.go) but a built index learns them lazily instead, so they
// are compared by TestPersistedAssociations.
var notPersisted = map[string]bool{"Index.assoc": true, "Index.accs": true, "Index.mapped": true,
	"Index.headOnce": true, "Index.bodies": true, "Index.selfRef": true, "Index.scratch": true,
	"Index.assocOff": true, "Index.assocList": true, "Index.bodyOff": true, "Index.bodyList": true,
	"Index.vocab": true, "Index.vocabHash": true, "Index.headTermOnce": true, "Index.isHead": true,
	// posting lists, by term in a built index, flat in an opened one:
	// compared by TestPersistedVocabulary
	"Index.post": true, "Index.postAll": true, "Index.postOff": true,
	"Index.router.post": true, "Index.router.all": true, "Index.router.off": true, // the vocabulary: TestPersistedVocabulary
	// the names by first word: built on first use by an opened index
	"Index.nameTab.first": true, "Index.nameTab.firstOnce": true}

// TestPersistedVocabulary checks that an opened index finds every term of
// the built one under the same id, with the same postings and header
// postings, and no other word.
func TestPersistedVocabulary(t *testing.T) {
	built := corpus(t, contracts)
	opened, _ := persist(t, built, 1)
	if opened.vocab != nil || len(opened.vocabHash) < 2*len(built.terms) {
		t.Fatalf("opened index: map %v, hash table of %d slots for %d terms", opened.vocab != nil, len(opened.vocabHash), len(built.terms))
	}
	for want, term := range built.terms {
		if got, ok := opened.lookup(term); !ok || got != int32(want) {
			t.Errorf("%q: %d %v, want %d", term, got, ok, want)
		}
		tid := int32(want)
		if a, b := opened.plist(tid), built.plist(tid); len(a) != len(b) || len(a) > 0 && !reflect.DeepEqual(a, b) {
			t.Errorf("%q: opened postings %v, built %v", term, a, b)
		}
		if a, b := opened.router.plist(tid), built.router.plist(tid); len(a) != len(b) || len(a) > 0 && !reflect.DeepEqual(a, b) {
			t.Errorf("%q: opened header postings %v, built %v", term, a, b)
		}
	}
	for _, w := range []string{"", "zzzz", "liabilityx", index.HeadMark} {
		if _, ok := opened.lookup(w); ok {
			t.Errorf("%q found", w)
		}
	}
	// A damaged table loses words, never loops or crashes.
	for _, slots := range [][]int32{{5, 5, 5, 5, 5, 5, 5, 5}, {-7, 0, 1 << 30, 0}, {1, 2, 3}} {
		lookupHash(slots, built.terms, "liability")
	}
}

// TestPersistedAssociations checks that an opened index carries, for every
// term, the word and heading-body associations the built index learns on
// first use, and that a damaged list is dropped rather than used.
func TestPersistedAssociations(t *testing.T) {
	built := corpus(t, contracts)
	opened, _ := persist(t, built, 1)
	if opened.assocOff == nil || opened.bodyOff == nil {
		t.Fatal("the opened index carries no learned associations")
	}
	some := 0
	for tid := range built.terms {
		if index.IsMarked(built.terms[tid]) {
			continue
		}
		want, got := built.associations(int32(tid)), opened.associations(int32(tid))
		if len(want) != len(got) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
			t.Errorf("%q: opened associations %v, learned %v", built.terms[tid], got, want)
		}
		some += len(want)
		want, got = built.bodyAssociations(int32(tid)), opened.bodyAssociations(int32(tid))
		if len(want) != len(got) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
			t.Errorf("%q: opened body associations %v, learned %v", built.terms[tid], got, want)
		}
		some += len(want)
	}
	if some == 0 {
		t.Fatal("the test corpus has no associations: the test checks nothing")
	}
	// Damaged lists (the arrays are not checksummed) are dropped.
	ix := &Index{terms: []string{"a", "b"}}
	list := []assocTerm{{1, 1}, {2, 1}}
	for _, c := range []struct {
		off  []int32
		want int
	}{{[]int32{0, 1, 2}, 1}, {[]int32{0, 2, 2}, 0}, {[]int32{0, 3, 3}, 0}, {[]int32{1, 0, 2}, 0}, {[]int32{0}, 0}} {
		if got := ix.stored(c.off, list, 0); len(got) != c.want {
			t.Errorf("offsets %v: %v", c.off, got)
		}
	}
}

// sameIndex compares every field of two Index values, recursively (nil and
// empty slices are equal), so a field added to Index or its router and not
// written by WriteTo fails here rather than in a user's search.
func sameIndex(t *testing.T, got, want reflect.Value, path string) {
	t.Helper()
	if notPersisted[path] {
		return
	}
	switch want.Kind() {
	case reflect.Struct:
		for i := range want.NumField() {
			sameIndex(t, got.Field(i), want.Field(i), path+"."+want.Type().Field(i).Name)
		}
	case reflect.Slice, reflect.Array:
		if got.Len() != want.Len() {
			t.Errorf("%s: opened index has %d elements, built %d", path, got.Len(), want.Len())
			return
		}
		for i := range want.Len() {
			sameIndex(t, got.Index(i), want.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		if got.Len() != want.Len() {
			t.Errorf("%s: opened index has %d entries, built %d", path, got.Len(), want.Len())
			return
		}
		for _, k := range want.MapKeys() {
			v := got.MapIndex(k)
			if !v.IsValid() {
				t.Errorf("%s: opened index lacks key %v", path, k)
				continue
			}
			sameIndex(t, v, want.MapIndex(k), fmt.Sprintf("%s[%v]", path, k))
		}
	case reflect.Pointer, reflect.Interface:
		if got.IsNil() != want.IsNil() {
			t.Errorf("%s: nil differs", path)
		} else if !want.IsNil() {
			sameIndex(t, got.Elem(), want.Elem(), path)
		}
	case reflect.String:
		if got.String() != want.String() {
			t.Errorf("%s: %q, built %q", path, got.String(), want.String())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if got.Int() != want.Int() {
			t.Errorf("%s: %d, built %d", path, got.Int(), want.Int())
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if got.Uint() != want.Uint() {
			t.Errorf("%s: %d, built %d", path, got.Uint(), want.Uint())
		}
	case reflect.Float32, reflect.Float64:
		if got.Float() != want.Float() {
			t.Errorf("%s: %v, built %v", path, got.Float(), want.Float())
		}
	case reflect.Bool:
		if got.Bool() != want.Bool() {
			t.Errorf("%s: %v, built %v", path, got.Bool(), want.Bool())
		}
	default:
		t.Errorf("%s: cannot compare a %s; teach sameIndex or mark it notPersisted", path, want.Kind())
	}
}

// BenchmarkOpenAndSearch measures what a one-shot search does with the
// index file: open it (map, check, no per-term or per-unit work) and answer
// one question cold — a fresh Index each time, so nothing learned or
// allocated by an earlier question is reused. The test corpus is small; for
// a real collection see BenchmarkOneShotStore in internal/ingest.
func BenchmarkOpenAndSearch(b *testing.B) {
	// A corpus of a few hundred documents: the test contracts under new ids.
	docs := map[string]string{}
	for k := range 60 {
		for id, text := range contracts {
			docs[fmt.Sprintf("%s-%d", id, k)] = text
		}
	}
	_, path := persist(b, corpus(b, docs), 9)
	i := 0
	for b.Loop() {
		ix, err := OpenIndex(path, 9)
		if err != nil {
			b.Fatal(err)
		}
		ix.Search(Query{Text: persistQueries[i%len(persistQueries)].Text, K: 5})
		i++
	}
}
