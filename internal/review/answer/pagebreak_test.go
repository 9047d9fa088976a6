package answer

import (
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
)

// A page break inside a sentence — the running lines at a page's top
// between "written notice" and "of such termination upon … material
// breach" — is read as a space: what the sentence's second half says is
// read with it (here its cure period makes the right conditional; read up
// to the break, it was a plain Yes). A break after a finished sentence is left alone, and the
// extract's own text is never changed.
func TestPageBreakInsideSentence(t *testing.T) {
	page := "\n\nFABRIKAM HOSTING CORPORATION\n\nHOSTING AGREEMENT\n\n"
	filler := strings.Repeat("The Provider shall host the Software and keep it available to the Customer's users at all times. ", 30)
	text := "FABRIKAM HOSTING CORPORATION\n\nHOSTING AGREEMENT\n\n1. Services. " + filler + page +
		"2. Fees. " + filler + page +
		"10.1 Term and Termination. This Agreement continues for one (1) year. In addition, either party may terminate this Agreement by giving to the other party written notice" + page +
		"of such termination upon the other party's material breach of any material term (subject to the other party's right to cure within thirty (30) days after receipt of such notice), or the other party's insolvency.\n\n" +
		"11. Fees. " + filler + page + "12. Notices. Notices are given in writing." + page + "13. Law. This Agreement is governed by the laws of California."
	d := &document.Document{ID: "x", Name: "x", Format: "text", Text: text}
	c := prepareForTest(t, detect.Doc{ID: "x", Name: "x", Doc: d})
	k := -1
	for i, ps := range c.Passages() {
		if strings.Contains(c.Index().Slice(ps.Span), "written notice") && strings.Contains(c.Index().Slice(ps.Span), "material breach") {
			k = i
		}
	}
	if k < 0 {
		t.Fatal("no passage holds the broken sentence")
	}
	if len(runningLines(c)) == 0 {
		t.Fatal("no running lines found")
	}
	ex := []detect.Extract{c.Extract(k, 0.9)}
	joined := joinPageBreaks(c, ex)
	if strings.Contains(joined[0].Text, "HOSTING AGREEMENT") || !strings.Contains(joined[0].Text, "written notice") {
		t.Errorf("joined: %q", joined[0].Text)
	}
	if !strings.Contains(ex[0].Text, "HOSTING AGREEMENT") {
		t.Errorf("the extract itself changed")
	}
	if len([]rune(joined[0].Text)) != ex[0].Span.Len() {
		t.Errorf("length %d, span %d", len([]rune(joined[0].Text)), ex[0].Span.Len())
	}
	pb := builtinPlaybook(t)
	tfc := pb.Provision("Termination for Convenience")
	a, _ := ReadAmong(c, tfc, pb.Excluded(tfc), ex, make([]float64, len(c.Passages())), true)
	if a.Kind == KindYes {
		// read before the page break alone, the sentence grants the right
		// on notice with nothing else said
		t.Errorf("termination on breach across a page break read as %s", a.Kind)
	}
	// a break after a finished sentence is no join
	for i, ps := range c.Passages() {
		s := c.Index().Slice(ps.Span)
		if strings.Contains(s, "12. Notices") && strings.Contains(s, "HOSTING AGREEMENT") {
			e := []detect.Extract{c.Extract(i, 0.5)}
			if j := joinPageBreaks(c, e); j[0].Text != e[0].Text {
				t.Errorf("joined after a full stop: %q", j[0].Text)
			}
		}
	}
}
