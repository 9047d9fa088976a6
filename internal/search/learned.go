package search

import (
	"io"
	"runtime"
	"sync/atomic"

	"github.com/pakton/pakton/internal/parallel"
	"github.com/pakton/pakton/internal/search/index"
)

// Word associations (expand.go) and heading-body associations (headings.go)
// are learned per word, and a long-running process learns each once. A
// process that opens a collection's index to answer one question would
// learn every word of it cold: each sampled clause is a different page of
// files of hundreds of MB, so a word costs milliseconds of page faults, more
// than the question itself in a small collection. So whoever maintains a
// collection's index learns the associations of every term over exactly
// the segments of one commit — the same computation, so the same results —
// and writes them beside it (index.AssocTable); an Index opened with that
// table only looks them up. Any change to the collection makes a new
// commit, whose searches learn as they go until a table is written for it.

// WriteAssociations learns the associations and heading-body associations
// of every term of the index and writes them as an index.AssocTable.
// progress, when set, is called now and then with the terms done and the
// terms in all.
func (ix *Index) WriteAssociations(w io.Writer, progress func(done, total int)) error {
	v := ix.view()
	terms := allTerms(v)
	assoc := make([][]assocTerm, len(terms))
	bodies := make([][]assocTerm, len(terms))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(terms)/256))
	var done atomic.Int64
	parallel.All(len(terms), workers, func(k int) {
		t := terms[k]
		if !index.IsMarked(v.TermString(t)) { // never a question word
			assoc[k] = ix.learnAssociations(v, t)
			bodies[k] = ix.learnBodies(v, t)
		}
		n := done.Add(1)
		if n%4096 == 0 {
			// Keep the pages read so far out of this process's memory: the
			// pass reads the whole collection.
			v.ReleaseMemory()
			if progress != nil {
				progress(int(n), len(terms))
			}
		}
	})
	tw := index.NewAssocTableWriter()
	for k, t := range terms {
		if len(assoc[k]) == 0 && len(bodies[k]) == 0 {
			continue
		}
		tw.Add(v.TermString(t), refs(v, assoc[k]), refs(v, bodies[k]))
	}
	return tw.Write(w)
}

func refs(v *index.Snapshot, l []assocTerm) []index.AssocRef {
	out := make([]index.AssocRef, len(l))
	for i, a := range l {
		out[i] = index.AssocRef{Term: v.TermString(a.id), W: a.w}
	}
	return out
}

// allTerms returns every term of the snapshot (numbering them all).
func allTerms(v *index.Snapshot) []int32 {
	segs := v.Segments()
	if len(segs) == 1 {
		out := make([]int32, segs[0].NumTerms())
		for i := range out {
			out[i] = int32(i)
		}
		return out
	}
	seen := map[int32]bool{}
	var out []int32
	for i, s := range segs {
		for l := range int32(s.NumTerms()) {
			if g := v.Global(i, l); g >= 0 && !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	return out
}

// stored returns term tid's associations (or heading-body associations)
// from the index's table, as terms of the snapshot. A list naming a term
// the snapshot does not have (a damaged table) loses that entry.
func (ix *Index) stored(v *index.Snapshot, tid int32, bodies bool) []assocTerm {
	c := ix.c.Load()
	cache := &c.assoc
	if bodies {
		cache = &c.bodies
	}
	if l, ok := cache.Load(tid); ok {
		return l.([]assocTerm)
	}
	assoc, body := ix.table.Lists(v.TermString(tid))
	l := assoc
	if bodies {
		l = body
	}
	var out []assocTerm
	for _, r := range l {
		if g, ok := v.Lookup(r.Term); ok {
			out = append(out, assocTerm{g, r.W})
		}
	}
	cache.Store(tid, out)
	return out
}
