package search

import (
	"io"
	"runtime"
	"sync"
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
	var mapped int64
	for _, s := range ix.view().Segments() {
		mapped += s.MappedBytes()
	}
	return ix.writeAssociations(w, progress, &pageGuard{budget: assocMappedBudget, every: assocMappedCheck, pread: mapped > 4*assocMappedBudget})
}

func (ix *Index) writeAssociations(w io.Writer, progress func(done, total int), pg *pageGuard) error {
	v := ix.view()
	pg.v = v
	terms := allTerms(v)
	assoc := make([][]assocTerm, len(terms))
	bodies := make([][]assocTerm, len(terms))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(terms)/256))
	var done atomic.Int64
	parallel.All(len(terms), workers, func(k int) {
		t := terms[k]
		if !index.IsMarked(v.TermString(t)) { // never a question word
			assoc[k] = ix.learnAssociations(v, t, pg)
			bodies[k] = ix.learnBodies(v, t, pg)
		}
		if n := done.Add(1); n%4096 == 0 && progress != nil {
			progress(int(n), len(terms))
		}
	})
	tw := index.NewAssocTableWriter()
	for k, t := range terms {
		if len(assoc[k]) == 0 && len(bodies[k]) == 0 {
			continue
		}
		tw.Add(v.TermString(t), refs(v, assoc[k]), refs(v, bodies[k]))
	}
	err := tw.Write(w)
	// The terms added point into the segments' mappings, which are unmapped
	// once the snapshot is garbage: it must outlive the write (a collection
	// in between made the copy fault, on a vocabulary of 500,000 terms).
	runtime.KeepAlive(v)
	return err
}

// assocMappedBudget bounds the index-file pages WriteAssociations keeps
// mapped in the process's memory. The pass reads pages all over the
// collection's files — a sampled posting, the sampled unit's terms and
// document — and a mapped page read stays part of the process until
// released: at 100× CUAD the pass held 6.3 GB of them, and releasing them
// every 256 terms still left 4 GB (docs/SCALE.md): a frequent word alone
// samples thousands of units, each on pages of its own. So the pages held
// are checked every assocMappedCheck pages the pass may have read
// (pageGuard), inside a long postings list too. Where the index files are
// much larger than the budget, most of what is read would be released
// before it is read again, and mapping a page (with its neighbours) costs
// more than reading the few bytes wanted: the postings and unit terms are
// then read from the files (index.Segment.ReadPosting). At 10× CUAD (687
// MB of index) the first costs 1.7 s of CPU over not releasing, the second
// 18 s; at 100× (6.6 GB) the first cost more than the second (SCALE.md).
const (
	assocMappedBudget = 256 << 20
	assocMappedCheck  = 256
)

type pageGuard struct {
	v      *index.Snapshot
	budget int64
	every  int64 // pages read between checks
	pread  bool  // read postings and unit terms from the files
	n      atomic.Int64
	mu     sync.Mutex
}

// read counts pages that may have been read.
func (g *pageGuard) read(pages int64) {
	if g == nil {
		return
	}
	n := g.n.Add(pages)
	if n/g.every == (n-pages)/g.every {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	held, ok := index.MappedResident()
	if !ok {
		// Not known here: release every 64 checks.
		if n/(64*g.every) == (n-pages)/(64*g.every) {
			return
		}
		held = g.budget + 1
	}
	if held > g.budget {
		g.v.ReleaseMemory()
	}
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
