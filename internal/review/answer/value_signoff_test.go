package answer

import (
	"context"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// TestValuesALawyerSignsOff checks values read the way a lawyer reads them:
// the time to pay, not a window to dispute an invoice or a notice; the
// contract's own blank date said as blank, dashes for a missing part too;
// a date a filing's underline splits read whole; an ordinal OCR read as
// "%"; no "perpetual" effective date.
func TestValuesALawyerSignsOff(t *testing.T) {
	pay := builtinProvision(t, "Payment Terms")
	eff := builtinProvision(t, "Effective Date")
	agreed := builtinProvision(t, "Agreement Date")
	tests := []struct {
		name  string
		p     any
		texts []string
		want  string
	}{
		{"the time to pay, not the dispute window", pay, []string{
			"Customer shall pay each invoice Net forty-five (45) days after the date of invoice.",
			"Customer may dispute any invoice in good faith by written notice within twenty-five (25) days of its receipt."}, "45 days"},
		{"the dispute window first in the extracts", pay, []string{
			"Any invoice not disputed within twenty-five (25) days after receipt shall be deemed accepted.",
			"All amounts are payable within forty-five (45) days of the date of invoice."}, "45 days"},
		{"a term and a notice are not a time to pay", pay, []string{
			"At the end of the initial one-year term, Provider may adjust the monthly fee payable under this Agreement by providing Customer written notice at least sixty (60) days prior to the new term."}, ""},
		{"a title with its blank date", agreed, []string{
			"ACME BANCORP\n\nAGENCY AGREEMENT\n\n, 2009\n\nLadies and Gentlemen: Acme Bancorp (the \"Company\") confirms its agreement with the Agent. Eligible holders are depositors as of March 31, 2008."}, "left blank (2009)"},
		{"dated blank, effective on a date: the agreement's date", agreed, []string{
			"THIS ENDORSEMENT AGREEMENT (the \"Agreement\") is dated as of this ____day of ____________, 2012, but made effective as of February 20, 2012 (\"Effective Date\") between Acme LLC (\"Acme\") and Jane Roe, an individual."}, "left blank (2012)"},
		{"dated blank, effective on a date: the effective date", eff, []string{
			"THIS ENDORSEMENT AGREEMENT (the \"Agreement\") is dated as of this ____day of ____________, 2012, but made effective as of February 20, 2012 (\"Effective Date\") between Acme LLC (\"Acme\") and Jane Roe, an individual."}, "2012-02-20"},
		{"a redacted date is not a blank one", eff, []string{
			"The Term of this Agreement shall be for a period of [*****] years commencing the 1st day of September 2004 and terminating the [*****] day of [*****]."}, "2004-09-01"},
		{"a blank date with a blank year", agreed, []string{
			"This Services Agreement (the \"Agreement\") is entered into as of the ___ day of ______, 20__, by and between Acme Inc. and Beta LLC."}, "left blank"},
		{"a blank date, the year's digits blank too", agreed, []string{
			"THIS AGREEMENT is dated ____________ , 20__ and is made between Acme Inc. and Beta LLC."}, "left blank"},
		{"the contract's own date, not the engagement letter's", agreed, []string{
			"In accordance with the engagement letter dated January 5, 2009 between the Company and the Agent (the \"Engagement Letter\"), the Company hereby retains the Agent. This Agreement is dated as of March 3, 2009."}, "2009-03-03"},
		{"a blank date, not the engagement letter's", agreed, []string{
			"AGENCY AGREEMENT\n\n, 2009\n\nLadies and Gentlemen: Acme Bancorp (the \"Company\") confirms its agreement with Keefe (the \"Agent\") as set forth in the engagement letter dated January 5, 2009 between the Company and the Agent."}, "left blank (2009)"},
		{"an ordinal read by OCR as a per cent sign", agreed, []string{
			"This Agreement is made this 15% day of March, 2009 between Acme Inc. and Beta LLC."}, "2009-03-15"},
		{"a date a filing's underline splits, read whole", agreed, []string{
			"THIS STRATEGIC ALLIANCE AGREEMENT (this \"Agreement\") is made as of 31 December,                ---------              1996, between NORTHERN TELECOM LIMITED (\"NTL\") and ENTRUST TECHNOLOGIES INC. (\"ETI\")."}, "1996-12-31"},
		{"the underline below the line, read whole", agreed, []string{
			"THIS AGREEMENT (this \"Agreement\") is made as of December 31,\n ---------\n1996, between Acme Inc. (\"Acme\") and Beta LLC (\"Beta\")."}, "1996-12-31"},
		{"a day typed as dashes: blank", agreed, []string{
			"THIS AGREEMENT (this \"Agreement\") is made as of December ---------, 1996, between Acme Inc. (\"Acme\") and Beta LLC (\"Beta\")."}, "left blank (December 1996)"},
		{"a day and month typed as dashes: blank", agreed, []string{
			"THIS AGREEMENT (this \"Agreement\") is dated as of ---------, 1996, between Acme Inc. (\"Acme\") and Beta LLC (\"Beta\")."}, "left blank (1996)"},
		{"an indefinite term is not an effective date", eff, []string{
			"This Agreement shall become effective on the date of execution and shall continue for an indefinite term."}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p.(*playbook.Provision)
			a, _ := Read(nil, p, extractsOf(tc.texts...), nil, true)
			if a.Text != tc.want {
				t.Fatalf("answer %q, want %q", a.Text, tc.want)
			}
		})
	}
}

