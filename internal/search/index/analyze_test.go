package index

import (
	"strings"
	"testing"
)

// A space lost in conversion glues a word to the capitalised word after
// it ("includingPersonal Information", as a web page's links and bold
// words come out as text); the two are read as two words. A name written
// with an inner capital stays one word.
func TestAnalyzeGluedWords(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"We collect information, includingPersonal Information", "collect inform includ person inform"},
		{"designed to reasonably safeguardPersonal Information", "design reason safeguard person inform"},
		{"shared with ourVendors byThird-Party Ad-Servers", "share vendor third parti ad server"},
		// names: a capital first, a single lower-case letter first, or a
		// capital not followed by a lower-case letter
		{"InfoSonics sells on eBay and eDiets via the iPhone and mySQL", "infoson sell ebay ediet via iphon mysql"},
		{"WordPerfect", "wordperfect"},
	} {
		if got := strings.Join(Analyze(c.text), " "); got != c.want {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
		}
	}
	// the words' places are the glued words' own
	var words []string
	ForEachWordAt("byThird", func(w string, at WordAt) { words = append(words, w+"@"+"byThird"[at.Start:at.End]) })
	if strings.Join(words, " ") != "by@by third@Third" {
		t.Errorf("places: %q", words)
	}
}
