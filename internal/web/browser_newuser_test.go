package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/pakton/pakton/internal/document"
)

// TestBrowserNewUser checks what a new user meets in the first hour, at a
// desktop width (1440×900) and a phone width (390×844): the document filter,
// the page of each search hit (a physical PDF page, labelled so), the report
// brought into view below earlier results, zooming page images, no
// horizontal overflow on a phone, and a hit clicked on a phone scrolling to
// the highlighted text with a way back.
//
// It runs only with PAKTON_BROWSER=1, like TestBrowser; screenshots go to
// PAKTON_SCREENSHOTS when set.
func TestBrowserNewUser(t *testing.T) {
	needBrowser(t)
	srv, key := startAPI(t)
	b := newBrowser(t)
	shots := os.Getenv("PAKTON_SCREENSHOTS")

	files := []string{abs(t, "testdata/equipment-lease.pdf")}
	for _, f := range []string{"master-services-agreement.txt", "supply-agreement.docx", "distribution-agreement.txt",
		"mutual-nda.md", "software-license-agreement.html"} {
		files = append(files, abs(t, filepath.Join("../../examples/contracts", f)))
	}
	b.run("open the app and upload",
		chromedp.Navigate(srv.URL+"/#key="+key),
		chromedp.WaitVisible("#drop", chromedp.ByQuery),
		chromedp.SetUploadFiles("#file-input", files, chromedp.ByQuery),
	)
	var jobRows string
	waitErr := chromedp.Run(b.ctx, chromedp.Poll(`document.querySelector('.job')?.dataset.state === 'done'`, nil, chromedp.WithPollingTimeout(90*time.Second)))
	b.run("read the job", chromedp.Evaluate(`(document.querySelector('.job')?.dataset.state || 'no job') + ': ' + (document.querySelector('.job')?.textContent || '') + ' / banner: ' + document.getElementById('banner').textContent`, &jobRows))
	if waitErr != nil {
		t.Fatalf("upload: the job did not finish: %v; the page shows %s", waitErr, jobRows)
	}
	b.run("wait for the documents "+jobRows,
		chromedp.Poll(fmt.Sprintf(`document.querySelectorAll('#doc-list .doc-item').length === %d`, len(files)), nil,
			chromedp.WithPollingTimeout(20*time.Second)),
	)

	// The app labels pages in the same words as the CLI and reports.
	for _, tc := range []struct {
		pages  []int
		labels []string
	}{
		{nil, nil}, {[]int{3}, nil}, {[]int{3, 4}, nil}, {[]int{3}, []string{"3"}}, {[]int{5}, []string{"iv"}},
		{[]int{5, 6}, []string{"3", "4"}}, {[]int{5, 6}, []string{"", "4"}}, {[]int{5, 6}, []string{"3", ""}},
		{[]int{5, 6}, []string{"", ""}}, {[]int{5, 6, 7}, []string{"3", "3", "3"}}, {[]int{5, 6}, []string{"x"}},
	} {
		args, _ := json.Marshal([]any{tc.pages, tc.labels})
		var got string
		b.run("pagesLabel", chromedp.Evaluate(fmt.Sprintf(`pagesLabel(...%s)`, args), &got))
		if want := document.FormatPages(tc.pages, tc.labels); got != want {
			t.Errorf("pagesLabel(%v, %q) = %q in the app, %q in the CLI and reports", tc.pages, tc.labels, got, want)
		}
	}

	// The document filter: words of the name, any case; the count says how
	// many of how many are shown.
	var filter struct {
		Shown []string `json:"shown"`
		Count string   `json:"count"`
		None  bool     `json:"none"`
	}
	readFilter := chromedp.Evaluate(`({
		shown: [...document.querySelectorAll('#doc-list .doc-name')].map((e) => e.textContent),
		count: document.getElementById('doc-count').textContent,
		none: !document.getElementById('doc-nomatch').hidden,
	})`, &filter)
	b.run("filter the documents", chromedp.SendKeys("#doc-filter", "AGREEMENT supply", chromedp.ByQuery), readFilter)
	if len(filter.Shown) != 1 || !strings.Contains(filter.Shown[0], "supply-agreement") || filter.Count != fmt.Sprintf("1 of %d", len(files)) {
		t.Errorf(`filter "AGREEMENT supply": shown %q, count %q; want supply-agreement only, "1 of %d"`, filter.Shown, filter.Count, len(files))
	}
	setFilter := func(v string) chromedp.Action {
		return chromedp.Evaluate(fmt.Sprintf(`(() => { const f = document.getElementById('doc-filter'); f.value = %q; f.dispatchEvent(new Event('input')); })()`, v), nil)
	}
	b.run("filter with no match", setFilter("zzz"), readFilter)
	if len(filter.Shown) != 0 || !filter.None {
		t.Errorf(`filter "zzz": shown %q, no-match note shown %v`, filter.Shown, filter.None)
	}
	b.run("clear the filter", setFilter(""), readFilter)
	if len(filter.Shown) != len(files) || filter.None {
		t.Errorf("cleared filter: %d documents shown, want %d", len(filter.Shown), len(files))
	}

	// Search hits name their physical PDF page: the same page the API gives.
	const leaseQuery = "security deposit returned"
	var where []string
	b.run("search the lease",
		chromedp.SendKeys("#search-query", leaseQuery+kb.Enter, chromedp.ByQuery),
		chromedp.WaitVisible(`#hits .hit-open`, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('#hits .hit-where')].map((e) => e.textContent)`, &where),
	)
	apiHits := searchAPI(t, srv.URL, key, leaseQuery)
	if len(apiHits) == 0 || len(where) != len(apiHits) {
		t.Fatalf("search %q: %d hits on the page, %d from the API", leaseQuery, len(where), len(apiHits))
	}
	for i, h := range apiHits {
		want := document.FormatPages(h.Pages, h.PageLabels)
		if want != "" && !strings.HasSuffix(where[i], " — "+want) || want == "" && strings.Contains(where[i], "PDF page") {
			t.Errorf("hit %d (%s, pages %v) is labelled %q, want the page %q", i+1, h.DocName, h.Pages, where[i], want)
		}
	}
	if !strings.Contains(strings.Join(where, "\n"), "(PDF page") {
		t.Errorf("no hit for %q names a PDF page: %q", leaseQuery, where)
	}

	// The report lands below ten search results, off-screen, and is brought
	// into view.
	var rep struct {
		Below bool    `json:"below"`
		Top   float64 `json:"top"`
		H     float64 `json:"h"`
	}
	b.run("ask below long results",
		chromedp.Evaluate(`document.getElementById('search-query').value = ''`, nil),
		chromedp.SendKeys("#search-query", "termination notice"+kb.Enter, chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('#hits .hit-open').length >= 8`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`window.scrollTo(0, 0)`, nil),
		chromedp.Click("#ask-evidence", chromedp.ByQuery),
		chromedp.SendKeys("#ask-question", "What notice is needed to terminate for convenience?"+kb.Enter, chromedp.ByQuery),
		chromedp.WaitVisible(`#report #source-1 .cite`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => {
			const r = document.getElementById('report');
			return {below: r.offsetTop > window.innerHeight, top: r.getBoundingClientRect().top, h: window.innerHeight};
		})()`, &rep),
	)
	if !rep.Below {
		t.Error("the report does not start below the first screen: this check cannot tell whether it is scrolled to")
	}
	if rep.Top < -1 || rep.Top > rep.H/2 { // -1: scrolled to a fractional offset
		t.Errorf("the report's top is at %.0f px of a %.0f px window: not brought into view", rep.Top, rep.H)
	}
	b.shot(shots, "6-report-in-view")

	// Page view zooms: +, −, fit; the highlight stays on the page image.
	b.run("open a lease hit in page view",
		chromedp.Evaluate(`window.scrollTo(0, 0); document.getElementById('search-query').value = ''`, nil),
		chromedp.SendKeys("#search-query", leaseQuery+kb.Enter, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#hits .hit-where')?.textContent.includes('(PDF page')`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Click(`#hits .hit-open`, chromedp.ByQuery),
		chromedp.WaitVisible(`#view-toggle:not([hidden]) #view-page`, chromedp.ByQuery),
		chromedp.Click("#view-page", chromedp.ByQuery),
		chromedp.WaitVisible(`#doc-pages .hl-box`, chromedp.ByQuery),
		chromedp.WaitVisible(`#zoom`, chromedp.ByQuery),
	)
	var fit, zoomed, back zoomState
	b.run("read the fitted page", readZoom(&fit))
	if !strings.Contains(fit.Sel, "p. 2 (PDF page)") {
		t.Errorf("the selection line %q does not name the physical page p. 2 (PDF page)", fit.Sel)
	}
	b.run("zoom in twice", chromedp.Click("#zoom-in", chromedp.ByQuery), chromedp.Click("#zoom-in", chromedp.ByQuery), readZoom(&zoomed))
	t.Logf("zoom: fit %+v; zoomed %+v", fit, zoomed)
	if zoomed.Level != "150%" || zoomed.Width < fit.Width*1.45 || zoomed.Width > fit.Width*1.55 {
		t.Errorf("zoomed in twice: level %q, page %.0f px wide; want 150%% of %.0f px", zoomed.Level, zoomed.Width, fit.Width)
	}
	if !zoomed.Inside || !zoomed.Visible {
		t.Errorf("zoomed: highlight inside the page image %v, in view %v", zoomed.Inside, zoomed.Visible)
	}
	b.run("wait for a sharper page", chromedp.Poll(`document.querySelector('#doc-pages .hl-box').parentElement.querySelector('img').complete`, nil))
	b.shot(shots, "7-zoom")
	b.run("fit with the keyboard", chromedp.Focus("#doc-pages", chromedp.ByQuery), chromedp.KeyEvent("0"), readZoom(&back))
	if back.Level != "Fit width" || back.Width != fit.Width || !back.Inside {
		t.Errorf("after 0: level %q, page %.0f px wide, want Fit width, %.0f px", back.Level, back.Width, fit.Width)
	}
	b.run("back to text view", chromedp.Click("#view-text", chromedp.ByQuery))

	// A phone: nothing overflows sideways; a hit opens the text in view.
	b.run("phone width",
		chromedp.EmulateViewport(390, 844),
		chromedp.Reload(),
		chromedp.WaitVisible("#drop", chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('#doc-list .doc-item').length > 0`, nil),
		chromedp.Evaluate(`window.scrollTo(0, 0)`, nil),
	)
	b.noOverflow("phone: start")
	b.shot(shots, "phone-1-start")
	b.run("phone: search",
		chromedp.SendKeys("#search-query", "governing law"+kb.Enter, chromedp.ByQuery),
		chromedp.WaitVisible(`#hits .hit-open`, chromedp.ByQuery),
	)
	b.noOverflow("phone: search results")
	b.shot(shots, "phone-2-results")
	var opened struct {
		Top, Bottom, H float64
		Back           bool
	}
	b.run("phone: open a hit",
		chromedp.Click(`#hits .hit-open`, chromedp.ByQuery),
		chromedp.WaitVisible(`mark.hl-cite`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => {
			const r = document.querySelector('mark.hl-cite').getBoundingClientRect();
			return {Top: r.top, Bottom: r.bottom, H: window.innerHeight, Back: !document.getElementById('doc-back').hidden};
		})()`, &opened),
	)
	if opened.Top < 0 || opened.Top >= opened.H {
		t.Errorf("phone: the highlighted hit starts at %.0f px of a %.0f px window: not scrolled to", opened.Top, opened.H)
	}
	if !opened.Back {
		t.Error("phone: no Back button after jumping to the document")
	}
	b.noOverflow("phone: document open")
	b.shot(shots, "phone-3-hit-opened")
	var hitTop float64
	b.run("phone: back to the hit",
		chromedp.Click("#doc-back", chromedp.ByQuery),
		chromedp.Evaluate(`document.activeElement.classList.contains('hit-open') ? document.activeElement.getBoundingClientRect().top : -1`, &hitTop),
	)
	if hitTop < 0 || hitTop > opened.H {
		t.Errorf("phone: Back did not return to the hit (its top at %.0f px)", hitTop)
	}
	b.run("phone: ask",
		chromedp.Evaluate(`document.getElementById('ask-question').value = ''`, nil),
		chromedp.SendKeys("#ask-question", "Which law governs the agreement?"+kb.Enter, chromedp.ByQuery),
		chromedp.WaitVisible(`#report #source-1 .cite`, chromedp.ByQuery),
	)
	b.noOverflow("phone: report")
	b.shot(shots, "phone-4-report")

	// Page view on a phone: zoomed pages scroll inside their pane, the
	// window does not.
	b.run("phone: page view zoomed",
		chromedp.Evaluate(`document.querySelector('#doc-list .doc-item[data-doc]') && [...document.querySelectorAll('#doc-list .doc-item')].find((b) => b.textContent.includes('equipment-lease')).click()`, nil),
		chromedp.WaitVisible(`#view-toggle:not([hidden]) #view-page`, chromedp.ByQuery),
		chromedp.Click("#view-page", chromedp.ByQuery),
		chromedp.WaitVisible(`#doc-pages .page`, chromedp.ByQuery),
		chromedp.Click("#zoom-in", chromedp.ByQuery),
		chromedp.Click("#zoom-in", chromedp.ByQuery),
		chromedp.Poll(`document.getElementById('zoom-level').textContent === '150%'`, nil),
	)
	b.noOverflow("phone: page view at 150%")
	b.noErrors()
}

