package web

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserNames drives routing, asking back and per-contract answers in
// headless Chromium: a search naming a company that is party to two
// contracts shows a chip per candidate and searches the one clicked; an
// ask with the same question pauses in the conversation with the two
// contracts as choices and answers from the one chosen; a question about
// the whole deal room lists the contracts that have what it asks about.
//
// It runs only with PAKTON_BROWSER=1.
func TestBrowserNames(t *testing.T) {
	if os.Getenv("PAKTON_BROWSER") != "1" {
		t.Skip("browser test: set PAKTON_BROWSER=1 to run it (needs Debian chromium and chromium-driver)")
	}
	for _, p := range []string{chromiumPath, chromedriverPath} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("browser test: %s missing: %v", p, err)
		}
	}
	srv, key := startAPI(t)
	dir := t.TempDir()
	contract := func(name, title, party, other, law string) string {
		p := filepath.Join(dir, name)
		text := title + "\n\nThis " + title + " is made by and between " + party + ", a Delaware corporation (\"" + strings.Fields(party)[0] + "\"), and " + other + " (\"Customer\").\n\n" +
			"1. Assignment\n1.1 Neither party may assign this Agreement without the prior written consent of the other party.\n\n" +
			"2. Governing Law\n2.1 This Agreement is governed by the laws of the State of " + law + ".\n"
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	uploadFiles(t, srv.URL, key, []string{
		contract("zenith-supply.txt", "SUPPLY AGREEMENT", "Zenith Widgets, Inc.", "Borealis Foods LLC", "New York"),
		contract("zenith-license.txt", "LICENSE AGREEMENT", "Zenith Widgets, Inc.", "Orion Data Corp.", "Delaware"),
		contract("quarry-services.txt", "SERVICES AGREEMENT", "Quarry Partners, Inc.", "Vega Capital LLC", "New York"),
	})

	b := newBrowser(t)
	b.run("open the app",
		chromedp.Navigate(srv.URL+"/#key="+key),
		chromedp.WaitVisible("#doc-list .doc-item", chromedp.ByQuery),
	)
	var chips int
	var why string
	b.run("search naming an ambiguous company",
		chromedp.SendKeys("#search-query", "Can we assign our contract with Zenith?"+kb.Enter, chromedp.ByQuery),
		chromedp.WaitVisible("#routed .chip-choice", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#routed .chip-choice').length`, &chips),
		chromedp.Text("#routed", &why, chromedp.ByQuery),
	)
	if chips != 2 || !strings.Contains(why, "“Zenith”") || !strings.Contains(why, "fits 2 contracts") {
		t.Fatalf("route chips: %d, %q", chips, why)
	}
	var where []string
	b.run("choose one candidate",
		chromedp.Click(`//button[contains(@class,'chip-choice')][contains(.,'zenith-license')]`, chromedp.BySearch),
		chromedp.Poll(`!document.querySelector('#routed .chip-choice')`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate(`[...document.querySelectorAll('#hits .hit-where')].map((e) => e.textContent)`, &where),
	)
	if len(where) == 0 {
		t.Fatal("no hits after choosing a contract")
	}
	for _, w := range where {
		if !strings.HasPrefix(w, "zenith-license.txt") {
			t.Errorf("hit from %q after choosing zenith-license.txt", w)
		}
	}

	var title, docs string
	b.run("ask: the question asked back in the conversation",
		chromedp.SendKeys("#ask-question", "Can we assign our contract with Zenith?"+kb.Enter, chromedp.ByQuery),
		chromedp.WaitVisible("#progress .ask-back .chip-choice", chromedp.ByQuery),
		chromedp.Click(`//li[contains(@class,'ask-back')]//button[contains(.,'zenith-supply')]`, chromedp.BySearch),
		chromedp.WaitVisible("#report-title", chromedp.ByQuery),
		chromedp.Text("#report-title", &title, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('#report .source-where')].map((e) => e.textContent).join(' | ')`, &docs),
	)
	if !strings.Contains(docs, "zenith-supply.txt") || strings.Contains(docs, "zenith-license.txt") {
		t.Errorf("report after choosing zenith-supply.txt cites %q", docs)
	}

	var contracts []string
	b.run("a deal-room question answered per contract",
		chromedp.Evaluate(`document.getElementById('ask-question').value = ''`, nil),
		chromedp.SendKeys("#ask-question", "Which of our contracts are governed by New York law?"+kb.Enter, chromedp.ByQuery),
		chromedp.WaitVisible("#report .per-contract .contract", chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('#report .per-contract .contract-name')].map((e) => e.textContent)`, &contracts),
	)
	// Each named as people name it, its file after it.
	slices.Sort(contracts)
	if len(contracts) != 2 || !strings.HasSuffix(contracts[0], " (quarry-services.txt)") || !strings.HasPrefix(contracts[0], "Services Agreement — Quarry Partners") ||
		!strings.HasSuffix(contracts[1], " (zenith-supply.txt)") || !strings.HasPrefix(contracts[1], "Supply Agreement — Zenith Widgets") {
		t.Errorf("per-contract list %q, want the two New York contracts by title, file after", contracts)
	}
	b.noErrors()
}
