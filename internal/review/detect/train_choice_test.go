package detect

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// TestKeepNorm checks the choice of a detector's length normalisation on
// both sides: kept when its cross-validated cells reach a higher F1 with it,
// not on a tie or a loss.
func TestKeepNorm(t *testing.T) {
	cell := func(x float64, hit bool) scored { return scored{x: x, p: sigmoid(x), hit: hit, present: hit} }
	// plain: the two hits rank under a miss; norm: above every miss
	plain := []scored{cell(2, true), cell(1, true), cell(3, false), cell(-1, false)}
	norm := []scored{cell(3, true), cell(2.5, true), cell(1, false), cell(-1, false)}
	if !keepNorm(plain, norm) {
		t.Errorf("normalised cells with F1 %.2f against %.2f plain: want the normalisation kept", bestF1(norm), bestF1(plain))
	}
	if keepNorm(norm, plain) {
		t.Errorf("normalised cells with F1 %.2f against %.2f plain: want the plain sum kept", bestF1(plain), bestF1(norm))
	}
	if keepNorm(plain, plain) {
		t.Error("a tie keeps the normalisation; want the plain sum")
	}
}

// TestCellCoversWholeClause checks that training's cross-validation picks
// a whole-clause answer's passages as the review does: a definition longer
// than a cell's budget of separate passages is covered by the clause the
// best passage belongs to (PickClause), not by the few best passages alone
// (Pick), so a detector of a long definition is not scored as missing it.
func TestCellCoversWholeClause(t *testing.T) {
	var b strings.Builder
	b.WriteString("MERGER AGREEMENT\n\nARTICLE I\nDEFINITIONS\n\n")
	b.WriteString("\"Company Material Adverse Effect\" means any event, change or effect that is materially adverse to the business of the Company, ")
	for i := range 40 {
		b.WriteString("excluding any effect arising from changes in general economic conditions, industry conditions, law or accounting rules in the jurisdictions where the Company operates (" + string(rune('a'+i%26)) + "), ")
	}
	b.WriteString("except to the extent disproportionate.\n\n")
	b.WriteString("\"Knowledge\" means the actual knowledge of the officers of the Company.\n")
	text := b.String()
	doc := &document.Document{ID: "m", Name: "m", Format: "text", Text: text}
	prep := prepare(Doc{ID: "m", Name: "m", Doc: doc, Tree: clause.Parse(doc)})

	start := strings.Index(text, "\"Company Material")
	end := strings.Index(text, "disproportionate.") + len("disproportionate.")
	span := [2]int{len([]rune(text[:start])), len([]rune(text[:end]))}
	if span[1]-span[0] <= 2*pickBudget {
		t.Fatalf("the definition is %d code points; the test needs more than twice a cell's budget of %d", span[1]-span[0], pickBudget)
	}
	// the detector likes the definition's first passage best, and the rest
	// of the definition a little less than the unrelated one
	probs := make([]float64, len(prep.passages))
	first := -1
	for k, ps := range prep.passages {
		switch {
		case ps.Span.Start >= span[0] && ps.Span.End <= span[1] && first < 0:
			first, probs[k] = k, 0.9
		case ps.Span.Start >= span[0] && ps.Span.End <= span[1]:
			probs[k] = 0.05
		default:
			probs[k] = 0.1
		}
	}
	if first < 0 {
		t.Fatal("no passage inside the definition")
	}
	c := cellData{present: true, spans: [][2]int{span}}
	if cellCovers(prep, probs, c) {
		t.Fatal("the best passages alone cover the definition; the test shows nothing")
	}
	c.whole = true
	if !cellCovers(prep, probs, c) {
		t.Errorf("a whole-clause cell picked as the review picks it does not cover the definition %v", span)
	}
}
