package usecase

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/examples"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/review/deadline"
	"github.com/pakton/pakton/internal/store"
)

// TestDeadlinesOfTheSampleContracts reads the deadlines of the bundled
// sample contracts through the review engine, as every face does, and
// checks each date against the clause it comes from (worked out by hand
// from the contracts' own words).
func TestDeadlinesOfTheSampleContracts(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.MkdirAll(in, 0o755)
	for _, n := range []string{"master-services-agreement.txt", "distribution-agreement.txt", "software-license-agreement.html", "supply-agreement.docx", "mutual-nda.md"} {
		data, err := examples.FS.ReadFile("contracts/" + n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(in, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := ingest.Ingest(t.Context(), st, "c", []string{in}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	asOf := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	list, err := Deadlines{Store: st, Collection: "c"}.List(t.Context(), asOf)
	if err != nil {
		t.Fatal(err)
	}
	if list.Contracts != 5 || list.AsOf != "2026-12-07" {
		t.Fatalf("contracts %d as of %s", list.Contracts, list.AsOf)
	}
	find := func(doc string, kind deadline.Kind) deadline.Deadline {
		t.Helper()
		for _, d := range list.Deadlines {
			if d.DocName == doc && d.Kind == kind {
				return d
			}
		}
		t.Fatalf("%s: no %s deadline in %+v", doc, kind, list.Deadlines)
		return deadline.Deadline{}
	}
	// MSA: effective 3 March 2025, an initial term of three years, renewing
	// for a year unless notice is given at least ninety days before.
	if d := find("master-services-agreement.txt", deadline.KindRenewal); d.Date != "2028-03-03" {
		t.Errorf("MSA renewal %q (%s; %s)", d.Date, d.How, d.Why)
	}
	nr := find("master-services-agreement.txt", deadline.KindNonRenewal)
	if nr.Date != "2027-12-04" || len(nr.Clauses) == 0 || !strings.Contains(nr.Clauses[0].Quote, "non-renewal") {
		t.Errorf("MSA notice of non-renewal %q %+v", nr.Date, nr.Clauses)
	}
	// Supply agreement: until 31 March 2030; notice twelve months before.
	if d := find("supply-agreement.docx", deadline.KindNonRenewal); d.Date != "2029-03-31" {
		t.Errorf("supply notice %q (%s; %s)", d.Date, d.How, d.Why)
	}
	// Distribution agreement: five Contract Years from 1 July 2025; the
	// Distributor may request a renewal no earlier than twelve months and
	// no later than 180 days before the end: an option window.
	o := find("distribution-agreement.txt", deadline.KindOption)
	if o.Start != "2029-07-01" || o.Date != "2030-01-02" || !strings.Contains(o.Clauses[0].Quote, "may request a renewal") {
		t.Errorf("distribution option %s – %s %+v", o.Start, o.Date, o.Clauses)
	}
	if d := find("distribution-agreement.txt", deadline.KindExpiry); d.Date != "2030-07-01" {
		t.Errorf("distribution expiry %q", d.Date)
	}
	// The NDA states no term: said, not guessed.
	if d := find("mutual-nda.md", deadline.KindExpiry); d.Dated() || d.Why == "" {
		t.Errorf("NDA expiry %+v", d)
	}
	// Every dated deadline cites a clause, and the list is in date order.
	last := ""
	for _, d := range list.Deadlines {
		if !d.Dated() {
			continue
		}
		if len(d.Clauses) == 0 || d.Clauses[0].Quote == "" {
			t.Errorf("%s %s cites no clause", d.DocName, d.Label)
		}
		if d.Date < last {
			t.Errorf("out of order: %s after %s", d.Date, last)
		}
		last = d.Date
	}
	// --within: the next year holds the two notices of non-renewal only.
	until, err := WithinDays(asOf, "1y")
	if err != nil {
		t.Fatal(err)
	}
	soon := deadline.Within(list.Deadlines, asOf, until)
	if len(soon) != 2 || soon[0].Date != "2027-11-16" || soon[1].Date != "2027-12-04" {
		t.Errorf("within a year: %+v", soon)
	}
	// A second list reads every cell from the cache.
	again, err := Deadlines{Store: st, Collection: "c", Progress: func(done, total int) { t.Errorf("reviewed again: %d of %d", done, total) }}.List(t.Context(), asOf)
	if err != nil || len(again.Deadlines) != len(list.Deadlines) {
		t.Fatalf("again: %v, %d deadlines", err, len(again.Deadlines))
	}
}