// TestEffectiveOnSigning checks that an Effective Date defined as the date
// the parties sign is read from the dated signatures.
func TestEffectiveOnSigning(t *testing.T) {
	text := "JOINT VENTURE AGREEMENT\n\nThis Agreement is made between Acme Inc. (\"Acme\") and Beta LLC (\"Beta\").\n\n" +
		"1. Definitions. \"Effective Date\" means the date on which the Parties sign this Agreement.\n\n" +
		"2. Term. This Agreement continues until terminated.\n\n" +
		"IN WITNESS WHEREOF the parties have signed this Agreement.\n\nACME INC.\nBy: /s/ A. Smith\nDate: May 16, 2001\n\nBETA LLC\nBy: /s/ B. Jones\nDate: May 18, 2001\n"
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
	c := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	var ex []detect.Extract
	for i, ps := range c.Passages() {
		if strings.Contains(c.Index().Slice(ps.Span), "Effective Date\" means") {
			ex = append(ex, c.Extract(i, 0.9))
			break
		}
	}
	if len(ex) == 0 {
		t.Fatal("no passage defines the Effective Date")
	}
	a, got := Read(c, builtinProvision(t, "Effective Date"), ex, make([]float64, len(c.Passages())), true)
	if a.Text != "2001-05-18" {
		t.Fatalf("answer %+v, want the last signature's date 2001-05-18", a)
	}
	for _, sp := range a.Spans {
		if s := spanText(t, got, sp); s != "May 18, 2001" {
			t.Errorf("value read from %q", s)
		}
	}
}

// TestEffectiveAsDatedAbove checks that a date given as the contract's own
// ("the day and year first above written") is read from the date its
// opening writes, and the cell names the passage that writes it.
func TestEffectiveAsDatedAbove(t *testing.T) {
	text := "SPONSORSHIP AGREEMENT\n\nThis Sponsorship Agreement is made as of June 3, 2004 between Acme Inc. (\"Acme\") and Beta LLC (\"Sponsor\").\n\n" +
		"1. Sponsorship. Acme grants Sponsor the sponsorship rights described in Exhibit A.\n\n" +
		"6. Duration. This Agreement shall become effective as of the day and year first above written and shall govern the relations between the parties thereafter, unless terminated as set forth in this Section 6.\n\n" +
		"IN WITNESS WHEREOF the parties have signed this Agreement.\n\nACME INC.\nBy: /s/ A. Smith\n\nBETA LLC\nBy: /s/ B. Jones\n"
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
	c := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	var ex []detect.Extract
	for i, ps := range c.Passages() {
		if strings.Contains(c.Index().Slice(ps.Span), "first above written") {
			ex = append(ex, c.Extract(i, 0.9))
			break
		}
	}
	if len(ex) == 0 {
		t.Fatal("no passage says when the contract takes effect")
	}
	a, got := Read(c, builtinProvision(t, "Effective Date"), ex, make([]float64, len(c.Passages())), true)
	if a.Text != "2004-06-03" {
		t.Fatalf("answer %+v, want the opening's date 2004-06-03", a)
	}
	for _, sp := range a.Spans {
		if s := spanText(t, got, sp); s != "June 3, 2004" {
			t.Errorf("value read from %q", s)
		}
	}
}

