package search

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

// selfCorpus is a collection whose contracts call themselves "this Lease" and
// cite "this Section", and where "rent" is a topic, not a self-reference.
func selfCorpus(t *testing.T) *Index {
	t.Helper()
	docs := map[string]string{}
	for i := range 6 {
		docs[fmt.Sprintf("lease-%d", i)] = fmt.Sprintf("LEASE %d between Landlord %d and Tenant %d.\n\n"+
			"The Tenant shall pay rent monthly under this Section. Rent is due on the first day.\n\n"+
			"The Tenant may sublet the premises with consent. This Lease ends after five years.\n\n"+
			"The Landlord shall repair the roof. This Lease is governed by the laws of Ohio.", i, i, i)
	}
	return corpus(t, docs)
}

func TestFramingIsLearnedFromTheCollection(t *testing.T) {
	ix := selfCorpus(t)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		// The collection's self-reference words, and the verb whose subject
		// is the document.
		{"Does the lease mention subletting?", []string{"leas", "mention"}},
		{"Does this Lease allow the tenant to sublet?", []string{"allow", "leas"}},
		{"Is there a section on rent?", []string{"section"}},
		// "the document" means the document searched in any collection.
		{"Does the document say who repairs the roof?", []string{"document", "say"}},
		// The question's demonstrative names the document, whatever the
		// contracts call themselves; "be" is no verb to drop.
		{"What is payable under this contract?", []string{"contract"}},
		{"Can this lease be renewed?", []string{"leas"}},
		// A subject that is not the document keeps its verb.
		{"Does the tenant pay rent?", nil},
		{"Can the landlord repair the roof?", nil},
	} {
		terms, _, _ := analyzeQuery(tc.q)
		got := slices.Sorted(maps.Keys(ix.framing(ix.view(), tc.q, terms)))
		if !slices.Equal(got, tc.want) {
			t.Errorf("framing(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestFramingKeepsALoneWord(t *testing.T) {
	terms := []string{"leas"}
	if got := dropFraming(terms, map[string]bool{"leas": true}); !slices.Equal(got, terms) {
		t.Errorf("dropFraming dropped the only word: %v", got)
	}
}

func TestSearchIgnoresFramingWords(t *testing.T) {
	ix := selfCorpus(t)
	// "lease" occurs in two units of each contract; the question is about
	// subletting.
	res := searchT(t, ix, Query{Text: "Does this Lease mention whether the tenant may sublet?", K: 1, Docs: []string{"lease-3"}})
	if len(res.Hits) != 1 {
		t.Fatalf("got %d hits", len(res.Hits))
	}
	if res.Hits[0].Span.Start == 0 {
		t.Errorf("top hit is the title, want the subletting clause")
	}
}
