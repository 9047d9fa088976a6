package index

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/names"
)

// randomDocs returns n analyzed documents over a small skewed vocabulary,
// with headings, self-references ("this Agreement"), headers, repeated
// clauses across documents and every view.
func randomDocs(rng *rand.Rand, n int) []*Doc {
	var words []string
	for i := range 150 {
		words = append(words, fmt.Sprintf("w%03dx", i))
	}
	pick := func() string {
		return words[int(float64(len(words))*rng.Float64()*rng.Float64()*rng.Float64())]
	}
	sentence := func(k int) string {
		var b strings.Builder
		for range k {
			b.WriteString(pick() + " ")
		}
		return b.String()
	}
	var shared []string
	for range 20 {
		shared = append(shared, sentence(3+rng.Intn(10)))
	}
	out := make([]*Doc, n)
	for d := range n {
		in := DocInput{ID: fmt.Sprint("doc", d), Name: fmt.Sprintf("Party%d_%s.txt", d, words[rng.Intn(40)]),
			Header: "Agreement between Party" + fmt.Sprint(d) + " and " + pick(), Opening: sentence(8)}
		if d%4 == 0 {
			in.About = sentence(5)
		}
		in.Names = []names.Name{
			{Text: fmt.Sprintf("Party%d %s Holdings, Inc.", d, words[rng.Intn(30)]), Kind: names.KindParty, Party: 0},
			{Text: fmt.Sprintf("Party%d", d), Kind: names.KindShort, Party: 0},
			{Text: words[rng.Intn(30)] + " supply agreement", Kind: names.KindType, Party: -1},
			{Text: "agreement", Kind: names.KindType, Party: -1},
			{Text: fmt.Sprint(1990 + rng.Intn(30)), Kind: names.KindYear, Party: -1},
		}
		pos := 0
		for range 5 + rng.Intn(25) {
			text := shared[rng.Intn(len(shared))]
			if rng.Intn(3) > 0 {
				text = sentence(1 + rng.Intn(25))
			}
			if rng.Intn(5) == 0 {
				text += " under this Agreement and this Section"
			}
			u := UnitInput{Text: text, Spans: []document.Span{{Start: pos, End: pos + 10 + rng.Intn(200)}}, Node: rng.Intn(30) - 1, View: View(rng.Intn(int(NumViews)))}
			if rng.Intn(3) == 0 {
				u.Heading = words[rng.Intn(8)]
			}
			in.Units = append(in.Units, u)
			pos += 100
		}
		out[d] = AnalyzeDoc(in)
	}
	return out
}

