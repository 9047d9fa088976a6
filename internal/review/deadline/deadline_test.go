package deadline

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
)

// cell is a found cell of provision p whose answer is value, read from a
// clause whose text is clause.
func cell(p, value, clause string) review.Cell {
	return review.Cell{Provision: p, Found: true, Answer: &answer.Answer{Kind: answer.KindValue, Text: value},
		Extracts: []detect.Extract{{Path: "11 > 11.1", Text: clause}}}
}

// contract builds a contract from cells keyed by provision.
func contract(cells ...review.Cell) Contract {
	c := Contract{DocID: "d1", DocName: "msa.txt", Cells: make([]review.Cell, len(Provisions))}
	for _, cl := range cells {
		for k, p := range Provisions {
			if p == cl.Provision {
				c.Cells[k] = cl
			}
		}
	}
	return c
}

func byKind(ds []Deadline, k Kind) (Deadline, bool) {
	for _, d := range ds {
		if d.Kind == k {
			return d, true
		}
	}
	return Deadline{}, false
}

var dec2026 = time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)

func TestAddClampsToMonthEnd(t *testing.T) {
	for _, c := range []struct {
		from string
		n    int
		unit string
		want string
	}{
		{"2027-03-31", -1, "month", "2027-02-28"},
		{"2028-03-31", -1, "month", "2028-02-29"},
		{"2024-02-29", 1, "year", "2025-02-28"},
		{"2025-01-31", 1, "month", "2025-02-28"},
		{"2028-03-03", -90, "day", "2027-12-04"},
		{"2030-07-01", -12, "month", "2029-07-01"},
		{"2025-03-03", 3, "year", "2028-03-03"},
		{"2025-03-03", 2, "week", "2025-03-17"},
	} {
		f, _ := time.Parse(day, c.from)
		if got := add(f, c.n, c.unit).Format(day); got != c.want {
			t.Errorf("%s %+d %s = %s, want %s", c.from, c.n, c.unit, got, c.want)
		}
	}
}

func TestRenewalRollsForward(t *testing.T) {
	renew := "Thereafter this Agreement renews automatically for successive renewal terms of one (1) year each, unless either Party gives written notice of non-renewal at least ninety (90) days before the end of the then-current term."
	c := contract(
		cell(EffectiveDate, "2019-03-03", "effective as of March 3, 2019"),
		cell(Expiration, "2022-03-03", "continues for an initial term of three (3) years"),
		cell(Renewal, "successive 1 year", renew),
		cell(NonRenewal, "90 days", renew),
	)
	ds := Compute([]Contract{c}, dec2026)
	r, ok := byKind(ds, KindRenewal)
	// 2022-03-03 + 5 renewals of a year = 2027-03-03, the first end after 7 December 2026
	if !ok || r.Date != "2027-03-03" || !strings.Contains(r.How, "renewed 5 times") || !strings.Contains(r.Label, "Renewal term ends") {
		t.Fatalf("renewal %+v", r)
	}
	n, _ := byKind(ds, KindNonRenewal)
	if n.Date != "2026-12-03" {
		t.Errorf("notice %+v", n)
	}
	// a cap on renewals: two renewals only, both run by 2026
	capped := contract(
		cell(Expiration, "2020-01-01", "expires on January 1, 2020"),
		cell(Renewal, "1 year", "This Agreement shall renew automatically for up to two (2) additional terms of one (1) year each."),
	)
	ds = Compute([]Contract{capped}, dec2026)
	e, _ := byKind(ds, KindExpiry)
	if e.Date != "2022-01-01" || !strings.Contains(e.Label, "no renewal left") {
		t.Errorf("capped %+v", e)
	}
	if _, ok := byKind(ds, KindNonRenewal); ok {
		t.Errorf("a notice of non-renewal after the last renewal: %+v", ds)
	}
}

