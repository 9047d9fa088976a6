package index

import (
	"maps"
	"testing"
)

func TestSelfReferences(t *testing.T) {
	for _, tc := range []struct {
		text string
		want map[string]int
	}{
		{"This Agreement is governed by the laws of Delaware. Under this Section 4.2, this Agreement ends.",
			map[string]int{"agreement": 2, "section": 1}},
		{"THIS AGREEMENT IS MADE between A and B.", map[string]int{"agreement": 1}},
		// Not the head of its noun phrase: the phrase goes on.
		{"This Strategic Alliance Agreement and this Non-Disclosure Agreement.", nil},
		{"a lower-case reference to this document, and this License.", map[string]int{"document": 1, "licens": 1}},
		{"Nothing here refers to itself.", nil},
	} {
		got := selfReferences(tc.text)
		if !maps.Equal(got, tc.want) {
			t.Errorf("selfReferences(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