func build(t testing.TB, docs []*Doc) *Segment {
	t.Helper()
	s := NewBuilder()
	for _, d := range docs {
		if err := s.Add(d, "v-"+d.ID); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func writeOpen(t testing.TB, dir, name string, s *Segment) (*Segment, []byte) {
	t.Helper()
	path := filepath.Join(dir, name)
	if _, err := WriteSegmentFile(path, s); err != nil {
		t.Fatal(err)
	}
	o, err := OpenSegment(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return o, data
}

// sameSegment compares every accessor of two segments.
func sameSegment(t *testing.T, a, b *Segment) {
	t.Helper()
	if a.NumDocs() != b.NumDocs() || a.NumUnits() != b.NumUnits() || a.NumTerms() != b.NumTerms() {
		t.Fatalf("sizes %d/%d/%d vs %d/%d/%d", a.NumDocs(), a.NumUnits(), a.NumTerms(), b.NumDocs(), b.NumUnits(), b.NumTerms())
	}
	for d := range int32(a.NumDocs()) {
		af, al := a.DocRange(d)
		bf, bl := b.DocRange(d)
		if a.DocID(d) != b.DocID(d) || a.DocName(d) != b.DocName(d) || a.DocVersion(d) != b.DocVersion(d) || af != bf || al != bl ||
			a.HeaderLen(d) != b.HeaderLen(d) || !slices.Equal(a.TitleSeq(d), b.TitleSeq(d)) || !slices.Equal(a.termsOf(d), b.termsOf(d)) {
			t.Fatalf("document %d differs", d)
		}
		if g, ok := b.LookupDoc(a.DocID(d)); !ok || g != d {
			t.Fatalf("LookupDoc(%q) = %d, %v", a.DocID(d), g, ok)
		}
	}
	if !slices.Equal(a.Units(), b.Units()) {
		t.Fatal("units differ")
	}
	for u := range int32(a.NumUnits()) {
		if !slices.Equal(a.UnitSpans(u), b.UnitSpans(u)) || !slices.Equal(a.UnitTerms(u), b.UnitTerms(u)) {
			t.Fatalf("unit %d differs", u)
		}
	}
	for tm := range int32(a.NumTerms()) {
		if a.term(tm) != b.term(tm) || !slices.Equal(a.Postings(tm), b.Postings(tm)) || !slices.Equal(a.RoutePostings(tm), b.RoutePostings(tm)) ||
			a.HeadDocs(tm) != b.HeadDocs(tm) || a.HeadedDF(tm) != b.HeadedDF(tm) {
			t.Fatalf("term %d %q differs", tm, a.term(tm))
		}
		if id, ok := b.Lookup(a.term(tm)); !ok || id != tm {
			t.Fatalf("Lookup(%q) = %d, %v", a.term(tm), id, ok)
		}
	}
	if !slices.Equal(a.Names(), b.Names()) {
		t.Fatal("names differ")
	}
	for _, e := range a.Names() {
		if !slices.Equal(a.nameTermsOf(e), b.nameTermsOf(e)) || a.NameText(e) != b.NameText(e) {
			t.Fatalf("name %+v differs", e)
		}
	}
	for tm := range int32(a.NumTerms()) {
		if !slices.Equal(a.namesStartingWith(tm), b.namesStartingWith(tm)) {
			t.Fatalf("names starting with %q differ", a.term(tm))
		}
		checkNameGroups(t, a, tm)
		checkNameGroups(t, b, tm)
		if !reflect.DeepEqual(a.NameGroupsStartingWith(tm), b.NameGroupsStartingWith(tm)) {
			t.Fatalf("name groups starting with %q differ", a.term(tm))
		}
	}
	if a.HeadedUnits() != b.HeadedUnits() || !slices.Equal(a.SelfCounts(), b.SelfCounts()) {
		t.Fatalf("statistics differ: %d %v vs %d %v", a.HeadedUnits(), a.SelfCounts(), b.HeadedUnits(), b.SelfCounts())
	}
	for w := range NumViews {
		an, al := a.ViewStats(w)
		bn, bl := b.ViewStats(w)
		if an != bn || al != bl {
			t.Fatalf("view %d differs", w)
		}
	}
}

// checkNameGroups checks that s's names starting with term tm are grouped
// by their terms: each name in one group, of its terms, in the order
// namesStartingWith gives them, no two groups of the same terms, and the
// same groups when asked again.
func checkNameGroups(t *testing.T, s *Segment, tm int32) {
	t.Helper()
	gs := s.NameGroupsStartingWith(tm)
	var flat []int32
	seen := map[string]bool{}
	for _, g := range gs {
		key := fmt.Sprint(g.Terms)
		if len(g.Terms) == 0 || seen[key] || len(g.Entries) == 0 {
			t.Fatalf("term %q: group %+v empty or repeated", s.term(tm), g)
		}
		seen[key] = true
		for _, ei := range g.Entries {
			if !slices.Equal(s.nameTermsOf(s.Names()[ei]), g.Terms) {
				t.Fatalf("term %q: entry %d is not of its group's terms %v", s.term(tm), ei, g.Terms)
			}
		}
		flat = append(flat, g.Entries...)
	}
	slices.Sort(flat)
	if want := s.namesStartingWith(tm); !slices.Equal(flat, want) {
		t.Fatalf("term %q: groups hold %v, the names starting with it are %v", s.term(tm), flat, want)
	}
	if again := s.NameGroupsStartingWith(tm); !reflect.DeepEqual(again, gs) {
		t.Fatalf("term %q: asked again, other groups", s.term(tm))
	}
}

// TestNameGroupsFollowAddedNames checks that a segment being built groups
// the names added after a term's groups were first asked for.
func TestNameGroupsFollowAddedNames(t *testing.T) {
	docs := randomDocs(rand.New(rand.NewSource(2)), 6)
	// a first term of the first document's names that the others' names
	// start with too
	all := build(t, docs)
	s := build(t, docs[:1])
	var word string
	most := 0
	for _, e := range s.Names() {
		tm := s.nameTermsOf(e)[0]
		ta, _ := all.Lookup(s.term(tm))
		if n := len(all.namesStartingWith(ta)); n > len(s.namesStartingWith(tm)) && n > most {
			word, most = s.term(tm), n
		}
	}
	tm, ok := s.Lookup(word)
	if !ok {
		t.Fatal("no name the later documents share with the first")
	}
	checkNameGroups(t, s, tm)
	for _, d := range docs[1:] {
		if err := s.Add(d, "v-"+d.ID); err != nil {
			t.Fatal(err)
		}
	}
	checkNameGroups(t, s, tm)
	if n := len(s.namesStartingWith(tm)); n != most {
		t.Fatalf("%d names start with %q, want %d", n, word, most)
	}
}

func TestSegmentFileRoundTrip(t *testing.T) {
	docs := randomDocs(rand.New(rand.NewSource(1)), 40)
	built := build(t, docs)
	opened, _ := writeOpen(t, t.TempDir(), "seg", built)
	sameSegment(t, built, opened)
	if err := opened.Verify(); err != nil {
		t.Fatal(err)
	}
	if _, ok := opened.Lookup("nosuchword"); ok {
		t.Fatal("found a word that is not there")
	}
}

// TestMergeIsBuild: merging segments, with documents deleted from them,
// writes byte for byte the sections that building one segment from the
// live documents in order writes; with vectors on some documents' units
// too.
func TestMergeIsBuild(t *testing.T) {
	for _, vectors := range []bool{false, true} {
		t.Run(fmt.Sprint("vectors=", vectors), func(t *testing.T) { testMergeIsBuild(t, vectors) })
	}
}

func testMergeIsBuild(t *testing.T, vectors bool) {
	rng := rand.New(rand.NewSource(2))
	docs := randomDocs(rng, 60)
	dir := t.TempDir()
	cuts := []int{0, 13, 14, 40, 60}
	// withVectors builds a segment of docs, every third of them with
	// vectors on its first and last units.
	withVectors := func(docs []*Doc) *Segment {
		s := build(t, docs)
		if !vectors {
			return s
		}
		for _, d := range docs {
			var n int
			fmt.Sscanf(d.ID, "doc%d", &n)
			if n%3 != 0 {
				continue
			}
			ld, _ := s.LookupDoc(d.ID)
			f, l := s.DocRange(ld)
			v := &Vectors{Model: "m"}
			for _, u := range []int32{0, l - f - 1} {
				if len(v.Units) > 0 && v.Units[0] == u {
					continue
				}
				v.Units = append(v.Units, u)
				v.Vecs = append(v.Vecs, []float32{float32(n), float32(u), 1})
			}
			if err := s.AddVectors(d.ID, v); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	var segs []*Segment
	var deleted [][]int32
	var live []*Doc
	for k := 0; k+1 < len(cuts); k++ {
		part := docs[cuts[k]:cuts[k+1]]
		s, _ := writeOpen(t, dir, fmt.Sprint("in", k), withVectors(part))
		segs = append(segs, s)
		var del []int32
		for i, d := range part {
			if rng.Intn(4) == 0 {
				del = append(del, int32(i))
			} else {
				live = append(live, d)
			}
		}
		deleted = append(deleted, del)
	}
	f, err := os.Create(filepath.Join(dir, "merged"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := mergeSegments(newFileWriter(f, segmentMagic, segmentFormat, numSections), segs, deleted)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	fresh, want := writeOpen(t, dir, "fresh", withVectors(live))
	if d, _ := fresh.Dense(); vectors != (d > 0) {
		t.Fatalf("vectors %v: the fresh build's dimension is %d", vectors, d)
	}
	got, err := os.ReadFile(filepath.Join(dir, "merged"))
	if err != nil {
		t.Fatal(err)
	}
	// Sections are laid out in another order; their contents must match.
	a, err := openContainer(got, segmentMagic, segmentFormat, numSections)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := openContainer(want, segmentMagic, segmentFormat, numSections)
	if st.Docs != len(live) || len(got) != len(want) {
		t.Fatalf("merged %d docs, %d bytes; a fresh build %d docs, %d bytes", st.Docs, len(got), len(live), len(want))
	}
	for i := range a.secs {
		if !bytes.Equal(a.secs[i], b.secs[i]) || a.crcs[i] != b.crcs[i] {
			t.Errorf("section %d differs from a fresh build's", i+1)
		}
	}
}

// TestMergeRefuses: a stats file, or segments whose vectors come from two
// models, are never merged, and the output says why.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	docs := randomDocs(rand.New(rand.NewSource(4)), 4)
	model := func(name string, d *Doc) *Segment {
		s := build(t, []*Doc{d})
		if err := s.AddVectors(d.ID, &Vectors{Model: name, Units: []int32{0}, Vecs: [][]float32{{1, 0}}}); err != nil {
			t.Fatal(err)
		}
		o, _ := writeOpen(t, dir, name+d.ID, s)
		return o
	}
	full, _ := writeOpen(t, dir, "full", build(t, docs[2:]))
	statsPath := filepath.Join(dir, "stats")
	if _, err := WriteStatsFile(statsPath, full); err != nil {
		t.Fatal(err)
	}
	stats, err := OpenSegment(statsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		segs []*Segment
		want string
	}{
		{"stats file", []*Segment{full, stats}, "is a stats file"},
		{"two models", []*Segment{model("m1", docs[0]), model("m2", docs[1])}, "different models"},
	} {
		f, err := os.Create(filepath.Join(dir, "out-"+tc.name))
		if err != nil {
			t.Fatal(err)
		}
		_, err = mergeSegments(newFileWriter(f, segmentMagic, segmentFormat, numSections), tc.segs, nil)
		f.Close()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: merge error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestSnapshotStatistics: a snapshot of several segments with deleted
// documents has the statistics of one segment of its live documents, and
// orders terms as that segment numbers them.
func TestSnapshotStatistics(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	docs := randomDocs(rng, 50)
	var segs, stats []*Segment
	var deleted [][]int32
	var live []*Doc
	dir := t.TempDir()
	for k, part := range [][]*Doc{docs[:20], docs[20:21], docs[21:50]} {
		seg := build(t, part)
		segs = append(segs, seg)
		full, _ := writeOpen(t, dir, fmt.Sprint("full", k), seg)
		path := filepath.Join(dir, fmt.Sprint("stats", k))
		if _, err := WriteStatsFile(path, full); err != nil {
			t.Fatal(err)
		}
		st, err := OpenSegment(path)
		if err != nil {
			t.Fatal(err)
		}
		if !st.StatsOnly() || st.NumUnits() != seg.NumUnits() || len(st.Postings(0)) != 0 {
			t.Fatalf("stats file: stats-only %v, %d units", st.StatsOnly(), st.NumUnits())
		}
		stats = append(stats, st)
		var del []int32
		for i, d := range part {
			if rng.Intn(5) == 0 {
				del = append(del, int32(i))
			} else {
				live = append(live, d)
			}
		}
		deleted = append(deleted, del)
	}
	one, err := NewSnapshot([]*Segment{build(t, live)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Built in memory; stats files (what a shard keeps of segments it does
	// not score); a mix.
	for _, set := range [][]*Segment{segs, stats, {stats[0], segs[1], stats[2]}} {
		many, err := NewSnapshot(set, deleted)
		if err != nil {
			t.Fatal(err)
		}
		sameStatistics(t, many, one)
	}
}

func sameStatistics(t *testing.T, many, one *Snapshot) {
	t.Helper()
	if many.LiveDocs() != one.LiveDocs() || many.LiveUnits() != one.LiveUnits() || many.HeaderTotal() != one.HeaderTotal() || many.HeadedUnits() != one.HeadedUnits() {
		t.Fatalf("totals differ")
	}
	for w := range NumViews {
		a, b := many.ViewStats(w)
		c, d := one.ViewStats(w)
		if a != c || b != d {
			t.Fatalf("view %d: %d %d vs %d %d", w, a, b, c, d)
		}
	}
	seg := one.Segments()[0]
	var order []int32
	for tm := range int32(seg.NumTerms()) {
		str := seg.term(tm)
		g, ok := many.Lookup(str)
		if !ok {
			t.Fatalf("%q missing", str)
		}
		order = append(order, g)
		d1, t1 := many.RouteDF(g)
		d2, t2 := one.RouteDF(tm)
		if many.DF(g) != one.DF(tm) || d1 != d2 || t1 != t2 || many.HeadDocs(g) != one.HeadDocs(tm) || many.HeadedDF(g) != one.HeadedDF(tm) ||
			many.DocsWithTerm(g, 1000) != one.DocsWithTerm(tm, 1000) {
			t.Fatalf("%q: statistics differ", str)
		}
		if len(str) > 0 && str[0] != SelfMark[0] && !IsHeadTerm(str) {
			u1, dc1, p1, ok1 := many.SelfCounts(str)
			u2, dc2, p2, ok2 := one.SelfCounts(str)
			if u1 != u2 || dc1 != dc2 || p1 != p2 || ok1 != ok2 {
				t.Fatalf("%q: self counts %d %d %d %v vs %d %d %d %v", str, u1, dc1, p1, ok1, u2, dc2, p2, ok2)
			}
		}
	}
	if !slices.IsSortedFunc(order, func(a, b int32) int {
		ka, kb := many.TermOrder(a), many.TermOrder(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	}) {
		t.Fatal("TermOrder does not order terms as one segment numbers them")
	}
}

func TestDirApplyMergeAndCrash(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	docs := randomDocs(rng, 30)
	d, err := OpenDir(filepath.Join(t.TempDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := d.Commit()
	for k := 0; k < 30; k += 10 {
		if c, err = d.Apply(c, []*Segment{build(t, docs[k:k+10])}, nil, uint64(k+1)); err != nil {
			t.Fatal(err)
		}
	}
	c, err = d.Apply(c, nil, []string{"doc3", "doc25", "nosuch"}, 99)
	unlock()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Segments) != 3 || c.Label != 99 || !slices.Equal(c.Segments[0].Deleted, []int32{3}) || !slices.Equal(c.Segments[2].Deleted, []int32{5}) {
		t.Fatalf("commit %+v", c)
	}
	// A merge that died: a temporary file, unlocked and old, is removed by
	// the next writer; the commit is untouched.
	stale := filepath.Join(d.Path(), tmpPrefix+"dead")
	os.WriteFile(stale, []byte("half a segment"), 0o644)
	os.Chtimes(stale, timeAgo(), timeAgo())
	c2, st, err := d.Merge([]string{c.Segments[1].Name, c.Segments[2].Name}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Docs != 19 || len(c2.Segments) != 2 || c2.Label != 99 {
		t.Fatalf("merge: %+v, commit %+v", st, c2)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Fatal("an abandoned temporary file was left")
	}
	snap, _, err := d.Open()
	if err != nil {
		t.Fatal(err)
	}
	if snap.LiveDocs() != 28 {
		t.Fatalf("%d live documents, want 28", snap.LiveDocs())
	}
	if _, ok := snap.LookupDoc("doc25"); ok {
		t.Fatal("a deleted document came back in the merge")
	}
	ents, _ := os.ReadDir(d.Path())
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 4 { // COMMIT, LOCK and two segments
		t.Fatalf("files %v", names)
	}
}

func timeAgo() time.Time { return time.Now().Add(-time.Hour) }
