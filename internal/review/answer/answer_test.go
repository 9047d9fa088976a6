package answer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// extractsOf makes extracts of the given texts, laid out one after another
// in an imaginary contract (so spans are distinct and non-zero).
func extractsOf(texts ...string) []detect.Extract {
	var ex []detect.Extract
	at := 100
	for _, t := range texts {
		n := len([]rune(t))
		ex = append(ex, detect.Extract{Span: document.Span{Start: at, End: at + n}, Text: t})
		at += n + 50
	}
	return ex
}

// spanText returns the text of an answer span, read from its extract.
func spanText(t *testing.T, ex []detect.Extract, sp Span) string {
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
		format   playbook.AnswerFormat
		texts    []string
		text     string
		spanText []string
	}{
		{playbook.AnswerJurisdiction, []string{"12. Governing Law", "This Agreement is governed by the laws of the State of New York."}, "New York", []string{"New York"}},
		{playbook.AnswerDate, []string{"This Agréement is dated as of March 1, 2019."}, "2019-03-01", []string{"March 1, 2019"}},
		{playbook.AnswerDuration, []string{"Thereafter it renews for successive one (1) year terms."}, "successive 1 year", []string{"one (1) year"}},
		{playbook.AnswerDuration, []string{"Thereafter, this agreement will renew automatically from year to year unless cancelled on 60 days' notice."}, "successive 1 year", []string{"year to year"}},
		{playbook.AnswerDuration, []string{"After the initial term this Agreement continues, automatically renewing annually, unless either party gives a thirty-day notice."}, "successive 1 year", []string{"annually"}},
		{playbook.AnswerText, []string{"Exhibit 10.1\n\nMASTER SUPPLY AGREEMENT\n\nThis Master Supply Agreement is made"}, "MASTER SUPPLY AGREEMENT", []string{"MASTER SUPPLY AGREEMENT"}},
		{playbook.AnswerText, []string{"Deed of Guarantee\n\nThis deed is dated 1 May 2020 and made by"}, "Deed of Guarantee", []string{"Deed of Guarantee"}},
		{playbook.AnswerText, []string{"11.1 Each party shall keep the other's Confidential Information in confidence under this Agreement."}, "", nil},
		{playbook.AnswerYesNo, []string{"Either party may terminate this Agreement for convenience."}, "Yes", nil},
		{playbook.AnswerParty, []string{`This Agreement is made by and between Acme LLC ("Acme") and Beta GmbH ("Supplier").`}, "Acme LLC (Acme); Beta GmbH (Supplier)",
			[]string{"Acme LLC", "Acme", "Beta GmbH", "Supplier"}},
	} {
		ex := extractsOf(c.texts...)
		a := readAnswer(&playbook.Provision{Name: "p", Answer: c.format}, nil, ex)
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

func TestReadTitleAndPeriods(t *testing.T) {
	for _, c := range []struct {
		name   string
		format playbook.AnswerFormat
		text   string
		want   string
	}{
		// a title after a long notice, on its own line or after a sentence
		{"Document Name", playbook.AnswerText, "Exhibit 10.1\n\nCERTAIN CONFIDENTIAL INFORMATION CONTAINED IN THIS EXHIBIT, MARKED BY BRACKETS, HAS BEEN OMITTED AND FILED SEPARATELY WITH THE COMMISSION.\n\nSERVICES OUTSOURCING AGREEMENT\n\nBetween", "SERVICES OUTSOURCING AGREEMENT"},
		{"Document Name", playbook.AnswerText, "Exhibit 10.18 Certain identified information has been excluded from this exhibit because it is both not material and would be competitively harmful if publicly disclosed. TRAINING PROGRAM DEVELOPMENT AGREEMENT This Training Program Development Agreement is made", "TRAINING PROGRAM DEVELOPMENT AGREEMENT"},
		{"Document Name", playbook.AnswerText, "Notices under this Agreement shall be given in writing to the addresses below, and copies of every notice shall be sent to counsel, pursuant to the Master Services Agreement dated May 1.", ""},
		// a term and a notice in one sentence
		{"Renewal Term", playbook.AnswerDuration, "This Agreement renews automatically unless either party gives the other thirty (30) days' prior written notice of non-renewal, for successive one (1) year periods.", "successive 1 year"},
		{"Notice Period to Terminate Renewal", playbook.AnswerDuration, "This Agreement renews automatically for successive one (1) year periods unless either party gives the other not less than sixty (60) days written notice of non-renewal.", "60 days"},
	} {
		p := &playbook.Provision{Name: c.name, Answer: c.format}
		if a := readAnswer(p, nil, extractsOf(c.text)); a.Text != c.want {
			t.Errorf("%s of %.50q…: %q, want %q", c.name, c.text, a.Text, c.want)
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
		// an individual described by parentage and residence ("s/o.", "r/o."),
		// with a defined-name bracket longer than a company's
		{`This Joint Venture Agreement is made on this the 1st day of May, 2001 BETWEEN Litware Inc., a company incorporated in Delaware (hereinafter referred to as 'LITWARE', which term shall unless repugnant to the context include its successors and permitted assigns), AND Mr. Ravi K. SHARMA, s/o. Mr. A.B. Sharma, r/o. A-15, Ashok Vihar, New Delhi in his individual capacity (hereinafter referred to as 'SHARMA', which terms shall unless repugnant to the subject or context mean and include his heirs, executors, administrators or successors and permitted assigns). WHEREAS Litware makes kits;`,
			[]string{"Litware Inc. (LITWARE)", "Ravi K. SHARMA (SHARMA)"}},
		{`THIS AGREEMENT is made among Alpine Ski House, Inc. ("Alpine"), Coho Winery, LLC ("Coho") and Litware, Inc. ("Litware") (each a "Party" and together the "Parties"). RECITALS`,
			[]string{"Alpine Ski House, Inc. (Alpine)", "Coho Winery, LLC (Coho)", "Litware, Inc. (Litware)"}},
		// "and," before the second party; a description with its own "and"
		{`This Licence Agreement is entered into by and between The Contoso Institute (hereinafter "Institute"), a charity registered in Wales No. 12 and a member of the Consortium, having offices at 4 Elm Road, Leeds and, Northwind Devices, Inc. (hereinafter "Company"), a Utah corporation. The parties agree as follows:`,
			[]string{"The Contoso Institute (Institute)", "Northwind Devices, Inc. (Company)"}},
		// a quote left open; an address straight after the name
		{`This Endorsement Agreement is made between Fabrikam Foods LLC ("Fabrikam"), a Delaware company, and Pat Doe ("Talent), an individual.`,
			[]string{"Fabrikam Foods LLC (Fabrikam)", "Pat Doe (Talent)"}},
		{"CONTENT AGREEMENT\n between\n Tailspin Media, Inc. 600 Main Street, Suite B-2 Austin, Texas 78701\n hereinafter referred to as \"Licensor\"\n and\n LUCERNE MEDIA AG Hauptstr. 25 50676 Cologne Germany hereinafter referred to as: \"Lucerne\"\n1 PURPOSE",
			[]string{"Tailspin Media, Inc. (Licensor)", "LUCERNE MEDIA AG (Lucerne)"}},
		// no "between": a letter's parties and one that retains another
		{`CONSULTING AGREEMENT\nMay 1, 2019\nDear Pat:\nWoodgrove Labs, Inc., a Delaware corporation (the "Company"), is pleased to offer this Consulting Agreement (this "Agreement") to retain Pat Doe ("Consultant") on the following terms: 1. Services. Consultant shall advise the Company as agreed by and between Consultant and Company.`,
			[]string{"Woodgrove Labs, Inc. (Company)", "Pat Doe (Consultant)"}},
		// a second party with no defined name; a label with a role in brackets
		{`This Agreement is effective 7/1/98 ("Effective Date") between Litware Technology, Inc. ("Litware"), and Proseware Corporation 780 Elm Expressway Suite 406 San Jose, CA 95131 Litware and Distributor intend to establish Distributor as a distributor.`,
			[]string{"Litware Technology, Inc. (Litware)", "Proseware Corporation"}},
		{`Transportation Agreement   Party A (Shipper): Wingtip Express Co., Ltd. Address: 1 Road, Shanghai   Party B (Carrier): Alpine Logistics Ltd. Address: 12 Floor, Tower   Party A and Party B enter into this Agreement (this "Agreement").`,
			[]string{"Wingtip Express Co., Ltd. (Party A)", "Alpine Logistics Ltd. (Party B)"}},
		// parties defined before any "between": a "between" in the body
		// introduces no one; a short name in capitals without quotes
		{"JOINT VENTURE AGREEMENT\n\nFabrikam Outdoor Group, Inc. (\"FOG\") and Tailspin Retail, Inc. (\"TRI\") (the \"Parties\") by this Agreement form a joint venture.\n\n" + strings.Repeat("1. Purpose. The joint venture sells lamps and related products in the territory. ", 30) + "6. Income. All income shall be shared among the Parties as follows: 50% to Fabrikam Outdoor Group, Inc. and 50% to Tailspin Retail, Inc.",
			[]string{"Fabrikam Outdoor Group, Inc. (FOG)", "Tailspin Retail, Inc. (TRI)"}},
		{`AGENCY AGREEMENT\n\nNorthwind Mutual Insurance Company of Ohio, an Ohio insurance company (NMICO) and Lucerne, Hill & Grey-Utah, Inc., a Utah corporation, ("Agency") agree as follows: A. Authority. The Agency may act for NMICO in Utah and NMICO shall pay it.`,
			[]string{"Northwind Mutual Insurance Company of Ohio (NMICO)", "Lucerne, Hill & Grey-Utah, Inc. (Agency)"}},
		// a contract that opens with its recitals: the first one alone
		{`ENDORSEMENT AGREEMENT

    WHEREAS, Woodgrove Group, Inc. (the "Company") and the Trustees of the Doe Family Trust (the "Trust") entered into a Split Dollar Agreement; and

    WHEREAS, life insurance is provided to Pat Doe ("Executive") and Sam Doe (together the "Insureds"); and

    WHEREAS, Section 12 of the Securities Reform Act (the "Act") prohibits loans;`,
			[]string{"Woodgrove Group, Inc. (Company)", "Trustees of the Doe Family Trust (Trust)"}},
		// one name holding another's words is still another party when
		// each has its own defined name; a bracket describing the name
		{`This Outsourcing Agreement is made by and among Litware, Inc., a Connecticut corporation ("Litware"), Coho Printing Co., Ltd., a Japanese corporation ("Coho"), and Litware Coho Photomask Corporation, a company limited by shares ("LCPC"). The parties agree:`,
			[]string{"Litware, Inc. (Litware)", "Coho Printing Co., Ltd. (Coho)", "Litware Coho Photomask Corporation (LCPC)"}},
		{`This Co-Branding Agreement is made by and between Contoso SA, a societe anonyme ("Contoso"), and Proseware Inc. (formerly known as Adatum Technology Inc.), a Delaware corporation ("Proseware").`,
			[]string{"Contoso SA (Contoso)", "Proseware Inc. (Proseware)"}},
		// an unquoted short name of several words after "hereinafter
		// referred to as" is the whole bracket, however it is spaced, not
		// its last word
		{`This  agreement is made and entered into (hereinafter  referred  to  as  "Effective  Date")  by  and  between  Tailspin  Bakeries,  Inc.,  a Pennsylvania   corporation   with  its  principal  place  of  business  at  4 Elm Road,  Dover trading and doing business  as  Tailspin  Bakeries  (hereinafter  referred  to  as  Tailspin  Bakeries)  and Franchisee (as defined below) who hereby agrees to the following:`,
			[]string{"Tailspin  Bakeries,  Inc. (Tailspin  Bakeries)"}},
		{`This Agreement is made by and between Wingtip Toys Ltd. (hereinafter called Wingtip Toys) and Fourth Coffee LLC (hereinafter referred to as the Distributor). 1. Terms.`,
			[]string{"Wingtip Toys Ltd. (Wingtip Toys)", "Fourth Coffee LLC (Distributor)"}},
		// a long bracket is the short name whole, not its last words
		{`This Agreement is made by and between Wingtip Toys Ltd. (hereinafter called Wingtip Toys Northern Europe Sales Office) and Fourth Coffee LLC ("Fourth Coffee"). 1. Terms.`,
			[]string{"Wingtip Toys Ltd. (Wingtip Toys Northern Europe Sales Office)", "Fourth Coffee LLC (Fourth Coffee)"}},
		{`This Agreement is made by and between Wingtip Toys Ltd. (hereinafter called Wingtip Toys Northern Europe Sales And Marketing Office Group) and Fourth Coffee LLC ("Fourth Coffee"). 1. Terms.`,
			[]string{"Wingtip Toys Ltd. (Wingtip Toys Northern Europe Sales And Marketing Office Group)", "Fourth Coffee LLC (Fourth Coffee)"}},
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

// A right defined as needing no cause is not granted by a clause that
// allows the act only on stated causes, when another clause excludes it.
func TestStatedCausesNotConvenience(t *testing.T) {
	p := &playbook.Provision{Name: "Termination For Convenience", Answer: playbook.AnswerYesNo,
		Definition: "A party may terminate the agreement without cause, by giving notice.",
		Keywords:   []playbook.Keyword{{Text: "terminate for convenience"}, {Text: "without cause"}, {Text: "upon notice"}, {Text: "terminate this agreement"}}}
	for _, c := range []struct {
		texts []string
		want  Kind
	}{
		{[]string{"Section 12.1 No Termination for Convenience. Neither Party may terminate this Agreement for convenience during the Initial Term.",
			"Section 12.3 Termination by Supplier. Supplier may terminate this Agreement by written notice to Distributor:"}, KindNo},
		{[]string{"Neither Party may terminate this Agreement for convenience.",
			"The Supplier may terminate this Agreement upon written notice if the Distributor fails to meet the Minimum Purchase."}, KindNo},
		// a grant that needs no cause stands
		{[]string{"Either party may terminate this Agreement without cause upon ninety (90) days' written notice to the other party."}, KindYes},
		{[]string{"Neither party may terminate this Agreement for convenience during the first year.",
			"After the first year, either party may terminate this Agreement for any reason upon sixty (60) days' notice to the other party, if it gives that notice in writing."}, KindConditional},
	} {
		a := polarityAnswer(p, nil, extractsOf(c.texts...), nil)
		if a.Kind != c.want {
			t.Errorf("%.60q…: %s, want %s", c.texts[len(c.texts)-1], a.Kind, c.want)
		}
	}
}

// A state denied ("is not exclusive") frees from a restriction, and
// "without any warranty" excludes a right; a passive or a capability
// denied ("shall not be assigned", "is not assignable") is the
// restriction itself, and "without cause" is how a right may be written.
func TestDeniedStatesAndWithout(t *testing.T) {
	restriction := &playbook.Provision{Name: "Exclusivity", Answer: playbook.AnswerYesNo, Polarity: playbook.PolarityRestriction,
		Keywords: []playbook.Keyword{{Text: "exclusive", Boost: 3}, {Text: "exclusively", Boost: 2}}}
	assign := &playbook.Provision{Name: "Anti-Assignment", Answer: playbook.AnswerYesNo, Polarity: playbook.PolarityRestriction,
		Keywords: []playbook.Keyword{{Text: "assign", Boost: 3}, {Text: "assignable", Boost: 2}}}
	warranty := &playbook.Provision{Name: "Warranty", Answer: playbook.AnswerYesNo, Polarity: playbook.PolarityRight,
		Keywords: []playbook.Keyword{{Text: "warranty", Boost: 3}, {Text: "warrants", Boost: 3}}}
	confidential := &playbook.Provision{Name: "Confidentiality", Answer: playbook.AnswerYesNo, Polarity: playbook.PolarityRestriction,
		Keywords: []playbook.Keyword{{Text: "confidential", Boost: 3}, {Text: "confidence", Boost: 2}, {Text: "disclose", Boost: 2}}}
	tfc := &playbook.Provision{Name: "Termination for Convenience", Answer: playbook.AnswerYesNo, Polarity: playbook.PolarityRight,
		Keywords: []playbook.Keyword{{Text: "without cause", Boost: 3}, {Text: "terminate", Boost: 2}}}
	capP := &playbook.Provision{Name: "Cap on Liability", Answer: playbook.AnswerYesNo, Polarity: playbook.PolarityRestriction,
		Keywords: []playbook.Keyword{{Text: "total liability", Boost: 3}, {Text: "liability", Boost: 2}, {Text: "exceed", Boost: 2}}}
	for _, c := range []struct {
		p    *playbook.Provision
		text string
		want Kind
	}{
		{restriction, "This appointment is not exclusive, and the Supplier may appoint other distributors.", KindNo},
		{restriction, "The Distributor shall sell the Products exclusively in the Territory.", KindYes},
		{assign, "This Agreement shall not be assigned by either party.", KindYes},
		{assign, "This Agreement is not assignable by the Licensee.", KindYes},
		{warranty, "The goods are sold as is and without any warranty of fitness.", KindNo},
		{warranty, "The Supplier warrants that the goods will conform to the Specifications.", KindYes},
		{tfc, "Either party may terminate this Agreement without cause on thirty days' notice.", KindYes},
		// the contract giving nothing, and a duty nobody owes
		{restriction, "Nothing contained in this Agreement confers on the Reseller any exclusive right to a market.", KindNo},
		{restriction, "The Licensor shall not grant any other person a licence in the Territory, the Licensee being its exclusive licensee.", KindYes},
		{confidential, "Neither party owes the other any obligation of confidence in respect of the pricing.", KindNo},
		{confidential, "Each party shall keep the other's Confidential Information confidential and shall not disclose it.", KindYes},
		// a limit denied before "subject to": no cap
		{capP, "Neither Party's liability under this Agreement is subject to any financial limit, except that neither Party is liable for any loss of profit.", KindNo},
		{capP, "The Supplier's total liability shall not exceed the fees paid in the twelve months before the claim.", KindYes},
		// a right limited to the renewal terms
		{tfc, "Provider may not terminate this Agreement without cause during the Initial Term. During any Renewal Term, Provider may terminate this Agreement without cause on ninety days' notice.", KindConditional},
	} {
		if a := polarityAnswer(c.p, nil, extractsOf(c.text), nil); a.Kind != c.want {
			t.Errorf("%s: %q: %s, want %s", c.p.Name, c.text, a.Kind, c.want)
		}
	}
}

// The title is read from the contract's opening: a line that is a title and
// nothing else over a running line that names the deal, a title over a
// reference number, and "AGREEMENT AGREEMENT SUMMARY" is not one title.
func TestTitleFromOpening(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"CONTOSO MEDIA Agreement with FABRIKAM FILM CORPORATION\n\nCONFIDENTIAL\n\nCONTENT LICENSE AGREEMENT\n\nThis Content License Agreement is made by and between Contoso Media (\"Licensor\") and Fabrikam Film Corporation (\"Licensee\").\n\n1. Grant. Licensor grants Licensee a licence to the content.", "CONTENT LICENSE AGREEMENT"},
		{"-1-   NORTHWIND CONTRACT No. 076C/01\n\nLICENCE AND MAINTENANCE AGREEMENT\n\nentered into by and between Adatum (Pty) Limited and Northwind Limited.\n\n1. Licence. Adatum grants a licence.", "LICENCE AND MAINTENANCE AGREEMENT"},
		{"Exhibit 10.75\n\nSPONSORSHIP AGREEMENT AGREEMENT SUMMARY\n\nSponsor: Tailspin Toys LLC. Term: two seasons.\n\n1. Sponsorship. Sponsor shall sponsor the team.", "SPONSORSHIP AGREEMENT"},
		{"Exhibit 10.3\n\nGLOBAL MAINTENANCE AGREEMENT Contract No. DS/CS-39/14 issue 7\n\nBetween\n\nLITWARE S/A (as Company)\n\nand\n\nPROSEWARE G.I.E. (as Repairer)\n\nCONTENTS   Clause   Page  1.   SUBJECT-MATTER OF THE AGREEMENT     6  2.   DEFINITIONS     6\n\n1. SUBJECT-MATTER. The Repairer shall maintain the aircraft.", "GLOBAL MAINTENANCE AGREEMENT"},
		{"Contract No.: LTW S DG 2018121300 Exhibit 10.5 Collaboration Agreement This Collaboration Agreement (this \"Agreement\") is made by and between the following parties.\n\n1. Collaboration. The parties shall collaborate.", "Collaboration Agreement"},
		{"EXHIBIT 99.2 Page 1 of 3 DISTRIBUTOR AGREEMENT Agreement made this 19th day of March, 2020 Between: Litware, Inc. (\"Principal\") And Proseware, Inc. (\"Distributor\").\n\n1. Appointment. Principal appoints Distributor.", "DISTRIBUTOR AGREEMENT"},
	} {
		d := &document.Document{ID: "x", Name: "x", Format: "text", Text: c.text}
		p := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
		scores := make([]float64, len(p.Passages()))
		ex, a := titleAnswer(p, []detect.Extract{p.Extract(0, 1)}, scores)
		if a == nil || a.Text != c.want {
			t.Errorf("%.40q…: title %+v, want %q", c.text, a, c.want)
			continue
		}
		if got := spanText(t, ex, a.Spans[0]); strings.Join(strings.Fields(got), " ") != c.want {
			t.Errorf("%.40q…: span %q", c.text, got)
		}
	}
}

// A provision that asks for the title reads the opening whatever passage
// scored first (a schedule at the end here); a text provision that asks for
// something else is not answered with the title though its best passage (a
// clause) is in the opening.
func TestTitleOnlyForTitleProvision(t *testing.T) {
	text := "Exhibit 10.3\n\nSUPPLY AGREEMENT\n\nThis Supply Agreement is made by and between Litware, Inc. (\"Litware\") and Proseware, Inc. (\"Proseware\").\n\n1. Supply. Litware shall supply the products.\n\n2. Term. This Agreement runs for two years.\n\n" +
		strings.Repeat("3. Delivery. Litware shall deliver the products to the place Proseware names in its order, and Proseware shall inspect them within ten days.\n\n", 40) +
		"EXHIBIT A\n\nLONG LEAD TIME MATERIALS\n\nPart Name Material Lead-Time"
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
	p := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	first, clause, last := -1, -1, -1
	for i, ps := range p.Passages() {
		s := p.Index().Slice(ps.Span)
		if first < 0 && strings.Contains(s, "SUPPLY AGREEMENT") {
			first = i
		}
		if strings.Contains(s, "shall supply") {
			clause = i
		}
		if strings.Contains(s, "LONG LEAD TIME") {
			last = i
		}
	}
	if first < 0 || clause < 0 || last < 0 || p.Passages()[last].Span.Start < titleOpening {
		t.Fatal("passages not found, or the schedule within the opening")
	}
	scores := make([]float64, len(p.Passages()))
	title := &playbook.Provision{Name: "Document Name", Answer: playbook.AnswerText,
		Definition: "The title the contract gives itself, usually in capitals at the top of the first page."}
	a, _ := Read(p, title, []detect.Extract{p.Extract(last, 0.99), p.Extract(first, 0.98)}, scores, true)
	if a.Text != "SUPPLY AGREEMENT" {
		t.Errorf("title provision, schedule first: %q, want SUPPLY AGREEMENT", a.Text)
	}
	other := &playbook.Provision{Name: "Supply Terms", Answer: playbook.AnswerText,
		Definition: "What the supplier must deliver and when."}
	if a, _ := Read(p, other, []detect.Extract{p.Extract(clause, 0.99)}, scores, true); a.Text == "SUPPLY AGREEMENT" {
		t.Errorf("a provision that does not ask for the title is answered with it: %+v", a)
	}
}

// A term clause that defers to a definition: the end date is read from the
// definition, whose passage is shown first.
func TestEndDateFromDefinedTerm(t *testing.T) {
	text := "1. Definitions.\n\n(a) \"Contract Period\" shall mean that period of time from March 1, 2021 through June 30, 2022.\n\n2. Term. The Term of this Agreement shall be for the Contract Period unless it is terminated or extended as set forth in this Agreement.\n\n3. Fees. The Company shall pay the fees."
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
	p := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	k := -1
	for i, ps := range p.Passages() {
		if strings.Contains(p.Index().Slice(ps.Span), "shall be for the Contract Period") {
			k = i
		}
	}
	if k < 0 {
		t.Fatal("no term passage")
	}
	pr := &playbook.Provision{Name: "Expiration Date", Answer: playbook.AnswerEndDate}
	ex, a := definedEndAnswer(p, pr, []detect.Extract{p.Extract(k, 1)}, make([]float64, len(p.Passages())))
	if a == nil || a.Text != "2022-06-30" {
		t.Fatalf("answer %+v, want 2022-06-30", a)
	}
	if len(a.Spans) != 1 || spanText(t, ex, a.Spans[0]) != "June 30, 2022" {
		t.Errorf("spans %+v", a.Spans)
	}
}

// prepareForTest prepares d as the answer readers see it.
func prepareForTest(t *testing.T, d detect.Doc) *detect.Prepared {
	t.Helper()
	p, err := detect.Prepare(d)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPreamblePartiesContentsFirst reads the parties of a CUAD franchise
// agreement that opens with 14 KB of contents and defines its franchisor
// "(hereinafter referred to as Pretzel Time)", spaced twice: the short name
// is the bracket whole (skipped without ../shared/data).
func TestPreamblePartiesContentsFirst(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad", "MRSFIELDSORIGINALCOOKIESINC_01_29_1998-EX-10-FRANCHISE AGREEMENT.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skip("../shared/data not present")
	}
	text := string(b[:min(len(b), partyChars)])
	var got []string
	for _, p := range preambleParties(text) {
		got = append(got, strings.Join(strings.Fields(p.name), " ")+" ("+strings.Join(strings.Fields(p.role), " ")+")")
	}
	if len(got) == 0 || got[0] != "Pretzel Time, Inc. (Pretzel Time)" {
		t.Errorf("parties %q, want Pretzel Time, Inc. (Pretzel Time) first", got)
	}
}

// The end a contract's opening gives itself wins over an exhibit's term
// clause (a development set written for this rule: invented contracts).
func TestOpeningEndOverExhibit(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"RESALE AGREEMENT\n\nThis Agreement is effective as of March 1, 2011, (the \"Effective Date\") and shall terminate on February 28, 2014, (the \"Termination Date\") unless earlier terminated as provided below.\n\n1. Appointment. Supplier appoints Reseller as a non-exclusive reseller of the Products.\n\n2. Fees. Reseller shall pay the fees in Exhibit B.\n\nEXHIBIT B\n\nSERVICE TERMS\n\nThese service terms shall remain in force until terminated by either party on thirty days' notice.\n", "2014-02-28"},
		{"SUPPLY AGREEMENT\n\nThis Supply Agreement is made as of June 1, 2018 and remains in effect through May 31, 2021 (the \"Expiration Date\").\n\n1. Supply. Seller shall supply the Goods.\n\nATTACHMENT 1\n\nThe licence in this Attachment continues until terminated.\n", "2021-05-31"},
		// no end in the opening: the term clause answers
		{"SERVICES AGREEMENT\n\nThis Agreement is made as of June 1, 2018 between Alpha Ltd and Beta Ltd.\n\n1. Term. This Agreement continues until terminated by either party on ninety days' notice.\n", "perpetual"},
	} {
		d := &document.Document{ID: "x", Name: "x", Format: "text", Text: c.text}
		p := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
		k := -1
		for i, ps := range p.Passages() {
			if strings.Contains(p.Index().Slice(ps.Span), "until terminated") {
				k = i
			}
		}
		if k < 0 {
			t.Fatal("no term passage")
		}
		pr := &playbook.Provision{Name: "Expiration Date", Answer: playbook.AnswerEndDate}
		a, ex := Read(p, pr, []detect.Extract{p.Extract(k, 1)}, make([]float64, len(p.Passages())), true)
		if a.Text != c.want {
			t.Errorf("%.40q…: answer %q, want %q", c.text, a.Text, c.want)
			continue
		}
		if c.want != "perpetual" && (len(a.Spans) != 1 || a.Spans[0].Extract != 0 || !strings.Contains(spanText(t, ex, a.Spans[0]), c.want[:4])) {
			t.Errorf("%.40q…: spans %+v", c.text, a.Spans)
		}
	}
}

