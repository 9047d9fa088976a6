package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/pakton/pakton/internal/review/reviewtest"
)

// gridProvisions are the built-in provisions the density test reviews:
// those whose answer is a value or a Yes/No (narrowing a review to the
// provisions a deal turns on is what a reviewer does).
var gridProvisions = []string{
	"Parties", "Agreement Date", "Governing Law", "Expiration Date", "Renewal Term",
	"Notice Period to Terminate Renewal", "Termination for Convenience", "Cap on Liability",
	"Liquidated Damages", "Source Code Escrow", "Most Favored Nation", "Non-Compete",
}

// TestBrowserReviewGrid measures the review grid and the reader on a deal
// room of 31 contracts (the five examples, 25 CUAD contracts and a CUAD
// PDF from ../shared/data, skipped when absent) reviewed with 12 built-in
// provisions:
//
//   - at 1440×900 at least 15 contracts × 8 provisions are fully in view,
//     and the header row and contract column stay while the grid scrolls;
//   - the evidence panel is beside the grid, not below it;
//   - reading a cell's contract gives it most of the width; the PDF's text
//     view flows (fewer paragraph breaks than lines) with its page
//     numbers hidden (shown on request), and its page view is at least
//     700 px wide at the default zoom;
//   - at 390×844 nothing is wider than the window and a cell opens its
//     panel.
//
// Screenshots (PAKTON_SCREENSHOTS): review-grid, review-decisions, review-reader,
// review-page-view, phone-review-grid, phone-review-cell.
func TestBrowserReviewGrid(t *testing.T) {
	needBrowser(t)
	cuad := filepath.Join("..", "..", "..", "shared", "data", "legalbenchrag", "corpus", "cuad")
	pdf := filepath.Join("..", "..", "..", "shared", "data", "cuad", "pdf", "PHREESIA,INC_05_28_2019-EX-10.18-STRATEGIC ALLIANCE AGREEMENT.pdf")
	ents, err := os.ReadDir(cuad)
	if err != nil {
		t.Skipf("needs the CUAD contracts of ../shared/data: %v", err)
	}
	if _, err := os.Stat(pdf); err != nil {
		t.Skipf("needs a CUAD PDF of ../shared/data: %v", err)
	}
	files := reviewtest.Contracts(t)
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	for _, n := range names[:25] {
		files = append(files, filepath.Join(cuad, n))
	}
	files = append(files, pdf)
	srv, key := startAPI(t)
	uploadFiles(t, srv.URL, key, files)
	id := startAndWait(t, srv.URL, key, map[string]any{"playbook": "builtin", "provisions": gridProvisions, "title": "Deal room"})

	b := newBrowser(t)
	shots := os.Getenv("PAKTON_SCREENSHOTS")
	b.run("open the review",
		chromedp.EmulateViewport(1440, 900),
		chromedp.Navigate(srv.URL+"/#key="+key),
		chromedp.WaitVisible("#doc-list .doc-item", chromedp.ByQuery),
		chromedp.Click("#tab-review", chromedp.ByQuery),
		chromedp.WaitVisible("#review-grid tbody tr", chromedp.ByQuery),
		chromedp.Poll(`document.getElementById('review-pick').value === `+strconvQuote(id), nil),
	)
	d := b.density()
	t.Logf("at 1440×900: %d contracts × %d provisions fully in view (grid %.0f×%.0f px, panel at x=%.0f, grid ends at x=%.0f)",
		d.Rows, d.Cols, d.W, d.H, d.PanelLeft, d.GridRight)
	if d.Rows < 15 || d.Cols < 8 {
		t.Errorf("at 1440×900 %d contracts × %d provisions are in view, want at least 15 × 8", d.Rows, d.Cols)
	}
	if d.PanelLeft < d.GridRight-1 || d.PanelTop > d.GridTop+1 {
		t.Errorf("the evidence panel (x=%.0f, y=%.0f) is not beside the grid (right edge %.0f, top %.0f)", d.PanelLeft, d.PanelTop, d.GridRight, d.GridTop)
	}
	// A 1440×900 screen shows a browser window's toolbars too: its page is
	// about 1440×789 (Chrome on a Mac); the grid holds 15 × 8 there too.
	b.run("a window on a 1440×900 screen", chromedp.EmulateViewport(1440, 789))
	w := b.density()
	t.Logf("at 1440×789 (a browser window on a 1440×900 screen): %d contracts × %d provisions fully in view", w.Rows, w.Cols)
	if w.Rows < 15 || w.Cols < 8 {
		t.Errorf("at 1440×789 %d contracts × %d provisions are in view, want at least 15 × 8", w.Rows, w.Cols)
	}
	b.run("back to 1440×900", chromedp.EmulateViewport(1440, 900))
	// How long a CUAD-sized review (468 contracts × 51 provisions, made of
	// this review's cells) takes to draw and to filter: logged, not
	// asserted (a shared machine's timings say little).
	var big struct{ Draw, Rest, Filter float64 }
	b.run("a large grid", chromedp.Evaluate(`(() => {
		const cur = rv.current, t = cur.table;
		const provs = [];
		for (let k = 0; provs.length < 51; k++) provs.push(t.provisions[k % t.provisions.length] + (k >= t.provisions.length ? ' #' + k : ''));
		const rows = [];
		for (let k = 0; rows.length < 468; k++) {
			const r = t.rows[k % t.rows.length];
			rows.push(Object.assign({}, r, {doc_id: r.doc_id + '-' + k, doc_name: r.doc_name + ' #' + k,
				cells: provs.map((p, j) => Object.assign({}, r.cells[j % r.cells.length], {provision: p}))}));
		}
		let t0 = performance.now();
		showTable(Object.assign({}, cur.review, {id: 'large'}), {playbook: t.playbook, provisions: provs, rows}, [], false);
		const draw = performance.now() - t0;
		t0 = performance.now();
		finishGrid();
		const rest = performance.now() - t0;
		t0 = performance.now();
		document.getElementById('review-filter-answer').value = 'no';
		renderGrid();
		const filter = performance.now() - t0;
		document.getElementById('review-filter-answer').value = '';
		showTable(cur.review, cur.table, cur.decisions, false);
		return {Draw: draw, Rest: rest, Filter: filter};
	})()`, &big))
	t.Logf("a 468 × 51 grid (23,868 cells): its first %d rows are drawn in %.0f ms, the other rows in %.0f ms more (in the background); filtering it to No takes %.0f ms",
		60, big.Draw, big.Rest, big.Filter)
	// Sticky: scrolled to the far corner, the header row and the contract
	// column are still where they were.
	var sticky struct{ HeadTop, WrapTop, NameLeft, WrapLeft float64 }
	b.run("scroll the grid", chromedp.Evaluate(`(() => {
		const w = document.getElementById('grid-wrap');
		w.scrollTop = w.scrollHeight; w.scrollLeft = w.scrollWidth;
		const r = w.getBoundingClientRect();
		return {HeadTop: document.querySelector('#review-grid thead th:nth-child(3)').getBoundingClientRect().top, WrapTop: r.top,
			NameLeft: document.querySelector('#review-grid tbody tr:last-child th').getBoundingClientRect().left, WrapLeft: r.left};
	})()`, &sticky))
	if sticky.HeadTop > sticky.WrapTop+2 || sticky.NameLeft > sticky.WrapLeft+2 {
		t.Errorf("scrolled, the header row is at %.0f (grid top %.0f) and the contract column at %.0f (grid left %.0f)", sticky.HeadTop, sticky.WrapTop, sticky.NameLeft, sticky.WrapLeft)
	}
	b.run("scroll back", chromedp.Evaluate(`document.getElementById('grid-wrap').scrollTo(0, 0)`, nil))
	// Show the distribution agreement's Termination for Convenience, whose
	// only clause excludes it ("Neither Party may terminate … for
	// convenience"): a No, with the excluding clause as its evidence.
	var picked string
	b.run("pick a cell",
		chromedp.Evaluate(`(() => {
			const t = rv.current.table;
			const i = t.rows.findIndex((r) => r.doc_name.startsWith('distribution-agreement'));
			const j = t.provisions.indexOf('Termination for Convenience');
			moveTo(i, j);
			pickCell(i, j, false);
			return document.getElementById('cell-answer').textContent;
		})()`, &picked),
		chromedp.WaitVisible("#cell-body", chromedp.ByQuery),
	)
	t.Logf("the distribution agreement's Termination for Convenience: %q", picked)
	if strings.HasPrefix(picked, "Yes") {
		t.Errorf("the distribution agreement's Termination for Convenience (\"Neither Party may terminate … for convenience\") shows %q", picked)
	}
	b.shot(shots, "review-grid")

	// Decisions: accept the No (A), correct the agreement's Expiration Date
	// in the panel; the grid marks both.
	var marks int
	b.run("decide",
		chromedp.Evaluate(`document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: 'a', bubbles: true}))`, nil),
		chromedp.Poll(`!!document.querySelector('#review-grid td.open .verdict.accepted')`, nil, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Evaluate(`(() => {
			const t = rv.current.table;
			const i = t.rows.findIndex((r) => r.doc_name.startsWith('distribution-agreement'));
			moveTo(i, t.provisions.indexOf('Expiration Date'));
		})()`, nil),
		chromedp.Click("#decide-correct", chromedp.ByQuery),
		chromedp.SendKeys("#correct-value", "2030-06-30", chromedp.ByQuery),
		chromedp.SendKeys("#correct-note", "extended by the 2026 amendment", chromedp.ByQuery),
		chromedp.Click("#correct-save", chromedp.ByQuery),
		chromedp.Poll(`!!document.querySelector('#review-grid td.open .verdict.corrected')`, nil, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Evaluate(`document.querySelectorAll('#review-grid .verdict').length`, &marks),
	)
	if marks != 2 {
		t.Errorf("%d cells marked reviewed, want 2", marks)
	}
	b.shot(shots, "review-decisions")

	// The PDF's row: open a found cell in the reader.
	var opened bool
	b.run("read the PDF",
		chromedp.Evaluate(`(() => {
			const row = [...document.querySelectorAll('#review-grid tbody tr')].find((r) => (r.querySelector('th').title || '').includes('PHREESIA')); // the row shows the contract's name; its file is in the title
			const b = row && row.querySelector('td:not(.cell-nf) .cell');
			if (!b) return false;
			b.focus();
			return true;
		})()`, &opened),
	)
	if !opened {
		t.Fatal("no found cell in the PDF's row")
	}
	b.run("enter",
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible("#doc-text mark", chromedp.ByQuery),
	)
	var rd struct {
		Doc, Window    float64
		Lines, Breaks  int
		Furn, FurnShow int
		Font           string
	}
	readText := `({Doc: document.getElementById('doc-section').getBoundingClientRect().width, Window: window.innerWidth,
		Lines: state.doc.text.split('\n').length, Breaks: document.querySelectorAll('#doc-text .pb').length,
		Furn: document.querySelectorAll('#doc-text .furn').length,
		FurnShow: [...document.querySelectorAll('#doc-text .furn')].filter((f) => f.getClientRects().length > 0).length,
		Font: getComputedStyle(document.getElementById('doc-text')).whiteSpace})`
	b.run("read the text view", chromedp.Evaluate(readText, &rd))
	t.Logf("reading: contract %.0f of %.0f px; %d lines shown as %d paragraphs; %d furniture spans, %d shown", rd.Doc, rd.Window, rd.Lines, rd.Breaks, rd.Furn, rd.FurnShow)
	if rd.Doc < 0.6*rd.Window {
		t.Errorf("reading a contract: it is %.0f px of a %.0f px window, want most of it", rd.Doc, rd.Window)
	}
	if rd.Breaks == 0 || rd.Breaks*3 > rd.Lines*2 {
		t.Errorf("the PDF's %d lines are %d paragraphs in the text view: its lines do not flow", rd.Lines, rd.Breaks)
	}
	if rd.Furn == 0 || rd.FurnShow != 0 {
		t.Errorf("page furniture: %d spans, %d shown; want some, all hidden", rd.Furn, rd.FurnShow)
	}
	b.shot(shots, "review-reader")
	b.run("show furniture", chromedp.Click("#furniture-toggle", chromedp.ByQuery), chromedp.Evaluate(readText, &rd))
	if rd.FurnShow != rd.Furn {
		t.Errorf("headers & page numbers on: %d of %d furniture spans shown", rd.FurnShow, rd.Furn)
	}
	b.run("hide furniture", chromedp.Click("#furniture-toggle", chromedp.ByQuery))

	var pv struct{ Page, Pane float64 }
	b.run("page view",
		chromedp.Click("#view-page", chromedp.ByQuery),
		chromedp.WaitVisible("#doc-pages .hl-box", chromedp.ByQuery),
		chromedp.Poll(`(() => { const i = document.querySelector('#doc-pages .hl-box').parentElement.querySelector('img'); return i.complete && i.naturalWidth > 0; })()`, nil, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`document.querySelector('#doc-pages .hl-box').parentElement.querySelector('img').decode()`, nil, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
		chromedp.Evaluate(`({Page: document.querySelector('#doc-pages .page').getBoundingClientRect().width, Pane: document.getElementById('doc-pages').getBoundingClientRect().width})`, &pv),
	)
	t.Logf("page view at the default zoom: page %.0f px wide in a %.0f px pane", pv.Page, pv.Pane)
	if pv.Page < 700 {
		t.Errorf("page view: the page is %.0f px wide at the default zoom, want at least 700", pv.Page)
	}
	b.shot(shots, "review-page-view")
	b.run("text view and back to the grid",
		chromedp.Click("#view-text", chromedp.ByQuery),
		chromedp.Click("#cell-back", chromedp.ByQuery),
		chromedp.WaitVisible("#grid-wrap", chromedp.ByQuery),
	)

	// A phone.
	b.run("phone",
		chromedp.EmulateViewport(390, 844),
		chromedp.Reload(),
		chromedp.WaitVisible("#tab-review", chromedp.ByQuery),
		chromedp.Click("#tab-review", chromedp.ByQuery),
		chromedp.WaitVisible("#review-grid tbody tr", chromedp.ByQuery),
		chromedp.Evaluate(`window.scrollTo(0, 0)`, nil),
	)
	b.noOverflow("phone: review grid")
	b.shot(shots, "phone-review-grid")
	b.run("phone: a cell",
		chromedp.Click(`#review-grid tbody tr:nth-child(2) td:nth-child(4) .cell`, chromedp.ByQuery),
		chromedp.WaitVisible("#cell-body", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('review-cell').scrollIntoView({block: 'start'})`, nil),
	)
	b.noOverflow("phone: review cell")
	b.shot(shots, "phone-review-cell")
	b.noErrors()
}

// gridDensity is what of the review grid is in view.
type gridDensity struct {
	Rows, Cols                                    int
	W, H, GridTop, GridRight, PanelLeft, PanelTop float64
}

// density counts the contracts and provisions whose cells are wholly in
// view in the grid: below the sticky header row, right of the sticky
// contract column, inside the grid's pane and the window.
func (b *browser) density() gridDensity {
	b.t.Helper()
	var d gridDensity
	b.run("measure the grid", chromedp.Evaluate(`(() => {
		const w = document.getElementById('grid-wrap').getBoundingClientRect();
		const head = document.querySelector('#review-grid thead').getBoundingClientRect();
		const side = document.querySelector('#review-grid tbody th').getBoundingClientRect();
		const bottom = Math.min(w.bottom, window.innerHeight), right = Math.min(w.right, window.innerWidth);
		const rows = [...document.querySelectorAll('#review-grid tbody tr')].filter((r) => {
			const x = r.getBoundingClientRect();
			return x.top >= head.bottom - 1 && x.bottom <= bottom + 1;
		}).length;
		const cols = [...document.querySelectorAll('#review-grid thead th:not(.corner)')].filter((h) => {
			const x = h.getBoundingClientRect();
			return x.left >= side.right - 1 && x.right <= right + 1;
		}).length;
		const p = document.getElementById('review-cell').getBoundingClientRect();
		return {Rows: rows, Cols: cols, W: w.width, H: w.height, GridTop: w.top, GridRight: w.right, PanelLeft: p.left, PanelTop: p.top};
	})()`, &d))
	return d
}

// startAndWait starts a review of the default collection through the API
// and waits for it to finish; it returns the review's id.
func startAndWait(t *testing.T, base, key string, body map[string]any) string {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", base+"/api/v1/collections/default/reviews", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var started struct {
		Review struct{ ID string } `json:"review"`
	}
	json.NewDecoder(res.Body).Decode(&started)
	res.Body.Close()
	if res.StatusCode >= 300 || started.Review.ID == "" {
		t.Fatalf("start review: %s", res.Status)
	}
	for range 1200 {
		var r struct {
			Review struct{ State, Error string } `json:"review"`
		}
		getJSON(t, base, key, "/api/v1/collections/default/reviews/"+started.Review.ID, &r)
		switch r.Review.State {
		case "done":
			return started.Review.ID
		case "failed", "cancelled":
			t.Fatalf("review %s: %s", r.Review.State, r.Review.Error)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the review did not finish in 2 minutes")
	return ""
}
