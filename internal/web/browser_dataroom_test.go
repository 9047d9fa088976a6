package web

import (
	"archive/zip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestBrowserDataRoom uploads a ZIP data room holding two versions of one
// agreement and another contract: the list shows the agreement once, with
// its other copy one click away and a folder to filter by; the document's
// details show its folder and archive entry and the other copy; comparing
// the two versions (the form starts on the other version) shows them side
// by side over the main width, the changed clause word by word and marked
// substantive, offers the redline, and opens the clause. Screenshots
// (PAKTON_SCREENSHOTS): compare-side-by-side, phone-compare.
func TestBrowserDataRoom(t *testing.T) {
	needBrowser(t)
	shots := os.Getenv("PAKTON_SCREENSHOTS")
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
	var cmp, against string
	var wide bool
	b.run("compare with the other version, the form's default",
		chromedp.EmulateViewport(1440, 900),
		chromedp.Evaluate(`document.getElementById('compare-against').value`, &against),
		chromedp.Evaluate(`document.querySelector('.compare-form').requestSubmit()`, nil),
		chromedp.WaitVisible(`#compare .cmp-table del`, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('compare').textContent`, &cmp),
		// The comparison takes the width of the questions and the document.
		chromedp.Evaluate(`document.getElementById('compare').getBoundingClientRect().width > 0.65 * innerWidth &&
			document.querySelector('main .work').offsetParent === null && document.getElementById('doc-section').offsetParent === null`, &wide),
	)
	if against != draftID {
		t.Errorf("the form starts on %q, not the other version %q", against, draftID)
	}
	if !wide {
		t.Error("the comparison does not take the main width")
	}
	// The sides are named as people name the contract, the file after it.
	if !regexp.MustCompile(`Template: [^()]+ — [^()]+ \(01 Corporate/MSA draft\.txt\)`).MatchString(cmp) {
		t.Errorf("the template is not named by its title, file after it:\n%s", cmp)
	}
	for _, want := range []string{"1 changed (1 substantive)", "thirty", "sixty", "Substantive: “30” → “60”", "Download redline (.docx)"} {
		if !strings.Contains(cmp, want) {
			t.Errorf("comparison lacks %q:\n%s", want, cmp)
		}
	}
	b.shot(shots, "compare-side-by-side")
	// The redline the button downloads: a .docx named after both versions.
	var redline string
	b.run("the redline",
		chromedp.Evaluate(`fetch(API + coll() + '/compare?contract=`+exec+`&against=`+draftID+`&format=docx', { headers: headers() })
			.then((r) => r.headers.get('Content-Type') + ' ' + exportName(r.headers.get('Content-Disposition')))`, &redline,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	)
	if redline != "application/vnd.openxmlformats-officedocument.wordprocessingml.document MSA executed against MSA draft redline.docx" {
		t.Errorf("redline: %q", redline)
	}
	b.run("on a phone",
		chromedp.EmulateViewport(390, 844),
		chromedp.Evaluate(`document.getElementById('compare').scrollIntoView()`, nil),
	)
	b.shot(shots, "phone-compare")
	b.run("open the changed clause",
		chromedp.EmulateViewport(1440, 900),
		chromedp.Evaluate(`document.querySelectorAll('#compare .clause-link')[1].click()`, nil),
		chromedp.WaitVisible(`mark`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById('compare').hidden && !document.querySelector('main.layout').classList.contains('comparing')`, nil),
	)
	b.noErrors()
}