func TestNoticeWindowAndBusinessDays(t *testing.T) {
	s := "Either party may give notice of non-renewal not more than one hundred eighty (180) days and not less than ninety (90) days before the end of the then-current term."
	c := contract(cell(Expiration, "2028-03-03", "expires on March 3, 2028"), cell(Renewal, "1 year", "renews automatically for one (1) year"), cell(NonRenewal, "90 days", s))
	n, _ := byKind(Compute([]Contract{c}, dec2026), KindNonRenewal)
	if n.Start != "2027-09-05" || n.Date != "2027-12-04" || !strings.HasPrefix(n.Label, "Window") {
		t.Errorf("window %+v", n)
	}
	b := contract(cell(Expiration, "2028-03-03", "expires on March 3, 2028"), cell(Renewal, "1 year", "renews automatically for one (1) year"), cell(NonRenewal, "10 business days", "at least ten (10) business days before the end of the term"))
	n, _ = byKind(Compute([]Contract{b}, dec2026), KindNonRenewal)
	if n.Dated() || !strings.Contains(n.Why, "business days") {
		t.Errorf("business days %+v", n)
	}
}

func TestWhyNotComputed(t *testing.T) {
	// a term that runs from an event the contract does not date
	ev := contract(cell(Expiration, "", "This Agreement continues for five (5) years from the date of first commercial sale of the Product, unless terminated earlier."))
	e, _ := byKind(Compute([]Contract{ev}, dec2026), KindExpiry)
	if e.Dated() || !strings.Contains(e.Why, "first commercial sale") || !strings.Contains(e.Why, "does not date") {
		t.Errorf("event %+v", e)
	}
	// a contract date left blank
	bl := contract(cell(AgreementDate, answer.BlankDate+" (2009)", "dated as of ____, 2009"), cell(Expiration, "", "for a period of two (2) years from the date hereof"))
	e, _ = byKind(Compute([]Contract{bl}, dec2026), KindExpiry)
	if e.Dated() || !strings.Contains(e.Why, "left blank") {
		t.Errorf("blank %+v", e)
	}
	// perpetual
	pe := contract(cell(Expiration, "perpetual", "This Agreement continues until terminated by either party."))
	e, _ = byKind(Compute([]Contract{pe}, dec2026), KindExpiry)
	if e.Dated() || !strings.Contains(e.Why, "no end date") {
		t.Errorf("perpetual %+v", e)
	}
	// a right of first refusal: days after notice of an offer
	rf := contract(cell(FirstRefusal, "Yes", "the Company may elect to purchase the Shares within thirty (30) days after receipt of the Offer Notice."))
	w, ok := byKind(Compute([]Contract{rf}, dec2026), KindWindow)
	if !ok || w.Dated() || !strings.Contains(w.Why, "30 days") || !strings.Contains(w.Why, "receipt of the Offer Notice") {
		t.Errorf("window %+v", w)
	}
	// the renewal's notice cannot be dated when the term cannot
	nr := contract(ev.Cells[slices.Index(Provisions, Expiration)], cell(Renewal, "1 year", "renews automatically for one (1) year unless either party gives sixty (60) days' notice"))
	n, _ := byKind(Compute([]Contract{nr}, dec2026), KindNonRenewal)
	if n.Dated() || !strings.Contains(n.Why, "first commercial sale") {
		t.Errorf("notice of an undated term %+v", n)
	}
}

func TestOptionToExtend(t *testing.T) {
	c := contract(cell(Expiration, "2027-06-30", "expires on June 30, 2027"),
		cell(Renewal, "3 years", "The Licensee may extend the term for one additional period of three (3) years by written notice given at least six (6) months before the end of the Initial Term."))
	ds := Compute([]Contract{c}, dec2026)
	o, ok := byKind(ds, KindOption)
	if !ok || o.Date != "2026-12-30" || !strings.Contains(o.Clauses[0].Quote, "may extend") {
		t.Errorf("option %+v", o)
	}
	if _, ok := byKind(ds, KindRenewal); ok {
		t.Errorf("an option read as an automatic renewal: %+v", ds)
	}
}

// A quote is the whole sentence that holds the value: the point inside a
// clause number or an amount does not start a sentence.
func TestSentenceAt(t *testing.T) {
	for _, c := range []struct{ text, at, want string }{
		{"12.1\tThis Agreement starts on signing.\n12.2\tIt renews for two (2) years unless notice is given.", "two",
			"12.2 It renews for two (2) years unless notice is given."},
		{"The fee is US$1.5 million. It is payable within 30 days of invoice; late sums bear interest.", "30 days",
			"It is payable within 30 days of invoice;"},
		{"Term. The term is five (5) years.", "five", "The term is five (5) years."},
	} {
		if got := sentenceAt(c.text, strings.Index(c.text, c.at)); got != c.want {
			t.Errorf("sentenceAt(%q, %q) = %q, want %q", c.text, c.at, got, c.want)
		}
	}
}
