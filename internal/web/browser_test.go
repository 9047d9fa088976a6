package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/pakton/pakton/internal/auth"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/server"
	"github.com/pakton/pakton/internal/store"
)

// Browser paths of the Debian chromium and chromium-driver packages.
const (
	chromiumPath     = "/usr/bin/chromium"
	chromedriverPath = "/usr/bin/chromedriver"
)

// TestBrowser drives the web app in headless Chromium end to end: open the
// page with #key=, upload contracts, watch ingestion, browse the clause tree,
// ask a question (evidence report: no model server), click the first
// citation and check that the highlighted text is exactly the cited span.
//
// It runs only with PAKTON_BROWSER=1. Screenshots of each step go to the
// directory in PAKTON_SCREENSHOTS when set (docs/screenshots in the repo).
func TestBrowser(t *testing.T) {
	needBrowser(t)
	srv, key := startAPI(t)

	b := newBrowser(t)
	shots := os.Getenv("PAKTON_SCREENSHOTS")

	// The key moves from the address into sessionStorage.
	var href, stored string
	var cp []int
	b.run("open the app",
		chromedp.Navigate(srv.URL+"/#key="+key),
		chromedp.WaitVisible("#drop", chromedp.ByQuery),
		chromedp.Evaluate(`location.href`, &href),
		chromedp.Evaluate(`sessionStorage.getItem('pakton.key')`, &stored),
		chromedp.Evaluate(`Array.from(cpIndex("a€𝄞b"))`, &cp),
	)
	if strings.Contains(href, key) || stored != key {
		t.Fatalf("key not moved out of the address: href %q, sessionStorage %q", href, stored)
	}
	if fmt.Sprint(cp) != "[0 1 2 4 5]" {
		t.Errorf(`cpIndex("a€𝄞b") = %v, want [0 1 2 4 5]`, cp)
	}

	// Upload three contracts and a broken file; watch the job finish.
	broken := filepath.Join(t.TempDir(), "broken.pdf")
	os.WriteFile(broken, []byte("%PDF-1.7\nthe header is right but nothing after it is a PDF\n"), 0o644)
	files := []string{
		abs(t, "../../examples/contracts/master-services-agreement.txt"),
		abs(t, "../../examples/contracts/supply-agreement.docx"),
		abs(t, "testdata/music-licence.txt"),
		broken,
	}
	var failedReason string
	b.run("upload",
		chromedp.SetUploadFiles("#file-input", files, chromedp.ByQuery),
		chromedp.WaitVisible(`.job[data-state="done"]`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('#doc-list .doc-item').length === 3`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`(document.querySelector('.job-files .status-failed .reason') || {}).textContent || ''`, &failedReason),
	)
	if failedReason == "" {
		t.Error("the broken file shows no failure reason")
	}
	b.shot(shots, "1-upload")

	// Open a document, click a clause in the tree: its span is highlighted.
	msa := b.docID("master-services-agreement")
	b.run("open a document",
		chromedp.Click(`#doc-list button[data-doc="`+msa+`"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#outline .node`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => {
			[...document.querySelectorAll('#outline .node')].find((b) => /Cap on Liability/.test(b.textContent)).click();
		})()`, nil),
		chromedp.WaitVisible(`mark.hl-clause`, chromedp.ByQuery),
	)
	b.checkMark(srv.URL, key, "mark.hl-clause", msa, nil)
	b.shot(shots, "2-document")

	// The same with the keyboard: into the tree, down one clause, Enter.
	var before, after string
	b.run("keyboard in the clause tree",
		chromedp.Evaluate(`document.querySelector('#outline .node[tabindex="0"]').focus(); document.activeElement.textContent`, &before),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.KeyEvent(kb.Enter),
		chromedp.Evaluate(`document.querySelector('#outline .node[aria-current]').textContent`, &after),
	)
	if before == after || after == "" {
		t.Errorf("ArrowDown and Enter in the tree: selected %q, starting from %q", after, before)
	}
	b.checkMark(srv.URL, key, "mark.hl-clause", msa, nil)

	// Ask (no model server: evidence report), then click the first citation.
	b.run("ask",
		chromedp.Click("#ask-evidence", chromedp.ByQuery),
		chromedp.SendKeys("#ask-question", "What is the cap on the Provider's liability?"+kb.Enter, chromedp.ByQuery),
		chromedp.WaitVisible(`#report #source-1 .cite`, chromedp.ByQuery),
	)
	b.shot(shots, "3-report")
	// The report is read in the width of the page, not a side column, and
	// the no-model notice is one line until opened.
	var reportWidth float64
	var noticeOpen bool
	b.run("report width",
		chromedp.Evaluate(`document.getElementById('report').getBoundingClientRect().width`, &reportWidth),
		chromedp.Evaluate(`!!document.querySelector('#report details.notice[open]')`, &noticeOpen),
	)
	if reportWidth < 560 || noticeOpen {
		t.Errorf("report %.0f px wide at 1440 px (want ≥ 560), notice open %v", reportWidth, noticeOpen)
	}
	rep := b.report(srv.URL, key)
	src := rep.Sources[0]
	// Opening the cited document is asynchronous: wait until it is the one
	// shown and its span is marked (a mark seen earlier may still belong to
	// the document shown before).
	b.run("click the first citation",
		chromedp.Click(`#source-1 .cite`, chromedp.ByQuery),
		chromedp.Poll(fmt.Sprintf(`!!(state.doc && state.doc.id === %q && document.querySelector('mark.hl-cite'))`, src.DocID), nil,
			chromedp.WithPollingTimeout(20*time.Second)),
	)
	b.checkMark(srv.URL, key, "mark.hl-cite", src.DocID, &[2]int{src.Span.Start, src.Span.End})
	b.shot(shots, "4-citation")

	// A search hit opens its span too.
	var hit struct {
		Doc   string `json:"doc"`
		Start int    `json:"start"`
		End   int    `json:"end"`
	}
	b.run("search",
		chromedp.SendKeys("#search-query", "governing law"+kb.Enter, chromedp.ByQuery),
		chromedp.WaitVisible(`#hits .hit-open`, chromedp.ByQuery),
		chromedp.Click(`#hits .hit-open`, chromedp.ByQuery),
		// The citation's mark is still shown until the hit's document has
		// opened: wait for the hit's own highlight.
		chromedp.Poll(`!!(state.sel && state.sel.label === 'Search result 1' && document.querySelector('mark.hl-cite'))`, nil,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`({doc: state.doc.id, start: +document.querySelector('mark.hl-cite').dataset.start,
			end: +document.querySelector('mark.hl-cite').dataset.end})`, &hit),
	)
	b.checkMark(srv.URL, key, "mark.hl-cite", hit.Doc, &[2]int{hit.Start, hit.End})

	// Non-ASCII text before and inside the cited span (€, 𝄞, 📨): code-point
	// spans must land on the same characters in the UTF-16 page.
	music := b.docID("music-licence")
	b.run("ask about the music licence",
		chromedp.Click(`#doc-list button[data-doc="`+music+`"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#ask-scope:not([disabled])`, chromedp.ByQuery),
		chromedp.Click(`#ask-scope`, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('ask-question').value = ''`, nil),
		chromedp.SendKeys("#ask-question", "What reminder fee and interest apply to late payment?"+kb.Enter, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#report #source-1 .source-where')?.textContent.includes('music-licence')`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Click(`#source-1 .cite`, chromedp.ByQuery),
		chromedp.WaitVisible(`mark.hl-cite`, chromedp.ByQuery),
	)
	rep = b.report(srv.URL, key)
	src = rep.Sources[0]
	got := b.checkMark(srv.URL, key, "mark.hl-cite", src.DocID, &[2]int{src.Span.Start, src.Span.End})
	if !strings.Contains(got, "€") {
		t.Errorf("the late-payment citation %q does not contain the euro amounts", got)
	}

	// Contract text is never markup.
	var hostile struct {
		Elements int  `json:"elements"`
		Pwned    bool `json:"pwned"`
		Shown    bool `json:"shown"`
	}
	b.run("hostile text", chromedp.Evaluate(`({
		elements: document.querySelectorAll('#doc-text img, #doc-text script').length,
		pwned: window.pwned !== undefined,
		shown: document.getElementById('doc-text').textContent.includes('<img src=x onerror='),
	})`, &hostile))
	if hostile.Elements != 0 || hostile.Pwned || !hostile.Shown {
		t.Errorf("contract HTML was not shown as text: %+v", hostile)
	}

	// A PDF: the cited span in page view is highlighted on the page image.
	b.pageView(srv.URL, key, shots)
	b.noErrors()
}