// A term that ends "on the earlier of the following:" ends where its list
// items say (a development set written for this rule: invented contracts).
func TestEndDateInListItems(t *testing.T) {
	text := "COOPERATION AGREEMENT\n\nThis Agreement is made on 4 May 2018 between Alpha Ltd and Beta Ltd.\n\n5. Term\n\n5.1 This Agreement shall remain in effect until the earlier of the following events:\n\n(a) the third anniversary of this Agreement; and\n\n(b) Alpha ceasing to hold any shares in Beta.\n\n5.2 Clause 6 survives termination.\n\n6. Confidentiality. Each party keeps the other's information confidential.\n"
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
	p := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	k := -1
	for i, ps := range p.Passages() {
		if strings.HasSuffix(strings.TrimSpace(p.Index().Slice(ps.Span)), "following events:") {
			k = i
		}
	}
	if k < 0 {
		t.Fatal("no term passage")
	}
	pr := &playbook.Provision{Name: "Expiration Date", Answer: playbook.AnswerEndDate}
	a, ex := Read(p, pr, []detect.Extract{p.Extract(k, 1)}, make([]float64, len(p.Passages())), true)
	if a.Text != "2021-05-04" {
		t.Fatalf("answer %q, want 2021-05-04", a.Text)
	}
	if len(a.Spans) == 0 || !strings.Contains(spanText(t, ex, a.Spans[len(a.Spans)-1]), "third") {
		t.Errorf("spans %+v", a.Spans)
	}
}
