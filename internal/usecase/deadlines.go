package usecase

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pakton/pakton/internal/agent"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/names"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/deadline"
	"github.com/pakton/pakton/internal/store"
)

// Deadlines lists the deadlines of a collection's contracts — when each
// term ends and renews, the last day to give notice of non-renewal or to
// exercise an option, windows that open on an event — each with the clause
// it was read from, and those that cannot be computed with why
// (internal/review/deadline). The dates and periods are read by the review
// engine with the built-in playbook's detectors, offline, one provision at a
// time as a deal-room question reads them, and share that question's cache
// (agent.DealRoomCache): a second list reviews only the contracts that
// changed. Every face — `pakton deadlines`, GET …/deadlines (JSON or
// iCalendar) and the web app's Deadlines view — calls List.
type Deadlines struct {
	Store      *store.Store
	Collection string
	// Docs limits the list to these documents (ids); empty means every
	// contract of the collection, correspondence left out unless
	// IncludeCorrespondence.
	Docs                  []string
	IncludeCorrespondence bool
	// Workers is how many contracts are reviewed at once (default 2).
	Workers int
	// Progress, when set, is called after each contract reviewed (not for
	// those read from the cache).
	Progress func(done, total int)
}

// DeadlineList is a collection's deadlines as of a day.
type DeadlineList struct {
	Collection string `json:"collection"`
	// AsOf is the day the list was made for (YYYY-MM-DD): terms that renew
	// by themselves are rolled forward to it.
	AsOf string `json:"as_of"`
	// Contracts is how many contracts were read.
	Contracts int `json:"contracts"`
	// Deadlines are dated ones first, by date, then those that could not
	// be computed (Why says why).
	Deadlines []deadline.Deadline `json:"deadlines"`
	// Unreadable are the contracts that could not be reviewed, with why.
	Unreadable []Unreadable `json:"unreadable,omitempty"`
}

// Unreadable is a contract a list could not read.
type Unreadable struct {
	DocID   string `json:"doc_id"`
	DocName string `json:"doc_name"`
	Error   string `json:"error"`
}

// List reads the deadlines of the collection as of asOf.
func (d Deadlines) List(ctx context.Context, asOf time.Time) (*DeadlineList, error) {
	infos, err := d.Store.List(ctx, d.Collection)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, id := range d.Docs {
		want[id] = true
	}
	var docs []review.DealRoomDoc
	titles := map[string]string{}
	for _, in := range infos {
		if len(want) > 0 && !want[in.ID] {
			continue
		}
		nm, nerr := docread.DocNames(ctx, d.Store, d.Collection, in.ID)
		if len(want) == 0 && !d.IncludeCorrespondence && nerr == nil && nm.Correspondence != "" {
			continue
		}
		if nerr == nil {
			titles[in.ID] = names.Display(nm, in.Name)
		}
		docs = append(docs, review.DealRoomDoc{ID: in.ID, Name: in.Name, Hash: in.Source.SHA256})
	}
	if len(want) > 0 && len(docs) < len(want) {
		return nil, fmt.Errorf("deadlines: %d of the %d documents named are not in collection %q", len(want)-len(docs), len(want), d.Collection)
	}
	list := &DeadlineList{Collection: d.Collection, AsOf: asOf.Format("2006-01-02"), Contracts: len(docs), Deadlines: []deadline.Deadline{}}
	if len(docs) == 0 {
		return list, nil
	}
	f, err := review.NewBuiltinFinder(review.StoreLoader(d.Store, d.Collection))
	if err != nil {
		return nil, err
	}
	opt := review.DealRoomOptions{Workers: d.Workers, Progress: d.Progress}
	if dir, err := d.Store.CachePath(d.Collection, agent.DealRoomCache); err == nil {
		opt.CacheDir = dir
	}
	cells, errs, err := f.Cells(ctx, deadline.Provisions, docs, opt)
	if err != nil {
		return nil, err
	}
	var contracts []deadline.Contract
	for i, doc := range docs {
		if errs[i] != nil {
			list.Unreadable = append(list.Unreadable, Unreadable{DocID: doc.ID, DocName: doc.Name, Error: errs[i].Error()})
			continue
		}
		contracts = append(contracts, deadline.Contract{DocID: doc.ID, DocName: doc.Name, Title: titles[doc.ID], Cells: cells[i]})
	}
	if ds := deadline.Compute(contracts, asOf); ds != nil {
		list.Deadlines = ds
	}
	return list, nil
}

// WithinDays returns the day a span written as "90d", "12w", "6m" or "1y"
// (days, weeks, months, years) after from ends on.
func WithinDays(from time.Time, span string) (time.Time, error) {
	s := strings.ToLower(strings.TrimSpace(span))
	if len(s) < 2 {
		return time.Time{}, fmt.Errorf("%q: want a number and a unit: 90d, 12w, 6m, 1y", span)
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil || n < 0 || n > 100000 {
		return time.Time{}, fmt.Errorf("%q: want a number and a unit: 90d, 12w, 6m, 1y", span)
	}
	switch s[len(s)-1] {
	case 'd':
		return from.AddDate(0, 0, n), nil
	case 'w':
		return from.AddDate(0, 0, 7*n), nil
	case 'm':
		return from.AddDate(0, n, 0), nil
	case 'y':
		return from.AddDate(n, 0, 0), nil
	}
	return time.Time{}, fmt.Errorf("%q: want a number and a unit: 90d, 12w, 6m, 1y", span)
}
