package answer

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
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
	for _, c := range []struct {
		name, def, want string
	}{
		{"the date in the preamble, an underline inside it", "\"Effective Date\" means the close of business on the date specified in the  --------------   preamble hereof.", "1996-12-31"},
		{"the date first written above", "\"Effective Date\" shall mean the date first written above.", "1996-12-31"},
		{"a date of its own", "\"Effective Date\" means the date on which the first Product is shipped.", ""},
		{"another term defined by the preamble's date", "\"Closing Date\" means the date specified in the preamble hereof.", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := opening + c.def + body
			d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
			p := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
			scores := make([]float64, len(p.Passages()))
			a, ex := Read(p, ef, []detect.Extract{p.Extract(0, 0)}, scores, false)
			if a.Text != c.want && !(c.want == "" && a.Kind == KindNotFound) {
				t.Fatalf("answer %q (%s), want %q", a.Text, a.Kind, c.want)
			}
			if c.want == "" {
				return
			}
			if len(a.Spans) != 1 || spanText(t, ex, a.Spans[0]) != "31 December, 1996" {
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
// ("made … by") is one.
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
