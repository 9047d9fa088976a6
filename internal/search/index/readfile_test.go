package index

import (
	"math/rand"
	"slices"
	"testing"
)

// TestReadFromFileLikeMapping: postings and unit terms read from the file
// (pread) are those read through the mapping, and those of the segment
// built in memory.
func TestReadFromFileLikeMapping(t *testing.T) {
	built := build(t, randomDocs(rand.New(rand.NewSource(2)), 40))
	opened, _ := writeOpen(t, t.TempDir(), "seg", built)
	if opened.mapped == nil {
		t.Fatal("an opened segment is not mapped")
	}
	for _, s := range []*Segment{built, opened} {
		buf := make([]Posting, 3)
		for term := range int32(s.NumTerms()) {
			pl := s.Postings(term)
			for j := range pl {
				if p := s.ReadPosting(term, j); p != pl[j] {
					t.Fatalf("term %d posting %d: read %+v, mapped %+v", term, j, p, pl[j])
				}
			}
			var all []Posting
			for from := 0; ; {
				c := s.ReadPostings(term, from, buf)
				if len(c) == 0 {
					break
				}
				all, from = append(all, c...), from+len(c)
			}
			if !slices.Equal(all, pl) {
				t.Fatalf("term %d: read %v, mapped %v", term, all, pl)
			}
		}
		var tb []int32
		for u := range int32(s.NumUnits()) {
			if tb = s.ReadUnitTerms(u, tb); !slices.Equal(tb, s.UnitTerms(u)) {
				t.Fatalf("unit %d: read %v, mapped %v", u, tb, s.UnitTerms(u))
			}
		}
	}
}
