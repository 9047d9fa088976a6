package web

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestBrowserDeadlines drives the Deadlines tab in headless Chromium over
// the sample contracts: the list shows what the API lists, in date order;
// a quoted clause opens the contract with exactly that clause highlighted;
// the calendar file downloads as iCalendar; nothing is wider than a phone's
// window. Screenshots (PAKTON_SCREENSHOTS) at 1440×900 and 390×844.
func TestBrowserDeadlines(t *testing.T) {
	needBrowser(t)
	srv, key := startAPI(t)
	uploadFiles(t, srv.URL, key, []string{
		abs(t, "../../examples/contracts/master-services-agreement.txt"),
		abs(t, "../../examples/contracts/distribution-agreement.txt"),
		abs(t, "../../examples/contracts/software-license-agreement.html"),
		abs(t, "../../examples/contracts/supply-agreement.docx"),
		abs(t, "../../examples/contracts/mutual-nda.md"),
	})
	shots := os.Getenv("PAKTON_SCREENSHOTS")
	var api struct {
		Deadlines []struct {
			DocID   string `json:"doc_id"`
			Date    string `json:"date"`
			Why     string `json:"why"`
			Clauses []struct {
				Span struct{ Start, End int } `json:"span"`
			} `json:"clauses"`
		} `json:"deadlines"`
	}
	getJSON(t, srv.URL, key, "/api/v1/collections/default/deadlines", &api)
	dated, undated := 0, 0
	for _, d := range api.Deadlines {
		if d.Date != "" {
			dated++
		} else {
			undated++
		}
	}
	if dated < 5 || undated < 1 {
		t.Fatalf("API: %d dated, %d undated", dated, undated)
	}

	b := newBrowser(t)
	b.run("open the deadlines tab",
		chromedp.Navigate(srv.URL+"/#key="+key),
		chromedp.WaitVisible("#doc-list .doc-item", chromedp.ByQuery),
		chromedp.Click("#tab-deadlines", chromedp.ByQuery),
		chromedp.WaitVisible("#deadlines", chromedp.ByQuery),
		chromedp.WaitNotPresent("#ask-form:not([hidden])", chromedp.ByQuery),
		chromedp.Evaluate(`(() => { const s = document.getElementById('deadlines-within'); s.value = ''; s.dispatchEvent(new Event('change')); })()`, nil),
		chromedp.Poll(fmt.Sprintf(`document.querySelectorAll('#deadlines-list .dl-item').length === %d`, dated), nil, chromedp.WithPollingTimeout(60*time.Second)),
	)
	var shown struct {
		Dates   []string
		Undated int
		Status  string
	}
	b.run("read the list", chromedp.Evaluate(`({
		Dates: [...document.querySelectorAll('#deadlines-list time')].map((e) => e.dateTime),
		Undated: document.querySelectorAll('#deadlines-undated li').length,
		Status: document.getElementById('deadlines-status').textContent})`, &shown))
	for i := 1; i < len(shown.Dates); i++ {
		if shown.Dates[i] < shown.Dates[i-1] {
			t.Errorf("not in date order: %v", shown.Dates)
		}
	}
	if shown.Undated != undated || !strings.Contains(shown.Status, fmt.Sprintf("%d deadlines", dated)) {
		t.Errorf("undated %d (API %d), status %q", shown.Undated, undated, shown.Status)
	}
	b.run("open the not computed", chromedp.Evaluate(`document.getElementById('deadlines-undated-box').open = true`, nil))
	b.shot(shots, "deadlines")

	// The first deadline's first clause opens the contract at that clause.
	first := api.Deadlines[0]
	b.run("click a quoted clause",
		chromedp.Click(`#deadlines-list .dl-item .dl-quote`, chromedp.ByQuery),
		chromedp.Poll(fmt.Sprintf(`!!(state.doc && state.doc.id === %q && document.querySelector('mark.hl-cite'))`, first.DocID), nil,
			chromedp.WithPollingTimeout(20*time.Second)),
	)
	sp := first.Clauses[0].Span
	b.checkMark(srv.URL, key, "mark.hl-cite", first.DocID, &[2]int{sp.Start, sp.End})

	// The calendar file, as the button downloads it.
	var cal string
	b.run("fetch the calendar file", chromedp.Evaluate(`fetch(API + coll() + '/deadlines' + deadlinesQuery('ics'), {headers: headers()}).then((r) => r.text())`, &cal,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if !strings.HasPrefix(cal, "BEGIN:VCALENDAR\r\n") || strings.Count(cal, "BEGIN:VEVENT") != dated {
		t.Errorf("calendar file: %d events for %d deadlines: %.200q", strings.Count(cal, "BEGIN:VEVENT"), dated, cal)
	}

	// On a phone: nothing wider than the window.
	var wide int
	b.run("a phone",
		chromedp.EmulateViewport(390, 844),
		chromedp.Evaluate(`document.getElementById('deadlines').scrollIntoView()`, nil),
		chromedp.Sleep(200*time.Millisecond),
		chromedp.Evaluate(`[...document.querySelectorAll('#deadlines *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).length`, &wide),
	)
	if wide > 0 {
		t.Errorf("%d elements of the deadlines view are wider than a 390 px window", wide)
	}
	b.shot(shots, "deadlines-phone")
	b.noErrors()
}
