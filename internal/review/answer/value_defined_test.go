package answer

import (
	"context"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/parse"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/playbook"
)

// A date provision the contract defines by its own date is read as that
// date, even where no passage was found for it; one defined otherwise, or
// not defined, is not.
func TestDefinedAsOwnDate(t *testing.T) {
	opening := "STRATEGIC ALLIANCE AGREEMENT\n\nTHIS STRATEGIC ALLIANCE AGREEMENT (this \"Agreement\") is made as of 31 December, 1996, between NORTHWIND LIMITED, a Canadian corporation (\"NWL\"), and CONTOSO INC., a Maryland corporation (\"CTI\").\n\n" +
		"ARTICLE I DEFINITIONS\n\n\"Agreement\" has the meaning specified in the preamble hereof.\n\n"
	body := "\n\nSection 10.01 Term. This Agreement shall terminate on the third anniversary of the Effective Date.\n\nSection 10.02 Notices. Notices shall be in writing."
	ef := &playbook.Provision{Name: "Effective Date", Answer: playbook.AnswerDate}
	// a filing's text: wide gaps and the underlines of a layout, which
	// cut the preamble's passage inside its date
	split := "Exhibit 10.5\n\n                         STRATEGIC ALLIANCE AGREEMENT\n\n" +
		"THIS  STRATEGIC ALLIANCE AGREEMENT (this \"Agreement\") is made as of 31 December,                                           ---------                              " +
		"1996, between NORTHWIND LIMITED, a Canadian corporation (\"NWL\"), and CONTOSO INC., a Maryland corporation (\"CTI\").\n\n" +
		strings.Repeat("WHEREAS, NWL and CTI desire to cooperate regarding contracting, patent cross-licensing and the exchange of information, all on the terms and subject to the conditions set forth herein;\n\n", 10) +
		"NOW THEREFORE, NWL and CTI agree as follows:\n\nARTICLE I DEFINITIONS\n\n"
	for _, c := range []struct {
		name, def, want string
		split           bool
	}{
		{"a date the underline splits", "\"Effective Date\" means the close of business on the date specified in the preamble hereof.", "1996-12-31", true},
		{"the date in the preamble, an underline inside it", "\"Effective Date\" means the close of business on the date specified in the  --------------   preamble hereof.", "1996-12-31", false},
		{"the date first written above", "\"Effective Date\" shall mean the date first written above.", "1996-12-31", false},
		{"a date of its own", "\"Effective Date\" means the date on which the first Product is shipped.", "", false},
		{"another term defined by the preamble's date", "\"Closing Date\" means the date specified in the preamble hereof.", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := opening + c.def + body
			if c.split {
				text = split + c.def + body
			}
			// read as the text parser reads a filing's text file, which
			// keeps its wide gaps
			d, err := parse.Bytes(context.Background(), "x.txt", []byte(text), parse.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
			if c.split {
				for _, ps := range p.Passages() {
					if s := p.Index().Slice(ps.Span); strings.Contains(s, "is made as of") && strings.Contains(s, "between") {
						t.Fatalf("the passage %q is not cut inside the date: the case tests nothing", s)
					}
				}
			}
			scores := make([]float64, len(p.Passages()))
			a, ex := Read(p, ef, []detect.Extract{p.Extract(0, 0)}, scores, false)
			if a.Text != c.want && !(c.want == "" && a.Kind == KindNotFound) {
				t.Fatalf("answer %q (%s), want %q", a.Text, a.Kind, c.want)
			}
			if c.want == "" {
				return
			}
			if !c.split && (len(a.Spans) != 1 || spanText(t, ex, a.Spans[0]) != "31 December, 1996") {
				t.Errorf("spans %+v", a.Spans)
			}
			def := false
			for _, e := range ex {
				def = def || strings.Contains(e.Text, "\"Effective Date\"")
			}
			if !def {
				t.Errorf("the definition is not among the extracts %+v", ex)
			}
		})
	}
}

// A body named in the description of a party — the insurer of its
// deposits — is no party; a party named after the agreement's own making
// ("made … by") is one; a role set before a name is no part of it.
func TestPreamblePartiesNotInDescriptions(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{`Ladies and Gentlemen: Mesa Verde Financial Corporation, a federal corporation (the "Company"), and Mesa Verde Bank, a federal savings bank (the "Bank"), the deposit accounts of which are insured by the National Deposit Insurance Corporation ("NDIC"), hereby confirm their agreement with Lowe, Pratt & Stone, Inc. (the "Agent") as follows: Section 1.`,
			[]string{"Mesa Verde Financial Corporation (Company)", "Mesa Verde Bank (Bank)", "Lowe, Pratt & Stone, Inc. (Agent)"}},
		{`Ladies and Gentlemen: Mesa Verde Bank (the "Bank") with its deposit accounts insured by the Deposit Guarantee Fund ("DGF") administered by the National Deposit Insurance Corporation ("NDIC"), hereby confirms its agreement with Harbor Lane Advisors & Company (the "Agent"), as follows: Section 1.`,
			[]string{"Mesa Verde Bank (Bank)", "Harbor Lane Advisors & Company (Agent)"}},
		{`This Hosting Agreement is entered into by Fabrikam Hosting Corporation ("Fabrikam") and Lucerne Corporation ("Customer") for the processing of messages received by Customer from users of Customer's Web site ("Users").`,
			[]string{"Fabrikam Hosting Corporation (Fabrikam)", "Lucerne Corporation (Customer)"}},
		// a role set before the name after a possessive is no part of it;
		// a name whose own words hold a comma keeps them
		{`This Reseller Agreement is entered into by and between Fabrikam Incentive Services, L.L.C., a Missouri limited liability company ("FIS"), and its Reseller, Lucerne Kids, Inc., a Delaware corporation ("Lucerne").`,
			[]string{"Fabrikam Incentive Services, L.L.C. (FIS)", "Lucerne Kids, Inc. (Lucerne)"}},
		{`This Agency Agreement is entered into by and between Mesa Verde Bank ("Bank"), and its agent Lowe, Pratt & Stone, Inc. ("Agent").`,
			[]string{"Mesa Verde Bank (Bank)", "Lowe, Pratt & Stone, Inc. (Agent)"}},
	} {
		var got []string
		for _, p := range preambleParties(c.text) {
			got = append(got, p.name+" ("+p.role+")")
		}
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
			t.Errorf("parties of %.60q…:\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}
