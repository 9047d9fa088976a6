package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserGraph selects a clause of the sample master services agreement
// and follows its definitions and references in the clause panel: a
// reference opens the clause it points to (whose panel lists the first
// clause under "Referred to by"), a term opens its definition.
func TestBrowserGraph(t *testing.T) {
	needBrowser(t)
	srv, key := startAPI(t)
	uploadFiles(t, srv.URL, key, []string{filepath.Join("..", "..", "examples", "contracts", "master-services-agreement.txt")})
	b := newBrowser(t)
	shots := os.Getenv("PAKTON_SCREENSHOTS")
	b.run("open the agreement",
		chromedp.Navigate(srv.URL+"/#key="+key),
		chromedp.WaitVisible("#doc-list .doc-item", chromedp.ByQuery),
	)
	msa := b.docID("master-services-agreement")
	var panel string
	b.run("select clause 4.3",
		chromedp.Click(`#doc-list button[data-doc="`+msa+`"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#outline .node`, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('#outline .node')].find((b) => /^4\.3\b/.test(b.textContent)).click()`, nil),
		chromedp.WaitVisible(`#graph-panel .graph-link`, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('graph-panel').textContent`, &panel),
	)
	b.checkMark(srv.URL, key, "mark.hl-clause", msa, nil) // in view after the panel opened beside it
	for _, want := range []string{"In 4.3", "Terms used", "Security Incident", "Service Levels", "Refers to", "Section 11.3(c)", "→"} {
		if !strings.Contains(panel, want) {
			t.Errorf("clause panel of 4.3 lacks %q:\n%s", want, panel)
		}
	}
	b.shot(shots, "graph-1-clause")

	var marked string
	b.run("follow Section 11.3(c)",
		chromedp.Evaluate(`[...document.querySelectorAll('#graph-panel .graph-link')].find((b) => b.textContent === 'Section 11.3(c)').click()`, nil),
		chromedp.Poll(`(document.querySelector('mark.hl-clause') || {}).textContent.startsWith('(c)')`, nil),
		chromedp.Poll(`document.getElementById('graph-panel').textContent.includes('Referred to by')`, nil),
		chromedp.Evaluate(`document.getElementById('graph-panel').textContent`, &panel),
	)
	marked = b.checkMark(srv.URL, key, "mark.hl-clause", msa, nil)
	if !strings.Contains(panel, "4.3") {
		t.Errorf("panel of 11.3(c) does not list 4.3 under Referred to by:\n%s", panel)
	}
	b.run("open a definition",
		chromedp.Evaluate(`[...document.querySelectorAll('#outline .node')].find((b) => /^4\.3\b/.test(b.textContent)).click()`, nil),
		chromedp.Poll(`[...document.querySelectorAll('#graph-panel .graph-link')].some((b) => b.textContent === 'Security Incident')`, nil),
		chromedp.Evaluate(`[...document.querySelectorAll('#graph-panel .graph-link')].find((b) => b.textContent === 'Security Incident').click()`, nil),
		chromedp.WaitVisible(`mark.hl-def`, chromedp.ByQuery),
	)
	def := b.checkMark(srv.URL, key, "mark.hl-def", msa, nil)
	b.run("read the uses", chromedp.Evaluate(`document.getElementById('graph-panel').textContent`, &panel))
	if !strings.Contains(panel, "“Security Incident” is used in") || !strings.Contains(panel, "4.3") {
		t.Errorf("panel of the definition does not list its uses:\n%s", panel)
	}
	if !strings.HasPrefix(def, `"Security Incident" means`) {
		t.Errorf("definition highlighted: %.80q (after following to %.40q)", def, marked)
	}
	b.shot(shots, "graph-2-definition")

	// An evidence report lists what each provision leans on; a click opens it.
	var leans int
	b.run("ask without a model",
		chromedp.SetValue("#ask-question", "What remedy does the Customer have when Provider misses the Service Levels?", chromedp.ByQuery),
		chromedp.Click(`#ask-form button[type="submit"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#report .leans-on button`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#report .leans-on li').length`, &leans),
		chromedp.Evaluate(`document.querySelector('#report .leans-on button').click()`, nil),
		chromedp.WaitVisible(`mark.hl-cite`, chromedp.ByQuery),
	)
	if leans == 0 {
		t.Error("no provision of the evidence report leans on anything")
	}
	b.checkMark(srv.URL, key, "mark.hl-cite", msa, nil)
	b.noErrors()
}
