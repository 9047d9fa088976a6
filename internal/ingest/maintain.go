package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/search/index"
	"github.com/pakton/pakton/internal/store"
)

// MaintainOptions tune Maintain.
type MaintainOptions struct {
	// Policy chooses the merges (zero value: index.DefaultMergePolicy).
	Policy index.MergePolicy
	// Learn writes the word and heading associations of the index's final
	// commit (search.Index.WriteAssociations), so processes that open the
	// index look them up instead of learning them per question. It costs a
	// pass over the collection's vocabulary. It also keeps how each document
	// is shown (KeepDisplays).
	Learn bool
	// Progress, when set, is called during long steps: stage "merge" with
	// bytes written and expected, stage "learn" with terms done and in all.
	Progress func(stage string, done, total int64)
}

// MaintainReport says what Maintain did.
type MaintainReport struct {
	Merges     int   // merges committed
	MergedDocs int   // documents rewritten by them
	Segments   int   // segments after
	Learned    bool  // an association table was written
	Bytes      int64 // bytes the merges wrote
	Elapsed    time.Duration
}

// Maintain keeps a collection's index directory in shape: it merges
// adjacent segments as the merge policy asks (log-structured, so the number
// of segments a search visits stays bounded as a collection grows one batch
// at a time), each merge crash-safe (a merge that fails or dies leaves the
// index as it was), and then, with opt.Learn, writes the final commit's
// association table. It does not bring the index up to date with the store
// (Load does) and may run while searches and Loads go on: a merge whose
// segments changed meanwhile is still committed (deletions made meanwhile
// carry over), one whose segments were merged away by another process is
// dropped. A disk too full for a merge is an error wrapping
// index.ErrNoSpace, and nothing is changed.
func Maintain(ctx context.Context, st *store.Store, collection string, opt MaintainOptions) (MaintainReport, error) {
	start := time.Now()
	var rep MaintainReport
	p := opt.Policy
	if p.Factor == 0 {
		p = index.DefaultMergePolicy
	}
	d, err := openIndexDir(ctx, st, collection)
	if err != nil {
		return rep, err
	}
	c, err := d.Commit()
	if err != nil {
		return rep, fmt.Errorf("index maintenance: %w", err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		names := p.Pick(c)
		if names == nil {
			break
		}
		var progress func(int64, int64)
		if opt.Progress != nil {
			progress = func(done, total int64) { opt.Progress("merge", done, total) }
		}
		next, st, err := d.Merge(names, progress)
		if err != nil {
			return rep, fmt.Errorf("index maintenance: %w", err)
		}
		if next.ID == c.ID {
			break // nothing committed (another process merged them)
		}
		rep.Merges++
		rep.MergedDocs += st.Docs
		rep.Bytes += st.Bytes
		c = next
	}
	rep.Segments = len(c.Segments)
	if opt.Learn && len(c.Segments) > 0 {
		if _, err := os.Stat(d.AuxPath(c.ID, assocAux)); errors.Is(err, fs.ErrNotExist) {
			snap, err := d.Snapshot(c)
			if err != nil {
				return rep, fmt.Errorf("index maintenance: %w", err)
			}
			var progress func(int, int)
			if opt.Progress != nil {
				progress = func(done, total int) { opt.Progress("learn", int64(done), int64(total)) }
			}
			ix := search.Open(snap, nil)
			err = d.PutAux(c.ID, assocAux, func(f *os.File) error {
				return ix.WriteAssociations(f, progress)
			})
			if err != nil {
				return rep, fmt.Errorf("index maintenance: learning word associations: %w", err)
			}
			rep.Learned = true
			// How each document is shown, kept beside: the displays of
			// documents unchanged since the last are read, the others made.
			ix.SetDisplays(func() ([]byte, error) { return os.ReadFile(filepath.Join(d.Path(), displaysFile)) })
			// A display not kept is made when asked.
			if err := KeepDisplays(ctx, st, collection, ix); err != nil {
				slog.Warn("index maintenance: displays not kept", "collection", collection, "err", err)
			}
		}
	}
	if rep.Merges > 0 || rep.Learned {
		if err := publishShared(ctx, st, collection, d, c); err != nil {
			return rep, fmt.Errorf("index maintenance: %w", err)
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}
