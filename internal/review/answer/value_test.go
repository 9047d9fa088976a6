package answer

import (
	"testing"

	"github.com/pakton/pakton/internal/review/playbook"
)

func TestEndDate(t *testing.T) {
	for _, c := range []struct {
		text, start, want string
	}{
		{"The initial term begins on the Effective Date and expires on December 31, 2024 unless terminated earlier.", "2019-03-01", "2024-12-31"},
		{"This Agreement commences on March 1, 2019 and continues until February 28, 2022.", "", "2022-02-28"},
		{"This Agreement shall remain in effect for a period of five (5) years from the Effective Date.", "2019-03-01", "2024-03-01"},
		{"The term is two (2) years from June 15, 2020.", "2019-01-01", "2022-06-15"},
		{"The licence is granted in perpetuity.", "2019-01-01", "perpetual"},
		{"The term runs for eighteen (18) months.", "2020-01-31", "2021-07-31"},
		{"The term runs for ninety (90) days.", "2020-01-01", "2020-03-31"},
		{"This Agreement continues until terminated under Section 12.", "2020-01-01", "perpetual"},
		{"The term is five (5) years.", "", ""},
		{"The period is thirty (30) business days.", "2020-01-01", ""},
		// a qualified unit is still the term's period (the example
		// distribution agreement's §11.1)
		{"This Agreement begins on the Effective Date and, unless terminated earlier under Section 12, continues for five (5) Contract Years (the \"Initial Term\").", "2025-07-01", "2030-07-01"},
		{"The lease runs for ten (10) Lease Years from the Commencement Date.", "2021-02-01", "2031-02-01"},
		// a number inside a date is not a period (it panicked: the date
		// began inside the period the wider pattern read)
		{"Made this 1 st day of October 2008, for a term of three (3) years.", "", "2011-10-01"},
		{"Effective the 2 nd day of May, 2019; the term is twenty-four months.", "", "2021-05-02"},
		// anniversaries
		{"This Agreement will commence on the Effective Date, and will terminate on the third anniversary of the Effective Date (the \"Term\").", "1998-09-21", "2001-09-21"},
		{"INITIAL TERM shall mean the Effective Date through the day prior to the second anniversary of the Effective Date.", "1999-11-20", "2001-11-19"},
		{"The term shall commence on December 1, 2001. The term of this Agreement shall end on the seventh anniversary of the date hereof.", "2001-11-28", "2008-11-28"},
		{"this Agreement shall remain in effect until the earlier of the below events occur: (a) The fifth (5t h) anniversary of this Agreement; and (b) …", "2015-06-02", "2020-06-02"},
		{"Price increases take effect on the first anniversary of the Effective Date.", "2020-01-01", ""},
		{"This agreement shall begin upon the date of its execution and shall remain in effect until the end of the current calendar year and shall be automatically renewed for successive one (1) year periods.", "2014-05-08", "2014-12-31"},
		// a period from one date to another; a stop for a comma
		{"the end of the two year period from the Effective Date to 31 July 2013", "2011-08-01", "2013-07-31"},
		{"This Agreement shall be in effect until March 18. 2021, unless sooner terminated", "2020-03-19", "2021-03-18"},
		// a term with no fixed end, and a notice period that does not measure it
		{"This Agreement shall expire if the Investment Advisor ceases to serve as investment adviser; it is terminable by either party upon sixty (60) days' written notice.", "2020-01-01", "perpetual"},
		{"This Agreement shall continue in full force and effect for so long as Photronics and DNP each remains a Shareholder of the Company.", "2017-01-01", "perpetual"},
		// a deadline is not a term: "within" a period, "such" a period named before
		{"This Agreement will commence on the Effective Date and will continue until termination as provided below. Upon termination the Company shall pay, within thirty (30) days, the fees earned.", "2018-07-20", "perpetual"},
		{"The term of this Agreement shall begin on the date hereof and shall continue until terminated by either party. Either party may terminate on fifteen (15) days' notice of a breach that remains uncured at the end of such fifteen (15) day period.", "2018-09-24", "perpetual"},
		// a period counted from an event, not a date, gives no end date
		// (a development set written for this rule)
		{"This Agreement shall run until the Supply Agreement ends; if a Buyer Election is made, this Agreement shall terminate twelve (12) months after such Buyer Election.", "2016-04-01", "perpetual"},
		{"The Agreement shall continue for two (2) years from its execution. The Agent's right to a commission on a sale shall expire three years after the day the Agent introduced the buyer.", "2016-04-01", "2018-04-01"},
		{"This Agreement ends ninety (90) days after the completion of the Project.", "2016-04-01", ""},
		{"The term is three (3) years following the Effective Date.", "2016-04-01", "2019-04-01"},
	} {
		got, _ := endDate(c.text, c.start)
		if got != c.want {
			t.Errorf("endDate(%q, %q) = %q, want %q", c.text, c.start, got, c.want)
		}
	}
}

