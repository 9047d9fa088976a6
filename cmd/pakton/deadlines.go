package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/progress"
	"github.com/pakton/pakton/internal/review/deadline"
	"github.com/pakton/pakton/internal/usecase"
)

const deadlinesUsage = `deadlines [flags]

Lists the deadlines of a collection's contracts: when each term ends and
renews, the last day to give notice of non-renewal, the last day to exercise
an option to renew, windows that open on an event — each with the clause it
was read from — and the dates that cannot be computed, with why. The dates
and periods are read offline by the review engine (docs/REVIEW.md).
--ics FILE writes the dated ones as an iCalendar file a calendar imports.`

func runDeadlines(ctx context.Context, args []string) error {
	fs, g := newFlags("deadlines", deadlinesUsage)
	within := fs.String("within", "", "only deadlines from the current date (or --as-of) to this far ahead: 90d, 12w, 6m, 1y")
	asOfFlag := fs.String("as-of", "", "the day the list is made for (YYYY-MM-DD; default the current date): terms that renew by themselves are rolled forward to it")
	ics := fs.String("ics", "", "write the dated deadlines as an iCalendar file (RFC 5545) to FILE (- for standard output)")
	asJSON := fs.Bool("json", false, "print JSON")
	var docs stringList
	fs.Var(&docs, "doc", "only this document: id or name (repeatable)")
	withCorr := fs.Bool("include-correspondence", false, "read cover e-mails, letters and indexes too (left out as correspondence by default)")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q", rest[0])
	}
	asOf := time.Now().UTC()
	if *asOfFlag != "" {
		if asOf, err = time.Parse("2006-01-02", *asOfFlag); err != nil {
			return fmt.Errorf("--as-of %q: want a day as YYYY-MM-DD", *asOfFlag)
		}
	}
	asOf = time.Date(asOf.Year(), asOf.Month(), asOf.Day(), 0, 0, 0, 0, time.UTC)
	var until time.Time
	if *within != "" {
		if until, err = usecase.WithinDays(asOf, *within); err != nil {
			return fmt.Errorf("--within: %w", err)
		}
	}
	st, err := g.openCollection(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	uc := usecase.Deadlines{Store: st, Collection: g.collection, IncludeCorrespondence: *withCorr}
	for _, ref := range docs {
		info, err := docread.FindDoc(ctx, st, g.collection, ref)
		if err != nil {
			return err
		}
		uc.Docs = append(uc.Docs, info.ID)
	}
	var bar *progress.Bar
	uc.Progress = func(done, total int) {
		if bar == nil {
			bar = progress.New(stderr, "reading dates", total, 0)
		}
		bar.Update(done, 0, "")
	}
	list, err := uc.List(ctx, asOf)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return err
	}
	if *within != "" {
		list.Deadlines = deadline.Within(list.Deadlines, asOf, until)
	}
	if *ics != "" {
		name := fmt.Sprintf("pakton deadlines — %s", g.collection)
		if *ics == "-" {
			return deadline.ICS(stdout, list.Deadlines, name, time.Now())
		}
		f, err := os.Create(*ics)
		if err != nil {
			return err
		}
		if err := deadline.ICS(f, list.Deadlines, name, time.Now()); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		dated := 0
		for _, d := range list.Deadlines {
			if d.Dated() {
				dated++
			}
		}
		fmt.Fprintf(stderr, "wrote %d events to %s\n", dated, *ics)
	}
	if *asJSON {
		return writeJSON(list)
	}
	if *ics != "" && *ics != "-" {
		return nil
	}
	list.WriteText(stdout, *within)
	return nil
}
