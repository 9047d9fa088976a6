package search

import (
	"runtime"

	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/search/index"
)

// Word associations (expand.go) and heading-body associations (headings.go)
// are learned per word, and a long-running process learns each once. A
// process that opens an index file to answer one question would learn every
// word of it cold: each sampled clause is a different page of a file of
// hundreds of MB, so a word cost milliseconds of page faults, more than the
// question itself in a small collection. So the writer of an index file
// learns the associations of every term — the same computation, so the same
// results — and writes them with the index; a reader only looks them up.

// learnAll learns the associations and heading-body associations of every
// term, in parallel, and returns them as offset tables and lists in term
// order.
func (ix *Index) learnAll() (assocOff []int32, assocList []assocTerm, bodyOff []int32, bodyList []assocTerm) {
	ix.headOnce.Do(ix.countHeaded)
	n := len(ix.terms)
	assoc := make([][]assocTerm, n)
	bodies := make([][]assocTerm, n)
	workers := max(1, min(runtime.GOMAXPROCS(0), n/256))
	parallel.All(n, workers, func(t int) {
		if index.IsMarked(ix.terms[t]) {
			return // never a question word
		}
		assoc[t] = ix.learnAssociations(int32(t))
		bodies[t] = ix.learnBodies(int32(t))
	})
	flatten := func(lists [][]assocTerm) ([]int32, []assocTerm) {
		off := make([]int32, 0, n+1)
		var all []assocTerm
		for _, l := range lists {
			off = append(off, int32(len(all)))
			all = append(all, l...)
		}
		return append(off, int32(len(all))), all
	}
	assocOff, assocList = flatten(assoc)
	bodyOff, bodyList = flatten(bodies)
	return
}

// stored returns term tid's list from an offset table and list read from an
// index file. The file's big arrays are not checksummed (persist.go), so a
// list that is out of range or names a term that does not exist is
// dropped: a damaged file may lose an expansion, never crash a search.
func (ix *Index) stored(off []int32, list []assocTerm, tid int32) []assocTerm {
	if uint(tid)+1 >= uint(len(off)) {
		return nil
	}
	a, b := off[tid], off[tid+1]
	if a < 0 || b < a || int(b) > len(list) {
		return nil
	}
	l := list[a:b:b]
	for _, e := range l {
		if uint(e.id) >= uint(len(ix.terms)) {
			return nil
		}
	}
	return l
}
