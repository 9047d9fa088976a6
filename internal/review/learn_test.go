package review

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
)

// A correction is located in the contract: by words, or — text copied
// exactly but cut mid-word — as it is; text the contract lacks is refused.
func TestDecisionLabelCorrection(t *testing.T) {
	text := "1. Orders. In case of an order volume equal or less than [* * *]: the first [* * *] of each year is free. Café terms apply."
	d := detect.Doc{ID: "d", Name: "d.txt", Doc: &document.Document{Text: text}}
	cell := &Cell{Provision: "Minimum Commitment"}
	for _, c := range []struct {
		correction string
		want       string // the label's text; "" refused
	}{
		{"In case of an order volume equal or less than [* * *]", "In case of an order volume equal or less than [* * *]"},
		{"n case of an order volume", "n case of an order volume"},
		{"Café terms apply.", "Café terms apply."},
		{"a minimum of 100 units", ""},
	} {
		lb, ok, err := decisionLabel(d, cell, Decision{Verdict: Corrected, Text: c.correction})
		if c.want == "" {
			if err == nil || !strings.Contains(err.Error(), "not in the contract") {
				t.Errorf("%q: %v, want refused", c.correction, err)
			}
			continue
		}
		if err != nil || !ok || !lb.Present || len(lb.Spans) != 1 {
			t.Fatalf("%q: %+v %v %v", c.correction, lb, ok, err)
		}
		r := []rune(text)
		if got := string(r[lb.Spans[0][0]:lb.Spans[0][1]]); got != c.want {
			t.Errorf("%q: label %q", c.correction, got)
		}
	}
}
