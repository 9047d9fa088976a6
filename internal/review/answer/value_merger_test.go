package answer

import (
	"strings"
	"testing"
)

func TestConsiderationAt(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`each share of Company Common Stock issued and outstanding immediately prior to the Effective Time shall be converted into the right to receive $38.75 in cash, without interest (the "Merger Consideration").`, "Cash: $38.75 in cash"},
		{`Each share of Company Common Stock shall be converted into the right to receive 0.6500 of a validly issued, fully paid and non-assessable share of Parent Common Stock (the "Exchange Ratio").`, "Stock: 0.6500 of a validly issued, fully paid and non-assessable share of Parent Common Stock"},
		{`Each Company Share shall be converted into the right to receive (i) $12.00 in cash, without interest, and (ii) 0.25 of a share of Parent Common Stock.`, "Cash and stock: $12.00 in cash; 0.25 of a share of Parent Common Stock"},
		{`Each share of Company Stock shall be converted automatically into a number of shares of Parent Common Stock equal to the Exchange Ratio.`, "Stock: shares of Parent Common Stock"},
		// a par value is not a price; a tender offer's price per share is
		{`Each share shall be converted into the right to receive 0.51 fully paid and nonassessable shares of common stock, par value $0.01 per share, of Parent.`, "Stock: 0.51 fully paid and nonassessable shares of common stock"},
		{`Each share shall be converted into the right to receive from Pi 0.51 fully paid and nonassessable shares of common stock, $0.01 par value, of Pi.`, "Stock: 0.51 fully paid and nonassessable shares of common stock"},
		{`WHEREAS, Parent has agreed to cause Purchaser to commence a cash tender offer to acquire all of the outstanding shares of Company Common Stock, par value $0.001 per share, for $38.00 per Share, net to the seller in cash.`, "Cash: $38.00"},
		{`Purchaser shall commence a tender offer for all Shares at a price of $23.00 per Share (the "Offer Price"). At the Effective Time each Share shall be converted into the right to receive the Offer Price in cash, without interest.`, "Cash: $23.00"},
		// the options' cash further on does not make a stock deal mixed
		{`Each Share shall be converted into the right to receive 1.25 shares of Parent Common Stock. Each Company Option shall be cancelled in exchange for the right to receive an amount in cash equal to the Option Spread.`, "Stock: 1.25 shares of Parent Common Stock"},
	} {
		kind, vals, ok := considerationAt(c.text)
		if got := considerationText(kind, vals); !ok || got != c.want {
			t.Errorf("%q:\n got %q (%v)\nwant %q", c.text, got, ok, c.want)
		}
		for _, v := range vals {
			if c.text[v.at:v.end] != v.v && strings.Join(strings.Fields(c.text[v.at:v.end]), " ") != v.v {
				t.Errorf("span [%d,%d) holds %q, not %q", v.at, v.end, c.text[v.at:v.end], v.v)
			}
		}
	}
	if _, _, ok := considerationAt("The Surviving Corporation shall be governed by the laws of Delaware."); ok {
		t.Error("a clause without consideration read as one")
	}
}

func TestCarveOutsAt(t *testing.T) {
	mae := `"Company Material Adverse Effect" means any event that has had a material adverse effect on the business of the Company (including any effect arising under Section 3.1(a)); provided, however, that none of the following shall be deemed to constitute a Company Material Adverse Effect: (i) changes in general economic or political conditions; (ii) changes in GAAP or applicable Law after the date hereof, including changes described in (A) any rule or (B) any interpretation; (iii) any outbreak of hostilities, acts of war, sabotage or terrorism, or any pandemic or epidemic, or any escalation or worsening of any of the foregoing after the date of this Agreement in any jurisdiction in which the Company operates; or (iv) any failure by the Company to meet projections; except, in the case of clauses (i) through (iii), to the extent disproportionate.`
	got := carveOutsAt(mae)
	want := []string{
		"changes in general economic or political conditions",
		"changes in GAAP or applicable Law after the date hereof, including changes described in…",
		"any outbreak of hostilities, acts of war, sabotage or terrorism, or any pandemic…",
		"any failure by the Company to meet projections",
	}
	if len(got) != len(want) {
		t.Fatalf("%d carve-outs %+v, want %d", len(got), got, len(want))
	}
	for i, v := range got {
		if v.v != want[i] || mae[v.at:v.end] != strings.TrimSuffix(v.v, "…") {
			t.Errorf("carve-out %d = %q (span holds %q), want %q", i+1, v.v, mae[v.at:v.end], want[i])
		}
	}
	lettered := `"MAE" shall not include any effect resulting from (a) changes in the industry, (b) natural disasters, or (c) the announcement of this Agreement.`
	if got := carveOutsAt(lettered); len(got) != 3 || got[1].v != "natural disasters" {
		t.Errorf("lettered carve-outs %+v", got)
	}
	if got := carveOutsAt(`"MAE" means a material adverse effect on the Company (a) or its Subsidiaries.`); got != nil {
		t.Errorf("a definition without exceptions gave carve-outs %+v", got)
	}
}