type zoomState struct {
	Level   string  `json:"level"`
	Width   float64 `json:"width"`
	Inside  bool    `json:"inside"`
	Visible bool    `json:"visible"`
	Sel     string  `json:"sel"`
}

// readZoom reads the zoom level, the width of the page holding the first
// highlight box, and whether that box lies on the page image and in view.
func readZoom(z *zoomState) chromedp.Action {
	return chromedp.Evaluate(`(() => {
		const box = document.querySelector('#doc-pages .hl-box');
		const page = box.parentElement, img = page.querySelector('img').getBoundingClientRect();
		const r = box.getBoundingClientRect(), view = document.getElementById('doc-pages').getBoundingClientRect();
		return {
			level: document.getElementById('zoom-level').textContent,
			width: page.getBoundingClientRect().width,
			inside: r.left >= img.left - 1 && r.right <= img.right + 1 && r.top >= img.top - 1 && r.bottom <= img.bottom + 1,
			visible: r.top >= view.top && r.top < view.bottom && r.left >= view.left - 1 && r.left < view.right,
			sel: document.getElementById('doc-selection').textContent,
		};
	})()`, z)
}

// noOverflow fails the test when the page is wider than the window, naming
// the widest element that sticks out.
func (b *browser) noOverflow(step string) {
	b.t.Helper()
	var o struct {
		Scroll, Width float64
		Culprit       string
	}
	b.run(step+": overflow", chromedp.Evaluate(`(() => {
		const w = document.documentElement.clientWidth;
		// An element wider than the window counts unless a scrolling pane
		// inside the window clips it (a zoomed page in the page pane).
		const clipped = (e) => {
			for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
				if (getComputedStyle(p).overflowX !== 'visible' && p.getBoundingClientRect().right <= w + 1) return true;
			}
			return false;
		};
		let culprit = '';
		for (const e of document.querySelectorAll('body *')) {
			const r = e.getBoundingClientRect();
			if (r.width && r.right > w + 1 && !e.closest('[hidden]') && !clipped(e)) { culprit = e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className + ' right ' + r.right; break; }
		}
		return {Scroll: document.documentElement.scrollWidth, Width: w, Culprit: culprit};
	})()`, &o))
	if o.Scroll > o.Width || o.Culprit != "" {
		b.t.Errorf("%s: the page is %.0f px wide in a %.0f px window (%s)", step, o.Scroll, o.Width, o.Culprit)
	}
}

type apiHit struct {
	DocName    string   `json:"doc_name"`
	Pages      []int    `json:"pages"`
	PageLabels []string `json:"page_labels"`
}

// searchAPI runs a search in the default collection through the API.
func searchAPI(t *testing.T, base, key, query string) []apiHit {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "k": 10})
	req, _ := http.NewRequest("POST", base+"/api/v1/collections/default/search", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Hits []apiHit `json:"hits"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 200 {
		t.Fatalf("search %q: %d %v", query, res.StatusCode, err)
	}
	return out.Hits
}