// pageView uploads a two-page PDF, asks about it, clicks the first
// citation, switches to page view and checks the highlight boxes: over the
// page image, visible, and together exactly the cited span.
func (b *browser) pageView(base, key, shots string) {
	t := b.t
	t.Helper()
	b.run("upload a PDF",
		chromedp.SetUploadFiles("#file-input", []string{abs(t, "testdata/equipment-lease.pdf")}, chromedp.ByQuery),
		chromedp.Poll(`[...document.querySelectorAll('#doc-list .doc-item')].some((b) => b.textContent.includes('equipment-lease'))`, nil, chromedp.WithPollingTimeout(30*time.Second)),
	)
	lease := b.docID("equipment-lease")
	b.run("ask about the lease",
		chromedp.Click(`#doc-list button[data-doc="`+lease+`"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#view-toggle:not([hidden]) #view-page`, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('ask-scope').checked = true; document.getElementById('ask-question').value = ''`, nil),
		chromedp.SendKeys("#ask-question", "How much is the security deposit and when is it returned?"+kb.Enter, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#report #source-1 .source-where')?.textContent.includes('equipment-lease')`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Click(`#source-1 .cite`, chromedp.ByQuery),
		chromedp.WaitVisible(`mark.hl-cite`, chromedp.ByQuery),
	)
	rep := b.report(base, key)
	src := rep.Sources[0]
	b.checkMark(base, key, "mark.hl-cite", src.DocID, &[2]int{src.Span.Start, src.Span.End})

	// Switch with the keyboard: focus the toggle, Enter.
	b.run("page view",
		chromedp.Focus("#view-page", chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#doc-pages .hl-box.hl-cite`, chromedp.ByQuery),
		chromedp.Poll(`(() => {
			const img = document.querySelector('#doc-pages .hl-box').parentElement.querySelector('img');
			return img.complete && img.naturalWidth > 0;
		})()`, nil, chromedp.WithPollingTimeout(20*time.Second)),
	)
	var pv struct {
		Pressed   string `json:"pressed"`
		TextShown bool   `json:"textShown"`
		Boxes     int    `json:"boxes"`
		Start     int    `json:"start"`
		End       int    `json:"end"`
		Contig    bool   `json:"contig"`
		Inside    bool   `json:"inside"`
		Visible   bool   `json:"visible"`
		Page      int    `json:"page"`
		Sel       string `json:"sel"`
	}
	b.run("read the page highlight", chromedp.Evaluate(`(() => {
		const boxes = [...document.querySelectorAll('#doc-pages .hl-box.hl-cite')];
		const view = document.getElementById('doc-pages').getBoundingClientRect();
		let contig = true, inside = true;
		for (let i = 0; i < boxes.length; i++) {
			const r = boxes[i].getBoundingClientRect();
			const img = boxes[i].parentElement.querySelector('img').getBoundingClientRect();
			if (r.width < 2 || r.height < 4 || r.left < img.left - 1 || r.right > img.right + 1 || r.top < img.top - 1 || r.bottom > img.bottom + 1) inside = false;
			// Consecutive boxes are consecutive lines: only white space between them.
			if (i > 0) {
				const gap = state.doc.text.slice(state.doc.cp[+boxes[i-1].dataset.end], state.doc.cp[+boxes[i].dataset.start]);
				if (gap.trim() !== '') contig = false;
			}
		}
		const first = boxes[0].getBoundingClientRect();
		return {
			pressed: document.getElementById('view-page').getAttribute('aria-pressed'),
			textShown: !document.getElementById('doc-text').hidden,
			boxes: boxes.length,
			start: Math.min(...boxes.map((b) => +b.dataset.start)),
			end: Math.max(...boxes.map((b) => +b.dataset.end)),
			contig, inside,
			visible: first.top >= view.top && first.bottom <= view.bottom,
			page: +boxes[0].parentElement.dataset.page,
			sel: document.getElementById('doc-pages').dataset.start + '-' + document.getElementById('doc-pages').dataset.end,
		};
	})()`, &pv))
	t.Logf("page view: %+v; cited span %v", pv, src.Span)
	if pv.Pressed != "true" || pv.TextShown {
		t.Errorf("page view not shown: aria-pressed %q, text view shown %v", pv.Pressed, pv.TextShown)
	}
	if pv.Boxes == 0 || !pv.Inside || !pv.Contig {
		t.Errorf("highlight boxes: %d, inside the page image %v, consecutive lines %v", pv.Boxes, pv.Inside, pv.Contig)
	}
	if pv.Start != src.Span.Start || pv.End != src.Span.End || pv.Sel != fmt.Sprintf("%d-%d", src.Span.Start, src.Span.End) {
		t.Errorf("page highlight covers [%d,%d) (selection %s), want the cited span %v", pv.Start, pv.End, pv.Sel, src.Span)
	}
	if !pv.Visible {
		t.Error("the first highlight box is not scrolled into view")
	}
	if want := pagesOf(t, base, key, lease, src.Span.Start); pv.Page != want {
		t.Errorf("first highlight on page %d, want %d", pv.Page, want)
	}

	// In page view, a search hit on page 2 is highlighted there too.
	var hit struct {
		Start, End, BoxStart, BoxEnd, Page int
	}
	b.run("search in page view",
		chromedp.Evaluate(`document.getElementById('search-query').value = ''`, nil),
		chromedp.SendKeys("#search-query", "security deposit returned"+kb.Enter, chromedp.ByQuery),
		chromedp.WaitVisible(`#hits .hit-open`, chromedp.ByQuery),
		chromedp.Click(`#hits .hit-open`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#doc-pages .hl-box.hl-cite')?.parentElement.dataset.page === '2'`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`Promise.all([...document.querySelectorAll('#doc-pages img[src]')].map((i) => i.decode())).then(() => {
			const boxes = [...document.querySelectorAll('#doc-pages .hl-box.hl-cite')];
			const pages = document.getElementById('doc-pages');
			return {Start: +pages.dataset.start, End: +pages.dataset.end,
				BoxStart: Math.min(...boxes.map((b) => +b.dataset.start)), BoxEnd: Math.max(...boxes.map((b) => +b.dataset.end)),
				Page: +boxes[0].parentElement.dataset.page};
		})`, &hit, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	)
	if hit.BoxStart != hit.Start || hit.BoxEnd != hit.End || hit.Page != 2 {
		t.Errorf("search hit in page view: boxes [%d,%d) on page %d, selection [%d,%d)", hit.BoxStart, hit.BoxEnd, hit.Page, hit.Start, hit.End)
	}
	b.shot(shots, "5-page-view")

	// Back to text: the mark is the same span.
	b.run("text view",
		chromedp.Click("#view-text", chromedp.ByQuery),
		chromedp.WaitVisible(`mark.hl-cite`, chromedp.ByQuery),
	)
	b.checkMark(base, key, "mark.hl-cite", lease, &[2]int{hit.Start, hit.End})
}

// pagesOf returns the page of a document holding code point pos.
func pagesOf(t *testing.T, base, key, id string, pos int) int {
	var d struct {
		Pages []struct {
			Number int `json:"number"`
			Span   struct{ Start, End int }
		} `json:"pages"`
	}
	getJSON(t, base, key, "/api/v1/collections/default/documents/"+id+"?text=0", &d)
	for _, p := range d.Pages {
		if p.Span.Start <= pos && pos < p.Span.End {
			return p.Number
		}
	}
	return 0
}

// needBrowser skips a browser test unless PAKTON_BROWSER=1 and Debian's
// chromium and chromium-driver are installed.
func needBrowser(t *testing.T) {
	t.Helper()
	if os.Getenv("PAKTON_BROWSER") != "1" {
		t.Skip("browser test: set PAKTON_BROWSER=1 to run it (needs Debian chromium and chromium-driver)")
	}
	for _, p := range []string{chromiumPath, chromedriverPath} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("browser test: %s missing (apt-get install -y chromium chromium-driver): %v", p, err)
		}
	}
}

// startAPI starts the real API server (internal/server) with Handler
// mounted at "/", on a loopback port over an empty temporary store, and
// returns it with an admin API key.
func startAPI(t *testing.T) (*httptest.Server, string) {
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	keys, err := auth.Open(t.Context(), st.Dir())
	if err != nil {
		t.Fatal(err)
	}
	key, err := keys.EnsureAdmin(t.Context(), "browser test")
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(t.Context(), server.Config{Store: st, Keys: keys, UI: Handler(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv, key
}

// browser is one headless Chromium tab.
type browser struct {
	t   *testing.T
	ctx context.Context

	mu     sync.Mutex
	errors []string // uncaught exceptions and console errors in the page

	// chromium holds what the browser process writes (its own error log),
	// printed when a step fails.
	chromium *lockedBuffer
}

// lockedBuffer is a buffer the browser's output is copied into while a
// test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func newBrowser(t *testing.T) *browser {
	// Not t.TempDir: Chromium's helper processes may still write to the
	// profile for a moment after the browser exits, failing its cleanup.
	profile, err := os.MkdirTemp("", "pakton-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	out := &lockedBuffer{}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1440, 900),
		chromedp.Flag("enable-logging", "stderr"),
		chromedp.CombinedOutput(out),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() {
		cancelTime()
		cancelTab()
		cancelAlloc()
		for range 20 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	b := &browser{t: t, ctx: ctx, chromium: out}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.errors = append(b.errors, ev.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				b.errors = append(b.errors, "console.error: "+strings.Join(args, " "))
			}
		}
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start %s: %v", chromiumPath, err)
	}
	return b
}

func (b *browser) run(step string, actions ...chromedp.Action) {
	b.t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		// What the page says may tell why (an error banner, the focus).
		var said string
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		chromedp.Run(ctx, chromedp.Evaluate(`(document.getElementById('banner').hidden ? '' : 'banner: ' + document.getElementById('banner').textContent + '; ') +
			'focus: ' + (document.activeElement ? document.activeElement.outerHTML.slice(0, 160) : 'none')`, &said))
		var jobs string
		ctx, cancel = context.WithTimeout(b.ctx, 5*time.Second)
		chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll('.job')].map((j) => (j.dataset.job || '') + ' ' + j.dataset.state + ': ' + j.textContent.slice(0, 300)).join(' | ')`, &jobs))
		cancel()
		// The server runs in this process: its goroutines say where a job
		// or a request waits.
		var stacks strings.Builder
		pprof.Lookup("goroutine").WriteTo(&stacks, 1)
		b.t.Logf("job cards: %s\ngoroutines:\n%s", jobs, clipText(stacks.String(), 30000))
		b.t.Logf("the tab's context: %v (cause %v); the browser process: %s; its output (the end):\n%s",
			b.ctx.Err(), context.Cause(b.ctx), b.processState(), tail(b.chromium.String(), 6000))
		b.t.Fatalf("%s: %v (page errors: %v; %s)", step, err, b.errors, said)
	}
}

