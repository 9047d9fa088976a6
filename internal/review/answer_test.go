package review

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
)

// extractsOf makes extracts of the given texts, laid out one after another
// in an imaginary contract (so spans are distinct and non-zero).
func extractsOf(texts ...string) []Extract {
	var ex []Extract
	at := 100
	for _, t := range texts {
		n := len([]rune(t))
		ex = append(ex, Extract{Span: document.Span{Start: at, End: at + n}, Text: t})
		at += n + 50
	}
	return ex
}

// spanText returns the text of an answer span, read from its extract.
func spanText(t *testing.T, ex []Extract, sp AnswerSpan) string {
	t.Helper()
	if sp.Extract < 0 || sp.Extract >= len(ex) {
		t.Fatalf("span %+v names extract %d of %d", sp, sp.Extract, len(ex))
	}
	e := ex[sp.Extract]
	if sp.Span.Start < e.Span.Start || sp.Span.End > e.Span.End || sp.Span.Len() == 0 {
		t.Fatalf("span %+v is not inside its extract %+v", sp.Span, e.Span)
	}
	r := []rune(e.Text)
	return string(r[sp.Span.Start-e.Span.Start : sp.Span.End-e.Span.Start])
}

func TestReadAnswerSpans(t *testing.T) {
	for _, c := range []struct {
		format   AnswerFormat
		texts    []string
		text     string
		spanText []string
	}{
		{AnswerJurisdiction, []string{"12. Governing Law", "This Agreement is governed by the laws of the State of New York."}, "New York", []string{"New York"}},
		{AnswerDate, []string{"This Agréement is dated as of March 1, 2019."}, "2019-03-01", []string{"March 1, 2019"}},
		{AnswerDuration, []string{"Thereafter it renews for successive one (1) year terms."}, "successive 1 year", []string{"one (1) year"}},
		{AnswerText, []string{"Exhibit 10.1\n\nMASTER SUPPLY AGREEMENT\n\nThis Master Supply Agreement is made"}, "MASTER SUPPLY AGREEMENT", []string{"MASTER SUPPLY AGREEMENT"}},
		{AnswerText, []string{"Deed of Guarantee\n\nThis deed is dated 1 May 2020 and made by"}, "Deed of Guarantee", []string{"Deed of Guarantee"}},
		{AnswerText, []string{"11.1 Each party shall keep the other's Confidential Information in confidence under this Agreement."}, "", nil},
		{AnswerYesNo, []string{"Either party may terminate this Agreement for convenience."}, "Yes", nil},
		{AnswerParty, []string{`This Agreement is made by and between Acme LLC ("Acme") and Beta GmbH ("Supplier").`}, "Acme LLC (Acme); Beta GmbH (Supplier)",
			[]string{"Acme LLC", "Acme", "Beta GmbH", "Supplier"}},
	} {
		ex := extractsOf(c.texts...)
		a := readAnswer(&Provision{Name: "p", Answer: c.format}, nil, ex)
		if a.Text != c.text {
			t.Errorf("%s: text %q, want %q", c.format, a.Text, c.text)
		}
		var got []string
		for _, sp := range a.Spans {
			got = append(got, spanText(t, ex, sp))
		}
		if len(got) != len(c.spanText) {
			t.Errorf("%s: spans read %q, want %q", c.format, got, c.spanText)
			continue
		}
		for i := range got {
			if got[i] != c.spanText[i] {
				t.Errorf("%s: span %d reads %q, want %q", c.format, i, got[i], c.spanText[i])
			}
		}
	}
}