func TestFirstDateAndDuration(t *testing.T) {
	for text, want := range map[string]string{
		"dated as of March 1, 2019":           "2019-03-01",
		"made this 1st day of March, 2019":    "2019-03-01",
		"effective 03/01/2019":                "2019-03-01",
		"on 31 February 2019 or 1 March 2019": "2019-03-01",
		"no date here":                        "",
		"effective 7/1/98 (the":               "1998-07-01",
		"Date: 1/27/20":                       "2020-01-27",
		"as of 12-23-2019 , 2019":             "2019-12-23",
		"18/9/2008":                           "2008-09-18",
		"the 1st of March, 2003":              "2003-03-01",
		"Tel: (408) 567-3000":                 "",
	} {
		if got, _ := FirstDate(text); got != want {
			t.Errorf("FirstDate(%q) = %q, want %q", text, got, want)
		}
	}
	for text, want := range map[string]string{
		"for five (5) years":                "5 years",
		"thirty (30) calendar days' notice": "30 calendar days",
		"one month":                         "1 month",
		"no period":                         "",
		"five (5) Contract Years":           "5 years",
		"two (2) additional one-year terms": "1 year",
		"one hundred and twenty (120) days": "120 days",
		"one hundred twenty days":           "120 days",
		"forty-five (45) days":              "45 days",
		"seventeen months":                  "17 months",
		"twenty four months":                "24 months",
		"ten Business Days":                 "10 business days",
		"three per year":                    "",
		"USD 5 per year":                    "",
		"the 2020 fiscal year":              "",
		"the initial five years":            "5 years",
		"an onerous year":                   "",
		"the 1 st day of May 2020":          "",
	} {
		if got, _ := FirstDuration(text); got != want {
			t.Errorf("FirstDuration(%q) = %q, want %q", text, got, want)
		}
	}
	if got := Jurisdiction("governed by the laws of the State of New York, without regard to Delaware law"); got != "New York" {
		t.Errorf("Jurisdiction = %q, want New York", got)
	}
	if got := Jurisdiction("THIS AGREEMENT SHALL BE GOVERNED BY THE LAWS OF THE STATE OF NEW YORK APPLICABLE TO CONTRACTS"); got != "New York" {
		t.Errorf("Jurisdiction in capitals = %q, want New York", got)
	}
	for text, want := range map[string]string{
		"shall be governed by the laws of the United States of America and of the State of Texas.":                                             "Texas",
		"governed by the laws of the United States and, to the extent not inconsistent therewith, by the laws of the Commonwealth of Kentucky": "United States",
		"This Agreement is governed by English law and the parties submit to the English courts.":                                              "England",
		"governed by the laws of the United States of America. The courts at New York City shall have jurisdiction.":                           "United States",
	} {
		if got := Jurisdiction(text); got != want {
			t.Errorf("Jurisdiction(%q) = %q, want %q", text, got, want)
		}
	}
}

// Dates whose ordinal a PDF's text split, or whose space it lost.
func TestDatesFromPDFText(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"Agreement made this 19t h day of March, 2020 Between:", "2020-03-19"},
		{"is made this 1s t day of October 2008, (the", "2008-10-01"},
		{"is made and effective as of1 August 2019, by and between", "2019-08-01"},
		{"effective March 2n d, 2015", "2015-03-02"},
		{"on 3 May 2016", "2016-05-03"},
	} {
		if got, ok := FirstDate(c.text); !ok || got != c.want {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
		}
	}
	all := allDatesAt("as of1 August 2019")
	if len(all) != 1 || "as of1 August 2019"[all[0].at:all[0].end] != "1 August 2019" {
		t.Errorf("span %+v", all)
	}
}