// TestUndatedContractSigned checks that a contract whose opening writes no
// date is dated by its last dated signature — a date line of its own, or
// the place of signing with the date — and its term runs from it.
func TestUndatedContractSigned(t *testing.T) {
	for _, sig := range []string{"Bremen, March 4th, 2013", "Date: March 4, 2013"} {
		text := "SUPPLY AGREEMENT\n\nbetween\n\nNordic Oils GmbH & Co KG, Hafenstrasse 3, 28195 Bremen, Germany (\"Nordic\")\n\nand\n\nAcme Pharma Inc, 1 Main Street, Springfield (\"Acme\")\n\n" +
			"1) Nordic shall supply the Product to Acme.\n\n" +
			"2) This Agreement shall become effective on the date of its execution and shall remain in force for three years (the \"Initial Term\").\n\n" +
			"3) This Agreement is governed by the laws of Germany.\n\n\n" + sig + "\n\n/s/ A. Smith   /s/ B. Jones\n\nNORDIC OILS GmbH & Co KG   ACME PHARMA INC\n"
		d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
		c := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
		passage := func(s string) []detect.Extract {
			for i, ps := range c.Passages() {
				if strings.Contains(c.Index().Slice(ps.Span), s) {
					return []detect.Extract{c.Extract(i, 0.9)}
				}
			}
			t.Fatalf("no passage holds %q", s)
			return nil
		}
		scores := make([]float64, len(c.Passages()))
		a, got := Read(c, builtinProvision(t, "Agreement Date"), passage("Nordic shall supply"), scores, true)
		if a.Text != "2013-03-04" {
			t.Errorf("%s: agreement date %+v, want the signature's 2013-03-04", sig, a)
		}
		for _, sp := range a.Spans {
			if s := spanText(t, got, sp); !strings.Contains(sig, s) {
				t.Errorf("%s: value read from %q", sig, s)
			}
		}
		if a, _ := Read(c, builtinProvision(t, "Expiration Date"), passage("remain in force for three years"), scores, true); a.Text != "2016-03-04" {
			t.Errorf("%s: expiration %+v, want 2016-03-04", sig, a)
		}
	}
}

// TestDateCutByItsPassage checks that a date the clause parser cuts at a
// wide gap of a long preamble ("made as of 31 December," | "---------" | "1996, between …")
// is read whole, from the passage that holds its year too, and that a
// passage ending in a day and month with no year after it reads no date.
func TestDateCutByItsPassage(t *testing.T) {
	for _, tc := range []struct{ gap, want string }{
		{"                                           ---------                              1996", "1996-12-31"},
		{"                                           ---------                              the year after", ""},
	} {
		text := "Exhibit 10.5\n\n                         STRATEGIC ALLIANCE AGREEMENT\n\nTHIS  STRATEGIC ALLIANCE AGREEMENT (this \"Agreement\") is made as of 31 December," + tc.gap +
			", between NORTHERN TELECOM LIMITED, a Canadian corporation (\"NTL\"), and ENTRUST TECHNOLOGIES INC., a Maryland corporation (\"ETI\").\n\n" +
			strings.Repeat("WHEREAS, NTL and ETI desire to cooperate regarding contracting, patent cross-licensing and the exchange of information, all on the terms and subject to the conditions set forth herein;\n\n", 10) +
			"NOW THEREFORE, NTL and ETI agree as follows:\n\n1. Definitions. \"Affiliate\" means any entity controlled by a party.\n"
		// read as the text parser reads a filing's text file, which keeps
		// its wide gaps
		d, err := parse.Bytes(context.Background(), "x.txt", []byte(text), parse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
		var ex []detect.Extract
		for i, ps := range c.Passages() {
			if strings.Contains(c.Index().Slice(ps.Span), "is made as of") {
				ex = append(ex, c.Extract(i, 0.9))
				break
			}
		}
		if len(ex) == 0 {
			t.Fatal("no passage holds the preamble")
		}
		if strings.Contains(ex[0].Text, "between") {
			t.Fatalf("the passage %q is not cut inside the date: the test tests nothing", ex[0].Text)
		}
		a, got := Read(c, builtinProvision(t, "Agreement Date"), ex, make([]float64, len(c.Passages())), true)
		if a.Text != tc.want {
			t.Fatalf("%q: answer %+v, want %q", tc.gap, a, tc.want)
		}
		var cited []string
		for _, sp := range a.Spans {
			cited = append(cited, spanText(t, got, sp))
		}
		if tc.want != "" && strings.Join(cited, " | ") != "31 December, | 1996" {
			t.Errorf("value read from %q, want the day and month and the year", cited)
		}
	}
}
