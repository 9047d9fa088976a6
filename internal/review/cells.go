package review

import (
	"context"
	"log/slog"
	"sync"

	"github.com/pakton/pakton/internal/parallel"
)

// Cells reviews each of docs for each of the named provisions, one provision
// at a time as a deal-room question does, and shares that question's cache:
// out[i][k] is docs[i]'s cell for names[k], errs[i] why docs[i] could not be
// reviewed. The deadline list reads the dates and periods of a deal room
// with it.
func (f *Finder) Cells(ctx context.Context, names []string, docs []DealRoomDoc, opt DealRoomOptions) (out [][]Cell, errs []error, err error) {
	revs := make([]*Reviewer, len(names))
	caches := make([]*dealCache, len(names))
	for k, n := range names {
		r, err := f.reviewer([]string{n})
		if err != nil {
			return nil, nil, err
		}
		revs[k] = r
		caches[k] = openDealCache(opt.CacheDir, r.pb.Provisions[0].Name, r.Fingerprint())
	}
	out = make([][]Cell, len(docs))
	errs = make([]error, len(docs))
	var todo []int
	for i, d := range docs {
		out[i] = make([]Cell, len(names))
		miss := false
		for k := range names {
			c, ok := caches[k].get(d)
			if !ok {
				miss = true
				break
			}
			out[i][k] = c
		}
		if miss {
			todo = append(todo, i)
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = 2
	}
	var mu sync.Mutex
	done := 0
	err = parallel.Each(ctx, len(todo), workers, func(j int) {
		i := todo[j]
		for k := range names {
			// the contract is prepared once: f keeps the last ones prepared
			c, err := f.reviewOne(ctx, revs[k], docs[i])
			if err != nil {
				errs[i] = err
				break
			}
			out[i][k] = c
			caches[k].put(docs[i], c)
		}
		if opt.Progress != nil {
			mu.Lock()
			done++
			opt.Progress(done, len(todo))
			mu.Unlock()
		}
	})
	if err != nil {
		return nil, nil, err
	}
	for _, c := range caches {
		if err := c.save(); err != nil {
			slog.Warn("deal-room cache not saved", "err", err)
		}
	}
	return out, errs, nil
}
