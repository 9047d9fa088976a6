package web

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/reviewtest"
)

// TestBrowserReview drives the Review tab end to end in headless Chromium:
// upload a playbook, start a review of the example contracts, watch it
// finish, filter the grid, move through it with the keyboard (the evidence
// panel beside the grid follows), open a cell in the reader (its extract
// highlighted exactly, the grid behind Esc), accept one cell and correct
// another from the keyboard and the panel, and check that the decisions
// are kept by the server, marked in the grid and exported.
//
// It runs only with PAKTON_BROWSER=1 (the documented screenshots of the
// review come from TestBrowserReviewGrid, on a larger deal room).
func TestBrowserReview(t *testing.T) {
	needBrowser(t)
	srv, key := startAPI(t)
	uploadFiles(t, srv.URL, key, reviewtest.Contracts(t))
	pbFile := filepath.Join(t.TempDir(), "diligence.yaml")
	os.WriteFile(pbFile, reviewtest.PlaybookYAML, 0o644)

	b := newBrowser(t)
	b.run("open the review tab",
		chromedp.Navigate(srv.URL+"/#key="+key),
		chromedp.WaitVisible("#doc-list .doc-item", chromedp.ByQuery),
		chromedp.Click("#tab-review", chromedp.ByQuery),
		// No review yet: the form to start one is open.
		chromedp.WaitVisible("#review-new[open] #review-form", chromedp.ByQuery),
		chromedp.WaitNotPresent("#ask-form:not([hidden])", chromedp.ByQuery),
	)
	b.run("start a review with an uploaded playbook",
		chromedp.SetValue("#review-playbook", "upload", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('review-playbook').dispatchEvent(new Event('change'))`, nil),
		chromedp.SetUploadFiles("#review-file", []string{pbFile}, chromedp.ByQuery),
		chromedp.SendKeys("#review-title", "Deal room review", chromedp.ByQuery),
		chromedp.Click("#review-start", chromedp.ByQuery),
		// Rows may show while the review runs; the finished table says
		// how many cells were found.
		chromedp.Poll(`document.getElementById('review-status').textContent.includes('cells found')`, nil, chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.WaitVisible("#review-grid tbody tr", chromedp.ByQuery),
	)
	var rows int
	var status string
	b.run("read the grid",
		chromedp.Evaluate(`document.querySelectorAll('#review-grid tbody tr').length`, &rows),
		chromedp.Text("#review-status", &status, chromedp.ByQuery),
	)
	if rows != 5 || !strings.Contains(status, "5 contracts × 4 provisions") {
		t.Fatalf("grid: %d rows, status %q", rows, status)
	}
	// The review as the API has it.
	var list struct {
		Reviews []struct{ ID string } `json:"reviews"`
	}
	getJSON(t, srv.URL, key, "/api/v1/collections/default/reviews", &list)
	if len(list.Reviews) != 1 {
		t.Fatalf("%d reviews", len(list.Reviews))
	}
	id := list.Reviews[0].ID
	var got struct {
		Table     review.Table     `json:"table"`
		Decisions review.Decisions `json:"decisions"`
	}
	getJSON(t, srv.URL, key, "/api/v1/collections/default/reviews/"+id, &got)

	// Every cell is one line: its answer, coloured by answer.
	var cells []struct {
		Row, Col     int
		Class, Text  string
		Height, Line float64
	}
	b.run("read the cells", chromedp.Evaluate(`[...document.querySelectorAll('#review-grid .cell')].map((b) => ({
		Row: +b.dataset.row, Col: +b.dataset.col, Class: b.parentElement.className, Text: b.querySelector('.ans').textContent,
		Height: b.querySelector('.ans').getBoundingClientRect().height, Line: parseFloat(getComputedStyle(b.querySelector('.ans')).lineHeight) || 0}))`, &cells))
	if len(cells) != 20 {
		t.Fatalf("%d cells in the grid, want 20", len(cells))
	}
	for _, c := range cells {
		cell := got.Table.Rows[c.Row].Cells[c.Col]
		want := answerClass(&cell)
		if !strings.Contains(c.Class, want) || c.Text == "" {
			t.Errorf("cell %s × %s: class %q text %q, want %s", cell.DocName, cell.Provision, c.Class, c.Text, want)
		}
		if c.Line > 0 && c.Height > 1.5*c.Line {
			t.Errorf("cell %s × %s takes %.0f px, more than one line (%.0f px)", cell.DocName, cell.Provision, c.Height, c.Line)
		}
	}

	// Filters: one provision, answered cells only.
	wantRows := 0
	for _, r := range got.Table.Rows {
		if c := got.Table.Cell(r.DocID, "Governing Law"); c != nil && c.Found {
			wantRows++
		}
	}
	var cols int
	b.run("filter",
		chromedp.SetValue("#review-filter-prov", "0", chromedp.ByQuery),
		chromedp.SetValue("#review-filter-answer", "answered", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('review-filter-answer').dispatchEvent(new Event('change'))`, nil),
		chromedp.Evaluate(`document.querySelectorAll('#review-grid tbody tr').length`, &rows),
		chromedp.Evaluate(`document.querySelectorAll('#review-grid thead th').length`, &cols),
	)
	if rows != wantRows || cols != 2 {
		t.Errorf("filtered grid: %d rows × %d columns, want %d × 2", rows, cols, wantRows)
	}
	b.run("clear filters",
		chromedp.Click("#review-filter-clear", chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('#review-grid tbody tr').length === 5`, nil),
	)

	// Sorting by a column's answers: a click sorts up, another down, a
	// third restores the table's order.
	var order []string
	readCol := `[...document.querySelectorAll('#review-grid tbody tr')].map((r) => r.querySelector('td .ans').textContent)`
	b.run("sort by Governing Law", chromedp.Click(`#review-grid .sort[data-sort="0"]`, chromedp.ByQuery), chromedp.Evaluate(readCol, &order))
	if !slices.IsSorted(order) {
		t.Errorf("sorted by Governing Law: %q", order)
	}
	b.run("sort down", chromedp.Click(`#review-grid .sort[data-sort="0"]`, chromedp.ByQuery), chromedp.Evaluate(readCol, &order))
	if !slices.IsSortedFunc(order, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Errorf("sorted down by Governing Law: %q", order)
	}
	var names []string
	b.run("unsorted", chromedp.Click(`#review-grid .sort[data-sort="0"]`, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('#review-grid tbody th')].map((h) => h.textContent)`, &names))
	for i, r := range got.Table.Rows {
		want := r.DocTitle // a row is the contract as people name it, or its file when it has no name
		if want == "" {
			want = r.DocName
		}
		if i < len(names) && names[i] != want {
			t.Errorf("after a third click row %d is %q, want the table's order (%q)", i, names[i], want)
		}
	}

	// The keyboard: into the grid, right, down; the panel follows.
	var panel string
	var focus struct{ Row, Col int }
	b.run("keyboard",
		chromedp.Focus(`#review-grid .cell[tabindex="0"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowRight),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.Evaluate(`({Row: +document.activeElement.dataset.row, Col: +document.activeElement.dataset.col})`, &focus),
		chromedp.Text("#cell-title", &panel, chromedp.ByQuery),
	)
	if focus.Row != 1 || focus.Col != 1 || panel != got.Table.Provisions[1] {
		t.Errorf("after → ↓ the focus is on cell %+v with %q in the panel, want (1, 1) and %q", focus, panel, got.Table.Provisions[1])
	}
	// Enter reads the contract at the evidence; Esc comes back.
	kc := got.Table.Rows[1].Cells[1]
	if len(kc.Extracts) > 0 {
		b.run("enter reads the contract",
			chromedp.KeyEvent(kb.Enter),
			chromedp.WaitVisible("#doc-text mark", chromedp.ByQuery),
		)
		b.checkMark(srv.URL, key, "#doc-text mark", kc.DocID, &[2]int{kc.Extracts[0].Span.Start, kc.Extracts[0].Span.End})
		var reading struct {
			Doc, Window float64
			Grid        bool
		}
		b.run("reading layout", chromedp.Evaluate(`({Doc: document.getElementById('doc-section').getBoundingClientRect().width,
			Window: window.innerWidth, Grid: document.getElementById('grid-wrap').getClientRects().length > 0})`, &reading))
		if reading.Doc < 0.6*reading.Window || reading.Grid {
			t.Errorf("reading: the contract is %.0f px of a %.0f px window, grid shown %v; want most of the width", reading.Doc, reading.Window, reading.Grid)
		}
		b.run("esc back to the grid",
			chromedp.KeyEvent(kb.Escape),
			chromedp.WaitVisible("#grid-wrap", chromedp.ByQuery),
			chromedp.Evaluate(`({Row: +document.activeElement.dataset.row, Col: +document.activeElement.dataset.col})`, &focus),
		)
		if focus.Row != 1 || focus.Col != 1 {
			t.Errorf("after Esc the focus is on %+v, want the cell (1, 1)", focus)
		}
	}

	// Open the first found cell with the mouse: its panel shows the answer
	// and the extract; "Open in the contract" highlights it exactly.
	ri, ci := -1, -1
	for i, r := range got.Table.Rows {
		for j, c := range r.Cells {
			if c.Found && ri < 0 {
				ri, ci = i, j
			}
		}
	}
	if ri < 0 {
		t.Fatal("the review found nothing")
	}
	cell := got.Table.Rows[ri].Cells[ci]
	sel := fmt.Sprintf(`#review-grid [data-row="%d"][data-col="%d"]`, ri, ci)
	var quote string
	b.run("open a cell",
		chromedp.Click(sel, chromedp.ByQuery),
		chromedp.WaitVisible("#cell-body", chromedp.ByQuery),
		chromedp.Text("#cell-extracts blockquote", &quote, chromedp.ByQuery),
	)
	if strings.Join(strings.Fields(quote), " ") != strings.Join(strings.Fields(cell.Extracts[0].Text), " ") {
		t.Errorf("panel shows %.80q, want the first extract %.80q", quote, cell.Extracts[0].Text)
	}
	b.run("read it in the contract",
		chromedp.Click("#cell-open", chromedp.ByQuery),
		chromedp.Poll(fmt.Sprintf(`!!(state.doc && state.doc.id === %q && document.querySelector('#doc-text mark'))`, cell.DocID), nil),
	)
	span := [2]int{cell.Extracts[0].Span.Start, cell.Extracts[0].Span.End}
	b.checkMark(srv.URL, key, "#doc-text mark", cell.DocID, &span)
	b.run("back", chromedp.Click("#cell-back", chromedp.ByQuery), chromedp.WaitVisible("#grid-wrap", chromedp.ByQuery))

	// Accept it from the keyboard; correct a "Not found" cell of the same
	// contract in the panel.
	b.run("accept",
		chromedp.Focus(sel, chromedp.ByQuery),
		chromedp.KeyEvent("a"),
		chromedp.Poll(`!!document.querySelector(`+strconvQuote(sel+" .verdict.accepted")+`)`, nil, chromedp.WithPollingTimeout(30*time.Second)),
	)
	nf := -1
	for j, c := range got.Table.Rows[ri].Cells {
		if !c.Found {
			nf = j
		}
	}
	if nf >= 0 {
		sel2 := fmt.Sprintf(`#review-grid [data-row="%d"][data-col="%d"]`, ri, nf)
		var class string
		b.run("correct",
			chromedp.Click(sel2, chromedp.ByQuery),
			chromedp.Click("#decide-correct", chromedp.ByQuery),
			chromedp.WaitVisible("#correct-form", chromedp.ByQuery),
			chromedp.SendKeys("#correct-text", "Schedule 9 escrow arrangement", chromedp.ByQuery),
			chromedp.SendKeys("#correct-value", "Yes", chromedp.ByQuery),
			chromedp.Click("#correct-save", chromedp.ByQuery),
			chromedp.WaitVisible(sel2+" .verdict.corrected", chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelector(`+strconvQuote(sel2)+`).parentElement.className`, &class),
		)
		if !strings.Contains(class, "cell-yes") || !strings.Contains(class, "v-corrected") {
			t.Errorf("corrected cell's class %q, want the corrected answer (cell-yes) marked corrected", class)
		}
	}
	getJSON(t, srv.URL, key, "/api/v1/collections/default/reviews/"+id, &got)
	if d := got.Decisions.Find(cell.DocID, cell.Provision); d == nil || d.Verdict != review.Accepted {
		t.Errorf("accepted decision not kept: %+v", got.Decisions)
	}
	if nf >= 0 {
		p := got.Table.Rows[ri].Cells[nf].Provision
		if d := got.Decisions.Find(cell.DocID, p); d == nil || d.Verdict != review.Corrected || d.Text != "Schedule 9 escrow arrangement" {
			t.Errorf("correction not kept: %+v", got.Decisions)
		}
	}

	// The decisions survive a reload, are filtered on, and reach the exports.
	var badges int
	b.run("reload",
		chromedp.Reload(),
		chromedp.WaitVisible("#tab-review", chromedp.ByQuery),
		chromedp.Click("#tab-review", chromedp.ByQuery),
		chromedp.WaitVisible("#review-grid .verdict", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#review-grid .verdict').length`, &badges),
	)
	if want := 1 + btoi(nf >= 0); badges != want {
		t.Errorf("%d decision marks after a reload, want %d", badges, want)
	}
	b.run("reviewed filter",
		chromedp.SetValue("#review-filter-state", "decided", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('review-filter-state').dispatchEvent(new Event('change'))`, nil),
		chromedp.Evaluate(`document.querySelectorAll('#review-grid tbody tr').length`, &rows),
		chromedp.Evaluate(`document.querySelectorAll('#review-grid td:not(.dim) .cell').length`, &badges),
		chromedp.Click("#review-filter-clear", chromedp.ByQuery),
		chromedp.Evaluate(`exportReview('csv')`, nil),
	)
	if want := 1 + btoi(nf >= 0); rows != 1 || badges != want {
		t.Errorf("reviewed filter: %d rows, %d matching cells; want 1 row, %d cells", rows, badges, want)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/api/v1/collections/default/reviews/"+id+"/export/csv", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(res.Body).ReadAll()
	res.Body.Close()
	if err != nil || len(recs) != 6 || !strings.Contains(fmt.Sprint(recs), "accepted") {
		t.Errorf("csv export: %v %v", err, recs)
	}
	// The download is named as the server names the export (after the
	// review), an ASCII name or an RFC 2231 one alike.
	for _, cd := range []string{res.Header.Get("Content-Disposition"), mime.FormatMediaType("attachment", map[string]string{"filename": "Prüfung 2026-12-06.csv"})} {
		_, params, _ := mime.ParseMediaType(cd)
		var name string
		b.run("export name", chromedp.Evaluate(`exportName(`+strconv.Quote(cd)+`)`, &name))
		if name == "" || name != params["filename"] || strings.HasPrefix(name, "review-default") {
			t.Errorf("export of %q downloads as %q, want %q", cd, name, params["filename"])
		}
	}
	time.Sleep(200 * time.Millisecond) // let the download's promise settle before reading errors
	b.noErrors()
}

// answerClass is the class the grid gives a cell without a decision.
func answerClass(c *review.Cell) string {
	if a := c.Answer; a != nil {
		switch {
		case a.Kind == answer.KindNotFound:
			return "cell-nf"
		case a.Kind == answer.KindValue && a.Text == "":
			return "cell-found"
		}
		return "cell-" + string(a.Kind)
	}
	switch {
	case !c.Found:
		return "cell-nf"
	case strings.EqualFold(c.Value, "yes"):
		return "cell-yes"
	case strings.EqualFold(c.Value, "no"):
		return "cell-no"
	case c.Value != "":
		return "cell-value"
	}
	return "cell-found"
}

func strconvQuote(s string) string { return strconv.Quote(s) }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// uploadFiles uploads files to the default collection and waits for the
// ingest job.
func uploadFiles(t *testing.T, base, key string, paths []string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range paths {
		w, _ := mw.CreateFormFile("file", filepath.Base(p))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	mw.Close()
	req, _ := http.NewRequest("POST", base+"/api/v1/collections/default/documents", &buf)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("upload: %d %s", res.StatusCode, body)
	}
	for range 1800 { // 3 minutes: a loaded machine reads a 46-page PDF slowly
		var job struct {
			Jobs []struct{ State string } `json:"jobs"`
		}
		getJSON(t, base, key, "/api/v1/collections/default/jobs", &job)
		if len(job.Jobs) > 0 && job.Jobs[0].State == "done" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("ingest did not finish")
}