func TestPreambleParties(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string // "name (role)"
	}{
		{`SUPPLY AGREEMENT. This Supply Agreement (the "Agreement") is made as of June 1, 2021 (the "Effective Date") by and between NORTHWIND TRADERS, INC., a Delaware corporation with offices at 1 Main Street, Springfield ("Northwind"), and Contoso Components GmbH, a company incorporated in Germany (the "Supplier"). WHEREAS the Supplier makes parts;`,
			[]string{"NORTHWIND TRADERS, INC. (Northwind)", "Contoso Components GmbH (Supplier)"}},
		{`This Consulting Agreement is entered into by and between Fabrikam Labs LLC (hereinafter referred to as "Client") and Jane Q. Public, an individual residing in Ohio ("Consultant"). 1. Services.`,
			[]string{"Fabrikam Labs LLC (Client)", "Jane Q. Public (Consultant)"}},
		{`The Contractor: Adventure Works Co. (hereinafter referred to as Party A) and the Designer: Margie Travel Studio (hereinafter referred to as Party B) agree as follows:`,
			[]string{"Adventure Works Co. (Party A)", "Margie Travel Studio (Party B)"}},
		{`This Agreement is made between Proseware, Inc. ("Proseware"), a Nevada corporation, and John Smith ("Talent"), an individual.\n\nAGREEMENT\n\n1. Engagement. Proseware engages Talent for the campaign (the "Campaign") in Territory A ("Territory").`,
			[]string{"Proseware, Inc. (Proseware)", "John Smith (Talent)"}},
		{`THIS AGREEMENT is dated 2 May 2018\n\nBETWEEN: (1) NORTHWIND 2010 LIMITED (registered number 0123) whose registered office is at 5 High Street, Leeds (the Employer) (2) MARY MAJOR (the Director).\n\nIT IS AGREED as follows:`,
			[]string{"NORTHWIND 2010 LIMITED (Employer)", "MARY MAJOR (Director)"}},
		{`This Services Agreement is made by and between fourthcoffee.com, Inc. ("Fourth Coffee") and e-widgets, Inc. ("Provider").`,
			[]string{"fourthcoffee.com, Inc. (Fourth Coffee)", "e-widgets, Inc. (Provider)"}},
		{`Between: Trey Research Inc., having its office at 1 Elm Road, Suite 4, Dover, hereinafter referred to as "Trey";\n\nAnd:\n\nLucerne Publishing, having an office at 2 Oak Road, hereinafter referred to as "Lucerne".\n\nOverview`,
			[]string{"Trey Research Inc. (Trey)", "Lucerne Publishing (Lucerne)"}},
		{`Cooperation Agreement This Agreement is made in Shanghai by the following parties. Party A: Fabrikam Trading Co., Ltd. Legal Representative: Li Wei Party B: Tailwind Logistics Co., Ltd. Legal Representative: Zhang Min. Through friendly negotiation the parties agree as follows:`,
			[]string{"Fabrikam Trading Co., Ltd. (Party A)", "Tailwind Logistics Co., Ltd. (Party B)"}},
		{`LICENSE AGREEMENT between Tailspin Toys Ltd. and Wide World Importers plc, dated 3 March 2019. 1. Licence.`,
			[]string{"Tailspin Toys Ltd.", "Wide World Importers plc"}},
		{`THIS AGREEMENT is made among Alpine Ski House, Inc. ("Alpine"), Coho Winery, LLC ("Coho") and Litware, Inc. ("Litware") (each a "Party" and together the "Parties"). RECITALS`,
			[]string{"Alpine Ski House, Inc. (Alpine)", "Coho Winery, LLC (Coho)", "Litware, Inc. (Litware)"}},
	} {
		c.text = strings.ReplaceAll(c.text, `\n`, "\n") // the cases are raw strings
		var got []string
		for _, p := range preambleParties(c.text) {
			g := p.name
			if p.roleAt >= 0 {
				g += " (" + p.role + ")"
				if c.text[p.roleAt:p.roleEnd] != p.role {
					t.Errorf("role span %q, role %q", c.text[p.roleAt:p.roleEnd], p.role)
				}
			}
			if c.text[p.nameAt:p.nameEnd] != p.name {
				t.Errorf("name span %q, name %q", c.text[p.nameAt:p.nameEnd], p.name)
			}
			got = append(got, g)
		}
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
			t.Errorf("parties of %.60q…:\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

func TestSignatureParties(t *testing.T) {
	text := "… end of terms.\n\nIN WITNESS WHEREOF, the parties have executed this Agreement.\n\nNORTHWIND TRADERS, INC.\n\nBy: ______________\nName: A. Person\nTitle: CEO\n\nLICENSEE: Contoso Components GmbH\nBy: ______________\n"
	var got []string
	for _, p := range signatureParties(text) {
		got = append(got, p.name+"|"+p.role)
	}
	want := []string{"NORTHWIND TRADERS, INC.|", "Contoso Components GmbH|Licensee"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("signature parties %q, want %q", got, want)
	}
}
