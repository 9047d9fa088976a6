package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/search/index"
)

// randomInputs returns contracts over a small skewed vocabulary, with
// headers that name them (so questions route), headings, self-references,
// clauses repeated across documents (so scores tie) and every view.
func randomInputs(rng *rand.Rand, n int) ([]index.DocInput, []string) {
	var words []string
	for i := range 120 {
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
	for range 25 {
		shared = append(shared, sentence(3+rng.Intn(12)))
	}
	out := make([]index.DocInput, n)
	for d := range n {
		in := index.DocInput{ID: fmt.Sprint("d", d), Name: fmt.Sprintf("Acme%d Supply Agreement.txt", d),
			Header: fmt.Sprintf("Supply Agreement between Acme%d and Zeta%d", d, d%7), Opening: sentence(6),
			Names: []names.Name{
				{Text: fmt.Sprintf("Acme%d Widgets Corp.", d), Kind: names.KindParty, Party: 0},
				{Text: fmt.Sprintf("Acme%d", d), Kind: names.KindShort, Party: 0},
				{Text: fmt.Sprintf("Zeta%d Holdings", d%7), Kind: names.KindParty, Party: 1},
				{Text: "Supply Agreement", Kind: names.KindTitle, Party: -1},
				{Text: fmt.Sprint(2000 + d%5), Kind: names.KindYear, Party: -1},
			}}
		pos := 0
		for range 10 + rng.Intn(50) {
			text := shared[rng.Intn(len(shared))]
			if rng.Intn(3) > 0 {
				text = sentence(1 + rng.Intn(30))
			}
			if rng.Intn(6) == 0 {
				text += " as this Agreement provides"
			}
			n := 1 + rng.Intn(300)
			u := index.UnitInput{Text: text, Spans: []document.Span{{Start: pos, End: pos + n}}, Node: rng.Intn(40) - 1, View: index.View(rng.Intn(int(index.NumViews)))}
			if rng.Intn(3) == 0 {
				u.Heading = words[rng.Intn(10)]
			}
			in.Units = append(in.Units, u)
			pos += n + rng.Intn(50)
		}
		out[d] = in
	}
	return out, words
}

// TestManySegmentsSearchLikeOne: a collection spread over several segments
// — some in files, some in memory, with documents deleted from them —
// answers every question exactly as one segment holding its live documents
// in the same order: the same hits, scores, routing, expansions; with the
// associations learned as questions come and with a table learned ahead.
func TestManySegmentsSearchLikeOne(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	inputs, words := randomInputs(rng, 90)
	one := NewIndex()
	var segs []*index.Segment
	var deleted [][]int32
	dir := t.TempDir()
	for k, part := range [][]index.DocInput{inputs[:40], inputs[40:41], inputs[41:75], inputs[75:]} {
		b := index.NewBuilder()
		var del []int32
		for i, in := range part {
			if err := b.Add(index.AnalyzeDoc(in), ""); err != nil {
				t.Fatal(err)
			}
			if rng.Intn(6) == 0 {
				del = append(del, int32(i))
			} else if err := one.Add(in); err != nil {
				t.Fatal(err)
			}
		}
		if k%2 == 0 { // this one from a file
			path := filepath.Join(dir, fmt.Sprint("seg", k))
			if _, err := index.WriteSegmentFile(path, b); err != nil {
				t.Fatal(err)
			}
			var err error
			if b, err = index.OpenSegment(path); err != nil {
				t.Fatal(err)
			}
		}
		segs = append(segs, b)
		deleted = append(deleted, del)
	}
	snap, err := index.NewSnapshot(segs, deleted)
	if err != nil {
		t.Fatal(err)
	}
	many := Open(snap, nil)
	if many.Docs() != one.Docs() || many.Units() != one.Units() {
		t.Fatalf("%d docs %d units, want %d %d", many.Docs(), many.Units(), one.Docs(), one.Units())
	}
	// The same collection with its associations learned ahead, in a table.
	f, err := os.Create(filepath.Join(dir, "assoc"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Open(snap, nil).WriteAssociations(f, nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Releasing the mapped pages all the time, or reading the postings and
	// units from the files, learns the same.
	written, err := os.ReadFile(filepath.Join(dir, "assoc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pread := range []bool{false, true} {
		rf, err := os.Create(filepath.Join(dir, "assoc-released"))
		if err != nil {
			t.Fatal(err)
		}
		if err := Open(snap, nil).writeAssociations(rf, nil, &pageGuard{budget: -1, every: 1, pread: pread}); err != nil {
			t.Fatal(err)
		}
		rf.Close()
		if released, err := os.ReadFile(filepath.Join(dir, "assoc-released")); err != nil || !bytes.Equal(written, released) {
			t.Fatalf("associations learned releasing pages (reading the files: %v) differ (%d bytes, %d before; %v)", pread, len(released), len(written), err)
		}
	}
	table, err := index.OpenAssocTable(filepath.Join(dir, "assoc"))
	if err != nil {
		t.Fatal(err)
	}
	tabled := Open(snap, table)
	routed := 0
	minUnits := parallelMinUnits
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	parallelMinUnits = 0
	if part, _ := parallelParts(many.view()); part == nil {
		t.Fatal("the segments are not scored in parallel even with no minimum")
	}
	parallelMinUnits = minUnits
	for i := range 400 {
		var b strings.Builder
		switch i % 6 {
		case 0:
			fmt.Fprintf(&b, "Consider the Supply Agreement between Acme%d and Zeta; ", rng.Intn(95))
		case 3:
			fmt.Fprintf(&b, "What does the Acme%d agreement say: ", rng.Intn(95))
		case 5:
			fmt.Fprintf(&b, "Compare the Zeta%d Holdings contracts of %d: ", rng.Intn(8), 2000+rng.Intn(6))
		}
		for range 1 + rng.Intn(8) {
			b.WriteString(words[rng.Intn(len(words))] + " ")
		}
		q := Query{Text: b.String(), K: []int{1, 3, 10, 64}[rng.Intn(4)], Stages: Stages{NoAssociations: i%5 == 0, NoHeadings: i%5 == 0, NoRoute: i%7 == 0}}
		if i%11 == 0 {
			q.Views = []index.View{index.View(rng.Intn(int(index.NumViews)))}
		}
		if i%13 == 0 {
			q.Docs = []string{inputs[rng.Intn(len(inputs))].ID, inputs[rng.Intn(len(inputs))].ID}
		}
		want := searchT(t, one, q)
		if len(want.RoutedTo) > 0 {
			routed++
		}
		for name, ix := range map[string]*Index{"many": many, "with table": tabled} {
			if got := searchT(t, ix, q); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, %+v:\n got %+v\nwant %+v", name, q, got, want)
			}
		}
		// Corpus-wide searches scored by two goroutines, each its share of
		// the segments (topWindowed), as a large collection is.
		parallelMinUnits = 0
		got := searchT(t, many, q)
		parallelMinUnits = minUnits
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("many, scored in parallel, %+v:\n got %+v\nwant %+v", q, got, want)
		}
	}
	if routed < 20 {
		t.Fatalf("only %d questions routed: the test does not check routing", routed)
	}
}

// jsonShard reaches another Index in process, through a JSON round trip
// as the HTTP API carries a request (so scores survive the wire exactly).
type jsonShard struct{ ix *Index }

func (s jsonShard) Rank(ctx context.Context, req *ShardRequest) (*ShardResponse, error) {
	var r ShardRequest
	b, _ := json.Marshal(req)
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	res, err := s.ix.ShardRank(ctx, &r)
	if err != nil {
		return nil, err
	}
	var out ShardResponse
	b, _ = json.Marshal(res)
	return &out, json.Unmarshal(b, &out)
}

// TestShardedSearchLikeOne: a collection split between three servers, each
// scoring a third of the segments and keeping the rest as stats files,
// answers every question — through any of them — exactly as one server
// holding every segment, with documents deleted too.
func TestShardedSearchLikeOne(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	inputs, words := randomInputs(rng, 70)
	dir := t.TempDir()
	var full, stats []*index.Segment
	var deleted [][]int32
	for k := 0; k < len(inputs); k += 10 {
		b := index.NewBuilder()
		var del []int32
		for i, in := range inputs[k:min(k+10, len(inputs))] {
			if err := b.Add(index.AnalyzeDoc(in), ""); err != nil {
				t.Fatal(err)
			}
			if rng.Intn(8) == 0 {
				del = append(del, int32(i))
			}
		}
		path := filepath.Join(dir, fmt.Sprint("seg", k))
		if _, err := index.WriteSegmentFile(path, b); err != nil {
			t.Fatal(err)
		}
		f, err := index.OpenSegment(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := index.WriteStatsFile(path+".stats", f); err != nil {
			t.Fatal(err)
		}
		s, err := index.OpenSegment(path + ".stats")
		if err != nil {
			t.Fatal(err)
		}
		full, stats, deleted = append(full, f), append(stats, s), append(deleted, del)
	}
	whole, err := index.NewSnapshot(full, deleted)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "assoc"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Open(whole, nil).WriteAssociations(f, nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	table, err := index.OpenAssocTable(filepath.Join(dir, "assoc"))
	if err != nil {
		t.Fatal(err)
	}
	one := Open(whole, table)
	const n = 3
	servers := make([]*Index, n)
	for k := range n {
		segs := make([]*index.Segment, len(full))
		for i := range full {
			segs[i] = stats[i]
			if owns(k, n, i) {
				segs[i] = full[i]
			}
		}
		snap, err := index.NewSnapshot(segs, deleted)
		if err != nil {
			t.Fatal(err)
		}
		servers[k] = Open(snap, table)
	}
	for k := range n {
		peers := make([]Shard, n)
		for j := range n {
			if j != k {
				peers[j] = jsonShard{servers[j]}
			}
		}
		servers[k].SetSharding(&Sharding{K: k, N: n, Peers: peers})
	}
	routed := 0
	for i := range 300 {
		var b strings.Builder
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "Consider the Supply Agreement between Acme%d and Zeta; ", rng.Intn(75))
		case 3:
			fmt.Fprintf(&b, "What does the Acme%d agreement say: ", rng.Intn(75))
		}
		for range 1 + rng.Intn(8) {
			b.WriteString(words[rng.Intn(len(words))] + " ")
		}
		q := Query{Text: b.String(), K: []int{1, 3, 10, 64}[rng.Intn(4)], Stages: Stages{NoRoute: i%7 == 0, NoAssociations: i%9 == 0, NoHeadings: i%9 == 0}}
		if i%11 == 0 {
			q.Views = []index.View{index.View(rng.Intn(int(index.NumViews)))}
		}
		if i%13 == 0 {
			q.Docs = []string{inputs[rng.Intn(len(inputs))].ID, inputs[rng.Intn(len(inputs))].ID}
		}
		want := searchT(t, one, q)
		if len(want.RoutedTo) > 0 {
			routed++
		}
		for k, s := range servers {
			got, err := s.Search(t.Context(), q)
			if err != nil {
				t.Fatalf("server %d, %+v: %v", k, q, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("server %d of %d, %+v:\n got %+v\nwant %+v", k, n, q, got, want)
			}
		}
	}
	if routed < 20 {
		t.Fatalf("only %d questions routed", routed)
	}
}
