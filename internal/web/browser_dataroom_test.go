package web

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserDataRoom uploads a ZIP data room holding two versions of one
// agreement and another contract: the list shows the agreement once, with
// its other copy one click away and a folder to filter by; the document's
// details show its folder and archive entry and the other copy; comparing
// the two versions shows the changed clause word by word and opens it.
func TestBrowserDataRoom(t *testing.T) {
	needBrowser(t)
	srv, key := startAPI(t)
	msa, err := os.ReadFile(filepath.Join("..", "..", "examples", "contracts", "master-services-agreement.txt"))
	if err != nil {
		t.Fatal(err)
	}
	draft := string(msa)
	executed := strings.Replace(draft, "thirty (30) days", "sixty (60) days", 1)
	if executed == draft {
		t.Fatal("the sample agreement has no \"thirty (30) days\" to change")
	}
	room := filepath.Join(t.TempDir(), "room.zip")
	f, _ := os.Create(room)
	zw := zip.NewWriter(f)
	for name, text := range map[string]string{
		"01 Corporate/MSA draft.txt":    draft,
		"01 Corporate/MSA executed.txt": executed,
		"02 Other/lease.txt":            "LEASE\n\nThe Landlord lets the premises at 1 High Street to the Tenant for five years at a yearly rent payable quarterly.\n",
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(text))
	}
	zw.Close()
	f.Close()
	uploadFiles(t, srv.URL, key, []string{room})
	b := newBrowser(t)
	var rows int
	var list string
	b.run("open the app",
		chromedp.Navigate(srv.URL+"/#key="+key),
		chromedp.WaitVisible("#doc-list .doc-item", chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('#doc-list .family-toggle').length === 1`, nil),
		chromedp.Evaluate(`document.querySelectorAll('#doc-list .doc-item').length`, &rows),
		chromedp.Evaluate(`document.getElementById('doc-list').textContent`, &list),
	)
	if rows != 2 || !strings.Contains(list, "+1 other copy") {
		t.Errorf("one row per family: %d rows:\n%s", rows, list)
	}
	b.run("show the other copy and a folder",
		chromedp.Click(`#doc-list .family-toggle`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('#doc-list .doc-item').length === 3`, nil),
		chromedp.SetValue(`#doc-folder`, "02 Other", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('doc-folder').dispatchEvent(new Event('change'))`, nil),
		chromedp.Poll(`document.querySelectorAll('#doc-list .doc-item').length === 1`, nil),
		chromedp.SetValue(`#doc-folder`, "", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('doc-folder').dispatchEvent(new Event('change'))`, nil),
	)
	exec := b.docID("MSA executed")
	draftID := b.docID("MSA draft")
	var details string
	b.run("open the executed copy's details",
		chromedp.Click(`#doc-list button[data-doc="`+exec+`"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#details-toggle`, chromedp.ByQuery),
		chromedp.Click(`#details-toggle`, chromedp.ByQuery),
		chromedp.WaitVisible(`#details-panel dl.details`, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('details-panel').textContent`, &details),
	)
	for _, want := range []string{"Folder", "01 Corporate", "room.zip", "Same contract", "MSA draft.txt", "Download the text as stored"} {
		if !strings.Contains(details, want) {
			t.Errorf("details lack %q:\n%s", want, details)
		}
	}
	var cmp string
	b.run("compare with the draft",
		chromedp.SetValue(`#compare-against`, draftID, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('.compare-form').requestSubmit()`, nil),
		chromedp.WaitVisible(`#compare .word-diff del`, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('compare').textContent`, &cmp),
	)
	if !strings.Contains(cmp, "Changed (1)") || !strings.Contains(cmp, "thirty") || !strings.Contains(cmp, "sixty") {
		t.Errorf("comparison:\n%s", cmp)
	}
	b.run("open the changed clause",
		chromedp.Evaluate(`document.querySelectorAll('#compare .clause-link')[1].click()`, nil),
		chromedp.WaitVisible(`mark`, chromedp.ByQuery),
	)
	b.noErrors()
}