// A contract's own date, not the dates of the documents it refers to.
func TestPickDateOwner(t *testing.T) {
	agreementDate := &playbook.Provision{Name: "Agreement Date", Answer: playbook.AnswerDate,
		Keywords: []playbook.Keyword{{Text: "dated as of", Boost: 2.5}, {Text: "dated", Boost: 1}}}
	for _, c := range []struct{ text, want string }{
		{`This Development Agreement (the "Agreement") dated as of March 20, 2020 is entered into by and between A and B. WHEREAS, WPD is party to a sublicense agreement dated February 19, 2019 with C.`, "2020-03-20"},
		{`AMENDMENT TO SERVICES AGREEMENT, dated and effective as of March 30, 2009 (this "Amendment"). The parties have entered into that certain Services Agreement dated as of January 1, 2004.`, "2009-03-30"},
		{`WHEREAS, the Company and the Trust entered into an Agreement dated as of December 5, 1995. IN WITNESS WHEREOF, the parties hereto have executed this Agreement as of this 4th day of April, 2003.`, "2003-04-04"},
		{`This Agreement is entered into effective as of December 16, 2004. Date December 17, 2004`, "2004-12-16"},
		{`The Joint Venture shall commence on the 1st of March, 2003, and shall be effective until February 28, 2004.`, "2003-03-01"},
		// made on one date, effective from another: the agreement's date is the one it is made
		{`This Maintenance and Support Agreement (this "Agreement") is entered on this 9th day of October, 2001 and is deemed effective as of October 1, 2001 (the "Effective Date"), by and between A and B.`, "2001-10-09"},
		{`This License Agreement (this "Agreement") is entered into effective as of December 16, 2004, (the "Effective Date") by and between A and B.`, "2004-12-16"},
	} {
		ex := extractsOf(c.text)
		if got := readAnswer(agreementDate, nil, ex).Text; got != c.want {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
		}
	}
}

// A start date the contract defines elsewhere.
func TestEndDateFromDefinedDate(t *testing.T) {
	doc := `"Commencement Date" means 16 October 2005.` + "\n\n" + `15. Duration. This Agreement shall commence on the Commencement Date and shall continue for an initial period of five years.` + "\n\n" + `"Term" shall mean the period commencing on the Effective Date and terminating on the eighth anniversary of the Commencement Date.`
	if got := definedDates("DISTRIBUTOR AGREEMENT\n\nAgreement Number: N115          Effective Date: March 1, 1996          Term: 1 Year\n\nThis Agreement will be in effect for one year from the Effective Date.")["effective date"]; got != "1996-03-01" {
		t.Errorf("a labelled date line: %q", got)
	}
	defined := definedDates(doc)
	if defined["commencement date"] != "2005-10-16" {
		t.Fatalf("defined dates %v", defined)
	}
	for _, c := range []struct{ clause, want string }{
		{"This Agreement shall commence on the Commencement Date and shall continue for an initial period of five years.", "2010-10-16"},
		{`"Term" shall mean the period commencing on the Effective Date and terminating on the eighth anniversary of the Commencement Date.`, "2013-10-16"},
	} {
		if got, _, _ := endDateAt(c.clause, "2005-10-13", nil, defined); got != c.want {
			t.Errorf("%q: %q, want %q", c.clause, got, c.want)
		}
	}
}

// TestRenewalAndNoticePeriods checks that a renewal term is the period a
// clause renews for, not its initial term's, and that a notice period is
// not read from a clause that writes none.
func TestRenewalAndNoticePeriods(t *testing.T) {
	renewal := builtinProvision(t, "Renewal Term")
	notice := builtinProvision(t, "Notice Period to Terminate Renewal")
	for _, c := range []struct {
		p          *playbook.Provision
		text, want string
	}{
		{renewal, "The term of this Agreement shall begin on the Effective Date and shall continue for a period of two (2) years (\"Initial Term\"). Upon expiration of the Initial Term, unless written notice to the contrary is given at least 30 days prior to the expiration of the then-current term, this Agreement shall be renewed for additional, successive periods of one (1) year each.", "successive 1 year"},
		{renewal, "The initial term of this Agreement shall be for a period of four (4) years, commencing on the Effective Date, which term may be extended for up to three (3) years by written agreement of both Parties.", "3 years"},
		{renewal, "Franchisor has not given notice of its election not to renew six (6) months prior to the expiration of the initial twenty (20) year term. Franchisee shall have the right to obtain a successor franchise for a single term of five (5) years.", "5 years"},
		{notice, "This agreement shall remain in effect until the end of the current calendar year and shall be automatically renewed for successive one (1) year periods unless otherwise terminated according to paragraph 18 of this Agreement.", ""},
		{notice, "This Agreement shall be automatically renewed for successive one (1) year periods unless either party gives the other sixty (60) days' prior written notice of non-renewal.", "60 days"},
	} {
		if a, _ := Read(nil, c.p, extractsOf(c.text), nil, true); a.Text != c.want {
			t.Errorf("%s, %q: %q, want %q", c.p.Name, c.text, a.Text, c.want)
		}
	}
}