// processState says whether the Chromium process is still running: a
// lost tab with a live browser is a lost connection, not a crash.
func (b *browser) processState() string {
	c := chromedp.FromContext(b.ctx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return "not started"
	}
	p := c.Browser.Process()
	if err := p.Signal(syscall.Signal(0)); err != nil {
		return fmt.Sprintf("pid %d gone (%v)", p.Pid, err)
	}
	return fmt.Sprintf("pid %d running", p.Pid)
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func (b *browser) noErrors() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errors {
		b.t.Errorf("page error: %s", e)
	}
}

// shot saves a PNG of the viewport as dir/name.png when dir is set.
func (b *browser) shot(dir, name string) {
	b.t.Helper()
	if dir == "" {
		return
	}
	var png []byte
	b.run("screenshot "+name, chromedp.CaptureScreenshot(&png))
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// docID returns the id of the listed document whose name contains part.
func (b *browser) docID(part string) string {
	b.t.Helper()
	var id string
	b.run("find "+part, chromedp.Evaluate(fmt.Sprintf(
		`([...document.querySelectorAll('#doc-list .doc-item')].find((b) => b.textContent.includes(%q)) || {dataset: {}}).dataset.doc || ''`, part), &id))
	if id == "" {
		b.t.Fatalf("no document named like %q in the list", part)
	}
	return id
}

// checkMark checks that the <mark> matching sel sits in document docID and
// holds exactly the code points [start, end) of the document text the API
// returns; when want is set, the mark must cover that span. It returns the
// marked text.
func (b *browser) checkMark(base, key, sel, docID string, want *[2]int) string {
	b.t.Helper()
	var m struct {
		Doc     string `json:"doc"`
		Start   int    `json:"start"`
		End     int    `json:"end"`
		Text    string `json:"text"`
		Visible bool   `json:"visible"`
	}
	b.run("read "+sel, chromedp.Evaluate(fmt.Sprintf(`(() => {
		const m = document.querySelector(%q);
		const pre = document.getElementById('doc-text').getBoundingClientRect();
		const r = m.getBoundingClientRect();
		return {doc: state.doc.id, start: +m.dataset.start, end: +m.dataset.end, text: m.textContent,
			visible: r.top < pre.bottom && r.bottom > pre.top};
	})()`, sel), &m))
	if m.Doc != docID {
		b.t.Fatalf("%s is in document %q, want %q", sel, m.Doc, docID)
	}
	if want != nil && (m.Start != want[0] || m.End != want[1]) {
		b.t.Errorf("%s covers [%d,%d), want [%d,%d)", sel, m.Start, m.End, want[0], want[1])
	}
	text := []rune(fetchText(b.t, base, key, docID))
	if m.Start < 0 || m.End > len(text) || m.Start >= m.End {
		b.t.Fatalf("%s span [%d,%d) outside the document (%d code points)", sel, m.Start, m.End, len(text))
	}
	if exact := string(text[m.Start:m.End]); m.Text != exact {
		b.t.Errorf("%s text differs from the span [%d,%d) of the document:\n got %q\nwant %q", sel, m.Start, m.End, m.Text, exact)
	}
	if !m.Visible {
		b.t.Errorf("%s is not scrolled into view", sel)
	}
	return m.Text
}

// report returns the report on the page, read back from the API by the id
// the ask stream gave it.
func (b *browser) report(base, key string) *report.Report {
	b.t.Helper()
	var id string
	b.run("report id", chromedp.Evaluate(`document.getElementById('report').dataset.reportId || ''`, &id))
	if id == "" {
		b.t.Fatal("the report on the page has no id")
	}
	var saved struct {
		Report *report.Report `json:"report"`
	}
	getJSON(b.t, base, key, "/api/v1/collections/default/reports/"+id, &saved)
	if saved.Report == nil || len(saved.Report.Sources) == 0 {
		b.t.Fatalf("report %s has no sources", id)
	}
	return saved.Report
}

// fetchText returns a document's canonical text from the API.
func fetchText(t *testing.T, base, key, id string) string {
	t.Helper()
	var d struct {
		Text string `json:"text"`
	}
	getJSON(t, base, key, "/api/v1/collections/default/documents/"+id, &d)
	return d.Text
}

func getJSON(t *testing.T, base, key, path string, v any) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil || res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", path, res.StatusCode, err)
	}
}

func abs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// clipText keeps the first n bytes of s.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n…"
}
