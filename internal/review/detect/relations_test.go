package detect

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/playbook"
)

// TestRelationFeatures: a passage gets "zt:" for a provision it is among the
// top passages of, "zp:" when the passage before it is, "za:" when a clause
// it sits in is, and "zs:" when a sibling clause under the same parent is —
// and nothing from a provision no passage scores for.
func TestRelationFeatures(t *testing.T) {
	text := strings.Join([]string{
		"1. Services. The Supplier shall provide the services.",
		"2. Restrictions.",
		"(a) The Distributor shall not sell competing products in the Territory.",
		"(b) Notwithstanding paragraph (a), the Distributor may sell competing products it sold before the Effective Date.",
		"3. Law. The laws of Delaware govern this Agreement.",
	}, "\n\n")
	prep, err := Prepare(Doc{ID: "d", Name: "d.txt", Doc: &document.Document{ID: "d", Name: "d.txt", Format: "text", Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	ps := prep.Passages()
	find := func(s string) int {
		for k := range ps {
			if strings.Contains(prep.Index().Slice(ps[k].Span), s) {
				return k
			}
		}
		t.Fatalf("no passage holds %q", s)
		return -1
	}
	restriction, exception, law := find("shall not sell"), find("Notwithstanding"), find("Delaware")
	if ps[restriction].Node == ps[exception].Node || prep.Tree().Nodes[ps[restriction].Node].Parent != prep.Tree().Nodes[ps[exception].Node].Parent {
		t.Fatalf("the test contract's restriction and exception are not sibling clauses: %+v", prep.Tree().Nodes)
	}
	pb := &playbook.Playbook{Provisions: []playbook.Provision{{Name: "Non-Compete"}, {Name: "Nothing"}}}
	ids := relationIDs(pb)
	zs := [][]float64{make([]float64, len(ps)), make([]float64, len(ps))}
	zs[0][restriction] = 0.9 // the only passage that looks like a non-compete
	rel := relationFeatures(prep, zs, ids)
	has := func(k int, tag string) bool { return slices.Contains(rel[k], featureID(tag+"Non-Compete")) }
	for _, c := range []struct {
		k    int
		tag  string
		want bool
	}{
		{restriction, "zt:", true}, {exception, "zt:", false},
		{exception, "zp:", true}, {law, "zp:", false},
		{exception, "zs:", true}, {restriction, "zs:", false}, {law, "zs:", false},
	} {
		if got := has(c.k, c.tag); got != c.want {
			t.Errorf("passage %q: %sNon-Compete %v, want %v", prep.Index().Slice(ps[c.k].Span), c.tag, got, c.want)
		}
	}
	for k := range rel {
		for _, id := range rel[k] {
			for _, tag := range relationTags {
				if id == featureID(tag+"Nothing") {
					t.Errorf("passage %d has %sNothing, a provision no passage scores for", k, tag)
				}
			}
		}
	}
	// a parent clause that looks like the provision gives its children "za:"
	zs[0][restriction] = 0
	head := find("Restrictions")
	zs[0][head] = 0.5
	rel = relationFeatures(prep, zs, ids)
	if !has(exception, "za:") || !has(restriction, "za:") || has(law, "za:") {
		t.Errorf("za: from the parent clause: restriction %v, exception %v, law %v; want true, true, false", has(restriction, "za:"), has(exception, "za:"), has(law, "za:"))
	}
}

// TestLearnClusters: words used in the same company fall in one cluster,
// the clusters are the same on every run, and the zero-shot scorer with
// them finds a passage worded in another word of a profile word's cluster.
func TestLearnClusters(t *testing.T) {
	// Two kinds of sentences, each with three interchangeable words that
	// keep exactly the same company (every filler word meets each of the
	// three alike), so each three share a cluster whatever k-means starts
	// from; enough filler words that the vocabulary outnumbers the
	// clusters.
	var docs []TrainingDoc
	for d := range 4 {
		var b strings.Builder
		for i := range 480 {
			pay := []string{"invoice", "payment", "fee"}[i%3]
			harm := []string{"disparage", "defame", "denigrate"}[i%3]
			f := i / 3
			fmt.Fprintf(&b, "%d. Clause. The buyer shall settle each %s within days of receipt of the %s x%da x%db.\n\n", i+1, pay, pay, f, f)
			fmt.Fprintf(&b, "Neither party shall publicly %s or otherwise %s the other party x%dc x%dd.\n\n", harm, harm, f, f)
		}
		doc := &document.Document{ID: "d", Name: "d.txt", Format: "text", Text: b.String()}
		prep, err := Prepare(Doc{ID: fmt.Sprint(d), Name: "d.txt", Doc: doc})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, TrainingDoc{Prep: prep})
	}
	a := learnClusters(docs)
	if len(a) == 0 {
		t.Fatal("no clusters learnt")
	}
	c := func(w string) int {
		v, ok := a[StemWord(w)]
		if !ok {
			t.Fatalf("%q has no cluster", w)
		}
		return v
	}
	if c("invoice") != c("payment") || c("payment") != c("fee") {
		t.Errorf("invoice, payment, fee in clusters %d, %d, %d; want one", c("invoice"), c("payment"), c("fee"))
	}
	if c("disparage") != c("defame") || c("defame") != c("denigrate") {
		t.Errorf("disparage, defame, denigrate in clusters %d, %d, %d; want one", c("disparage"), c("defame"), c("denigrate"))
	}
	if c("invoice") == c("defame") {
		t.Errorf("invoice and defame share cluster %d", c("invoice"))
	}
	b := learnClusters(docs)
	for w, v := range a {
		if b[w] != v {
			t.Fatalf("clusters differ between two runs on %q: %d, %d", w, v, b[w])
		}
	}
	// The zero-shot scorer with the clusters finds a passage that says
	// what a profile says in other words of the same cluster; without
	// them it does not.
	pb := &playbook.Playbook{Provisions: []playbook.Provision{{Name: "Non-Disparagement", Definition: "Neither party may disparage the other."}}}
	text := "1. Conduct. The Reseller shall never denigrate the Supplier.\n\n2. Conduct. The Reseller shall never invoice the Supplier."
	prep, err := Prepare(Doc{ID: "c", Name: "c.txt", Doc: &document.Document{ID: "c", Name: "c.txt", Format: "text", Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	idf, def := corpusIDF(docs)
	without := newZeroShot(pb, &Detectors{IDF: idf, DefaultIDF: def}).scores(prep)[0]
	with := newZeroShot(pb, &Detectors{IDF: idf, DefaultIDF: def, Clusters: a}).scores(prep)[0]
	if with[0]-with[1] < without[0]-without[1]+0.01 {
		t.Errorf("\"denigrate\" over \"invoice\" for a profile that says \"disparage\": %.3f − %.3f with clusters, %.3f − %.3f without; want a lead at least 0.01 larger with", with[0], with[1], without[0], without[1])
	}
}
