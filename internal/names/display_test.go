package names

import "testing"

func TestDisplay(t *testing.T) {
	text := "DISTRIBUTOR AGREEMENT\n\nThis Distributor Agreement is made on the 31st day of March, 2000 by and between AIRSPAN NETWORKS, INC., a Washington corporation (\"Airspan\"), and GLS LLC, a Delaware limited liability company (\"GLS\").\n\n1. Appointment. Airspan appoints GLS as its distributor.\n"
	n := Learn(text, "01 Corporate/1.1 Supply Agreement.rtf")
	got := Display(n, "01 Corporate/1.1 Supply Agreement.rtf")
	want := "Distributor Agreement — Airspan Networks / GLS, 31 March 2000"
	if got != want {
		t.Errorf("Display = %q, want %q (names %+v)", got, want, n)
	}
	// The index keeps the names as All lists them: the same display.
	if again := Display(FromList(n.All(), "01 Corporate/1.1 Supply Agreement.rtf"), "01 Corporate/1.1 Supply Agreement.rtf"); again != got {
		t.Errorf("Display(FromList(All)) = %q, want %q", again, got)
	}
	// Nothing learnt: the file name without its folder and extension.
	if got := Display(Learn("", "deals/Side letter.pdf"), "deals/Side letter.pdf"); got != "Side letter" {
		t.Errorf("Display of nothing = %q", got)
	}
	// A banner before the title is not the title.
	n = Names{Title: "Confidential treatment has been requested with respect to portions of this agreement", Type: "supply agreement"}
	if got := Display(n, "x.txt"); got != "Supply Agreement" {
		t.Errorf("banner title: %q", got)
	}
}

func TestDisplayDate(t *testing.T) {
	for in, want := range map[string]string{
		"the 31st day of March, 2000": "31 March 2000",
		"March 31, 2000":              "31 March 2000",
		"2000-03-31":                  "31 March 2000",
		"31.03.2000":                  "31 March 2000",
		"June 2006":                   "June 2006",
		"as of 2019":                  "2019",
		"":                            "",
		"the 2nd day of May 1999":     "2 May 1999",
	} {
		if got := DisplayDate(in); got != want {
			t.Errorf("DisplayDate(%q) = %q, want %q", in, got, want)
		}
	}
}

// Parties given as a numbered list ("between: (1) A …; and (2) B …") are
// read, and the display names them.
func TestNumberedParties(t *testing.T) {
	text := "Supply Agreement\n\nThis Supply Agreement (the “Agreement”) is made on 3 March 2025 (the “Effective Date”) between:\n\n(1) Ferrand & Østergaard Components A/S, a company incorporated in Denmark whose registered office is at Industrivej 41, 8600 Silkeborg, Denmark (the “Supplier”); and\n\n(2) Calloway Kitchen Appliances GmbH, a company incorporated in Germany whose registered office is at Hohenzollernstraße 118, Germany (the “Buyer”),\n\neach a “Party” and together the “Parties”.\n\n1. Definitions\n"
	n := Learn(text, "supply-agreement.docx")
	got := Display(n, "supply-agreement.docx")
	want := "Supply Agreement — Ferrand & Østergaard Components / Calloway Kitchen Appliances, 3 March 2025"
	if got != want {
		t.Errorf("Display = %q, want %q (parties %+v)", got, want, n.Parties)
	}
}
