package review

import "testing"

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
	} {
		got, _ := EndDate(c.text, c.start)
		if got != c.want {
			t.Errorf("EndDate(%q, %q) = %q, want %q", c.text, c.start, got, c.want)
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
