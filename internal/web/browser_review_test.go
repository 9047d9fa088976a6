package web

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/reviewtest"
)

// TestBrowserReview drives the Review tab end to end in headless Chromium:
// upload a playbook, start a review of the example contracts, watch it
// finish, filter the grid, open a cell (its extract highlighted exactly in
// the document view), accept one cell and correct another, and check that
// the decisions are kept by the server and exported.
//
// It runs only with PAKTON_BROWSER=1; screenshots go to PAKTON_SCREENSHOTS.
func TestBrowserReview(t *testing.T) {
	if os.Getenv("PAKTON_BROWSER") != "1" {
		t.Skip("browser test: set PAKTON_BROWSER=1 to run it (needs Debian chromium and chromium-driver)")
	}
	for _, p := range []string{chromiumPath, chromedriverPath} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("browser test: %s missing: %v", p, err)
		}
	}
	srv, key := startAPI(t)
	uploadFiles(t, srv.URL, key, reviewtest.Contracts(t))
	pbFile := filepath.Join(t.TempDir(), "diligence.yaml")
	os.WriteFile(pbFile, reviewtest.PlaybookYAML, 0o644)

	b := newBrowser(t)
	shots := os.Getenv("PAKTON_SCREENSHOTS")
	b.run("open the review tab",
		chromedp.Navigate(srv.URL+"/#key="+key),
		chromedp.WaitVisible("#doc-list .doc-item", chromedp.ByQuery),
		chromedp.Click("#tab-review", chromedp.ByQuery),
		chromedp.WaitVisible("#review-form", chromedp.ByQuery),
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
	b.shot(shots, "review-grid")

	// Filters: one provision, found cells only.
	wantRows := 0
	for _, r := range got.Table.Rows {
		if c := got.Table.Cell(r.DocID, "Governing Law"); c != nil && c.Found {
			wantRows++
		}
	}
	b.run("filter",
		chromedp.SetValue("#review-filter-prov", "0", chromedp.ByQuery),
		chromedp.SetValue("#review-filter-state", "found", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('review-filter-state').dispatchEvent(new Event('input'))`, nil),
		chromedp.Evaluate(`document.querySelectorAll('#review-grid tbody tr').length`, &rows),
	)
	var cols int
	b.run("columns", chromedp.Evaluate(`document.querySelectorAll('#review-grid thead th').length`, &cols))
	if rows != wantRows || cols != 2 {
		t.Errorf("filtered grid: %d rows × %d columns, want %d × 2", rows, cols, wantRows)
	}
	b.run("clear filters", chromedp.Evaluate(`(() => {
		document.getElementById('review-filter-prov').value = '';
		document.getElementById('review-filter-state').value = '';
		document.getElementById('review-filter-state').dispatchEvent(new Event('input'));
	})()`, nil))

	// Open the first found cell: its first extract is highlighted exactly.
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
	b.run("open a cell",
		chromedp.Click(sel, chromedp.ByQuery),
		chromedp.WaitVisible("#review-cell", chromedp.ByQuery),
		chromedp.WaitVisible("#doc-text mark", chromedp.ByQuery),
	)
	span := [2]int{cell.Extracts[0].Span.Start, cell.Extracts[0].Span.End}
	b.checkMark(srv.URL, key, "#doc-text mark", cell.DocID, &span)
	b.shot(shots, "review-cell")

	// Accept it; correct a "Not found" cell of the same contract.
	b.run("accept",
		chromedp.Click("#decide-accept", chromedp.ByQuery),
		chromedp.WaitVisible(sel+" .verdict.accepted", chromedp.ByQuery),
	)
	nf := -1
	for j, c := range got.Table.Rows[ri].Cells {
		if !c.Found {
			nf = j
		}
	}
	if nf >= 0 {
		sel2 := fmt.Sprintf(`#review-grid [data-row="%d"][data-col="%d"]`, ri, nf)
		b.run("correct",
			chromedp.Click(sel2, chromedp.ByQuery),
			chromedp.Click("#decide-correct", chromedp.ByQuery),
			chromedp.WaitVisible("#correct-form", chromedp.ByQuery),
			chromedp.SendKeys("#correct-text", "Schedule 9 escrow arrangement", chromedp.ByQuery),
			chromedp.SendKeys("#correct-value", "Yes", chromedp.ByQuery),
			chromedp.Click("#correct-save", chromedp.ByQuery),
			chromedp.WaitVisible(sel2+" .verdict.corrected", chromedp.ByQuery),
		)
		b.shot(shots, "review-decisions")
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

	// The decisions survive a reload and reach the exports.
	var badges int
	b.run("reload",
		chromedp.Reload(),
		chromedp.WaitVisible("#tab-review", chromedp.ByQuery),
		chromedp.Click("#tab-review", chromedp.ByQuery),
		chromedp.WaitVisible("#review-grid .verdict", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#review-grid .verdict').length`, &badges),
		chromedp.Evaluate(`exportReview('csv')`, nil),
	)
	if want := 1 + btoi(nf >= 0); badges != want {
		t.Errorf("%d decision badges after a reload, want %d", badges, want)
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
	time.Sleep(200 * time.Millisecond) // let the download's promise settle before reading errors
	b.noErrors()
}

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
	for range 300 {
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
