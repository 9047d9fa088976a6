package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/progress"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/usecase"
)

// learnMode says when updateIndex writes the word-association table.
type learnMode int

const (
	learnIfLarge learnMode = iota // when the change is a large share of the collection
	learnAlways                   // docs optimize
	learnNever
)

// learnShare is the share of a collection a change must touch for
// "pakton ingest" to learn the collection's word associations again (a pass
// over its whole vocabulary). A smaller change leaves searches to learn the
// words they use as they come, until the next large ingest or "pakton docs
// optimize".
const learnShare = 0.02

// indexMemoryLimit is the soft limit on the Go heap (runtime/debug
// SetMemoryLimit) of the commands that index a collection ("pakton ingest",
// "docs optimize", "docs rm"), unless GOMEMLIMIT sets another. Their
// heap holds little live data (at 10× CUAD 15–100 MB: the builder of one
// flush, the listing of the store) but the collector lets it grow to about
// twice that before collecting, and the process held 783 MB of anonymous
// memory while indexing 46,800 contracts (docs/SCALE.md, "Memory"):
// the limit has the collector run earlier instead. It is soft: a heap that
// needs more gets it, at the cost of more frequent collections.
const indexMemoryLimit = 600 << 20

// limitHeap sets indexMemoryLimit, unless GOMEMLIMIT is set.
func limitHeap() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(indexMemoryLimit)
	}
}

// maintainHeadroom is how far the Go heap may grow over what the process
// holds once indexing is done, while the merges and the association pass
// run. They need little of their own (a merge 35–42 MB, the association
// pass about 110 MB besides its budget of mapped index pages), but the data
// the process keeps from indexing (the store's manifest state: about
// 250 MB at 100× CUAD) let the collector's default pacing grow the heap to
// twice that: 520–580 MB of anonymous memory under the association pass's
// 256 MB of mapped pages, a 908 MB peak for the 100× ingest (docs/SCALE.md,
// "Memory").
const maintainHeadroom = 192 << 20

// limitMaintainHeap lowers the soft heap limit, for the merges and the
// association pass, to the memory the Go runtime holds now plus
// maintainHeadroom (never above indexMemoryLimit), unless GOMEMLIMIT is
// set. Called right after debug.FreeOSMemory, when what it holds is what
// is live. The returned function restores the limit before.
func limitMaintainHeap() (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	held := int64(ms.Sys - ms.HeapReleased)
	prev := debug.SetMemoryLimit(min(held+maintainHeadroom, indexMemoryLimit))
	return func() { debug.SetMemoryLimit(prev) }
}

