package detect

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/playbook"
)

// TestLongClauseNotDiluted checks the length normalisation of a detector: a
// clause that grants a termination for convenience and then goes on at length
// about breach holds the provision's words, and each of its other words adds
// a small negative weight. Summed whole, those outweigh the provision's
// evidence and the long clause scores below a short clause about something
// else; with the negative weights of a long passage scaled down, it does not.
// (Scaling every weight would not do: the long clause would still score
// below the short one, its two words for the provision shrunk with the
// rest.)
func TestLongClauseNotDiluted(t *testing.T) {
	long := "Section 12.1 Termination. PivX may terminate this Agreement for convenience upon thirty days written notice to the Distributor. " +
		"Either party may terminate this Agreement if the other party materially breaches any representation, warranty, " +
		"covenant or obligation under this Agreement and fails to cure such breach within sixty days after receiving " +
		"written notice describing the breach in reasonable detail, or if the other party becomes insolvent, makes a " +
		"general assignment for the benefit of creditors, files a voluntary petition in bankruptcy, suffers the appointment " +
		"of a receiver or trustee over all or substantially all of its assets, or ceases to conduct business in the ordinary " +
		"course, provided that any dispute regarding whether a breach has occurred shall be resolved under Section 14 and " +
		"neither party shall be relieved of payment obligations accrued before the effective date of termination, " +
		"including amounts invoiced for products shipped, services rendered, expenses reimbursed or royalties earned."
	short := "Section 12.2 Governing Law. This Agreement is governed by the laws of the State of New York."
	text := "DISTRIBUTION AGREEMENT\n\nSection 12. TERM AND TERMINATION\n\n" + long + "\n\n" + short + "\n"
	doc := &document.Document{ID: "t", Name: "t", Format: "text", Text: text}
	prep := prepare(Doc{ID: "t", Name: "t", Doc: doc, Tree: clause.Parse(doc)})

	find := func(prefix string) int {
		for k, p := range prep.passages {
			if strings.HasPrefix(doc.Text[p.Span.Start:p.Span.End], prefix) {
				return k
			}
		}
		t.Fatalf("no passage starts with %q", prefix)
		return -1
	}
	kl, ks := find("Section 12.1"), find("Section 12.2")
	if n := len(prep.feats[kl]); n < 3*128/2 {
		t.Fatalf("the long clause has %d features; the test needs a passage well past the normalisation's %d", n, 128)
	}

	// The provision's words weigh for it; every other word of the contract
	// weighs a little against it.
	provision := map[string]bool{StemWord("terminate"): true, StemWord("convenience"): true}
	weights := map[string]float64{}
	for _, k := range []int{kl, ks} {
		for _, w := range prep.passages[k].Words {
			if provision[w] {
				weights["w:"+w] = 1.5
			} else {
				weights["w:"+w] = -0.05
			}
		}
	}
	pb := &playbook.Playbook{Name: "t", Provisions: []playbook.Provision{{Name: "Termination for Convenience"}}}
	score := func(norm int) (longP, shortP float64) {
		m := &Model{Name: "Termination for Convenience", Bias: -3, Weights: weights, LengthNorm: norm}
		s := NewScorer(pb, &Detectors{Models: []*Model{m}})
		p := s.Scores(prep)[0]
		return p[kl], p[ks]
	}
	if l, s := score(0); l >= s {
		t.Fatalf("without normalisation the long clause scores %.3f, the short one %.3f: the weights do not dilute, the test shows nothing", l, s)
	}
	if l, s := score(128); l <= s {
		t.Errorf("normalised, the long clause with the provision's words scores %.3f, below the short clause without them (%.3f)", l, s)
	}
}