// updateIndex brings a collection's search index up to date with the store
// (new and changed documents in new segments, deleted ones marked deleted),
// merges segments as the merge policy asks, and writes the word
// associations when asked to, reporting on stdout and progress on stderr.
// large says whether the change touched at least learnShare of the
// collection (the documents added and deleted against those it holds).
func updateIndex(ctx context.Context, st *store.Store, collection string, quiet bool, learn learnMode) (large bool, err error) {
	limitHeap()
	pr := newStepProgress(stderr, quiet)
	_, rep, err := ingest.LoadWith(ctx, st, collection, ingest.LoadOptions{NoOpen: true, Progress: func(done, total int) {
		pr.step("indexing documents", int64(done), int64(total), "")
	}})
	pr.done()
	if err != nil {
		return false, err
	}
	// The store's state of the collection (every document's manifest
	// entry, decoded to list them: about 180 MB at 100× CUAD) is not needed
	// by the merges and the association pass.
	st.Forget(collection)
	if rep.Added > 0 {
		// Indexing leaves a heap its garbage has grown to (about twice what
		// it held live), which the runtime returns to the system only
		// slowly: hand it back now, before the merges and the association
		// pass, which need little of their own (docs/SCALE.md, "Memory").
		debug.FreeOSMemory()
		defer limitMaintainHeap()()
	}
	if !quiet && !rep.Opened {
		fmt.Fprintf(stdout, "search index: %d documents added, %d deleted in %s (%d documents in %d segments)\n",
			rep.Added, rep.Deleted, progress.Duration(rep.Elapsed), rep.Docs, rep.Segments)
	}
	changed := rep.Added + rep.Deleted
	large = changed > 0 && float64(changed) >= learnShare*float64(rep.Docs)
	doLearn := learn == learnAlways || learn == learnIfLarge && large
	mrep, err := ingest.Maintain(ctx, st, collection, ingest.MaintainOptions{Learn: doLearn, Progress: func(stage string, done, total int64) {
		switch stage {
		case "merge":
			pr.step("merging segments", done>>20, max(total>>20, 1), "MB")
		case "learn":
			pr.step("learning word associations", done, total, "terms")
		}
	}})
	pr.done()
	if err != nil {
		if errors.Is(err, index.ErrNoSpace) {
			return false, fmt.Errorf("the documents are stored and searchable, but the index could not be merged: %w (free disk space, then run \"pakton docs optimize\")", err)
		}
		return false, err
	}
	if quiet {
		return large, nil
	}
	if mrep.Merges > 0 {
		fmt.Fprintf(stdout, "search index: %d merges rewrote %d documents (%s) in %s: %d segments\n",
			mrep.Merges, mrep.MergedDocs, progress.Bytes(mrep.Bytes), progress.Duration(mrep.Elapsed), mrep.Segments)
	}
	if mrep.Learned {
		fmt.Fprintf(stdout, "search index: word associations learned for the next searches\n")
	} else if learn == learnIfLarge && changed > 0 {
		fmt.Fprintf(stdout, "search index: searches learn the words they use as they come (\"pakton docs optimize\" learns them all ahead)\n")
	}
	return large, nil
}

// stepProgress reports a long step's progress on stderr: a bar on a
// terminal, a line every few seconds elsewhere; nothing for a step done
// within two seconds.
type stepProgress struct {
	w     io.Writer
	quiet bool
	mu    sync.Mutex
	bar   *progress.Bar
	label string
	start time.Time // when the current step was first reported
	last  time.Time
}

func newStepProgress(w io.Writer, quiet bool) *stepProgress {
	return &stepProgress{w: w, quiet: quiet}
}

func (p *stepProgress) step(label string, done, total int64, unit string) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if label != p.label && p.bar == nil {
		p.label, p.start, p.last = label, time.Now(), time.Time{}
	}
	if time.Since(p.start) < 2*time.Second {
		return
	}
	if progress.IsTerminal(p.w) {
		if p.bar == nil || p.label != label {
			if p.bar != nil {
				p.bar.Finish()
			}
			p.bar, p.label, p.start = progress.New(p.w, "search index: "+label, int(total), 0), label, time.Now()
		}
		p.bar.Update(int(min(done, total)), 0, unit)
		return
	}
	if time.Since(p.last) < 5*time.Second && done < total {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "search index: %s %d/%d %s\n", label, done, total, unit)
}

func (p *stepProgress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
	p.label = ""
}

// updateFamilies computes a collection's families of near-duplicate files
// and caches them (so the web app's first page after a large ingest does not
// compute them) when the change was large; after a small change to a large
// collection it leaves them to be computed when first asked ("pakton docs
// families", the web app's opening in the background), since grouping
// judges every candidate pair of the collection again: about 3.6 s of CPU
// and 640 MB at 46,800 contracts, against well under a second for the rest
// of adding one contract (docs/SCALE.md). After a large change it also
// lists the collection, which writes its listing file, so a server's first
// document list reads the documents' summaries from it rather than decoding
// every manifest record.
func updateFamilies(ctx context.Context, st *store.Store, collection string, large bool) {
	if !large {
		return
	}
	if _, err := usecase.CollectionFamilies(ctx, st, collection); err != nil {
		fmt.Fprintf(stderr, "families of near-duplicate files not computed (the web app computes them when asked): %v\n", err)
	}
	if _, err := st.List(ctx, collection); err == nil {
		st.Forget(collection) // what the listing decoded
	}
}
