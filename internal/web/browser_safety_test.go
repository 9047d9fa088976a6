package web

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserSafeRemoval drives removal in headless Chromium: a document is
// removed only after its confirmation, goes to the server's trash, and
// Undo brings it back; a review deleted in the app stays on the server
// while its undo window runs and Undo keeps it; a collection asks for its
// name to be typed; the provision picker of a new review writes the
// provisions ticked. Screenshots (PAKTON_SCREENSHOTS): the confirmation,
// the undo window and the picker.
func TestBrowserSafeRemoval(t *testing.T) {
	needBrowser(t)
	srv, key := startAPI(t)
	uploadFiles(t, srv.URL, key, []string{
		abs(t, "../../examples/contracts/master-services-agreement.txt"),
		abs(t, "../../examples/contracts/mutual-nda.md"),
	})
	rid := startAndWait(t, srv.URL, key, map[string]any{"playbook": "builtin", "provisions": []string{"Governing Law"}, "title": "Law check"})
	shots := os.Getenv("PAKTON_SCREENSHOTS")
	b := newBrowser(t)
	nda := ""
	b.run("open the app", chromedp.Navigate(srv.URL+"/#key="+key), chromedp.WaitVisible("#doc-list .doc-item", chromedp.ByQuery))
	nda = b.docID("mutual-nda")
	count := func() int {
		var n int
		b.run("count", chromedp.Evaluate(`document.querySelectorAll('#doc-list .doc-item').length`, &n))
		return n
	}
	// Cancel leaves it; Remove removes it; Undo brings it back.
	b.run("ask to remove, then cancel",
		chromedp.Click(`#doc-list button[data-doc="`+nda+`"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#doc-remove", chromedp.ByQuery),
		chromedp.Click("#doc-remove", chromedp.ByQuery),
		chromedp.WaitVisible("#confirm[open]", chromedp.ByQuery),
	)
	b.shot(shots, "remove-confirm")
	b.run("cancel", chromedp.Click("#confirm-cancel", chromedp.ByQuery), chromedp.WaitNotPresent("#confirm[open]", chromedp.ByQuery))
	if count() != 2 {
		t.Fatal("cancelled, yet removed")
	}
	b.run("remove",
		chromedp.Click("#doc-remove", chromedp.ByQuery),
		chromedp.WaitVisible("#confirm[open]", chromedp.ByQuery),
		chromedp.Click("#confirm-ok", chromedp.ByQuery),
		chromedp.WaitVisible("#undo", chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('#doc-list .doc-item').length === 1`, nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	b.shot(shots, "remove-undo")
	var trash struct {
		Trash []struct{ ID string } `json:"trash"`
	}
	getJSON(t, srv.URL, key, "/api/v1/collections/default/trash", &trash)
	if len(trash.Trash) != 1 || trash.Trash[0].ID != nda {
		t.Fatalf("trash %+v", trash)
	}
	b.run("undo",
		chromedp.Click("#undo-button", chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('#doc-list .doc-item').length === 2`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Poll(fmt.Sprintf(`!!(state.doc && state.doc.id === %q)`, nda), nil, chromedp.WithPollingTimeout(10*time.Second)),
	)
	getJSON(t, srv.URL, key, "/api/v1/collections/default/trash", &trash)
	if len(trash.Trash) != 0 {
		t.Errorf("restored, yet in the trash: %+v", trash)
	}

	// A review: hidden at once, kept on the server through the window,
	// and Undo keeps it.
	b.run("delete the review, then undo",
		chromedp.Click("#tab-review", chromedp.ByQuery),
		chromedp.WaitVisible("#review-grid tbody tr", chromedp.ByQuery),
		chromedp.Click("#review-delete", chromedp.ByQuery),
		chromedp.WaitVisible("#confirm[open]", chromedp.ByQuery),
		chromedp.Click("#confirm-ok", chromedp.ByQuery),
		chromedp.WaitVisible("#undo", chromedp.ByQuery),
		chromedp.WaitNotVisible("#review-results", chromedp.ByQuery),
	)
	var reviews struct {
		Reviews []struct{ ID string } `json:"reviews"`
	}
	getJSON(t, srv.URL, key, "/api/v1/collections/default/reviews", &reviews)
	if len(reviews.Reviews) != 1 || reviews.Reviews[0].ID != rid {
		t.Fatalf("deleted before its undo window passed: %+v", reviews)
	}
	b.run("undo the review", chromedp.Click("#undo-button", chromedp.ByQuery), chromedp.WaitVisible("#review-grid tbody tr", chromedp.ByQuery))
	time.Sleep(time.Second)
	getJSON(t, srv.URL, key, "/api/v1/collections/default/reviews", &reviews)
	if len(reviews.Reviews) != 1 {
		t.Errorf("undone, yet deleted: %+v", reviews)
	}

	// The provision picker writes the provisions ticked.
	var provs string
	b.run("pick provisions",
		chromedp.Evaluate(`document.getElementById('review-new').open = true; document.getElementById('review-picker').open = true`, nil),
		chromedp.WaitVisible("#review-picker-list input", chromedp.ByQuery),
		chromedp.Evaluate(`(() => { for (const v of ['Governing Law', 'Cap on Liability']) { const c = [...document.querySelectorAll('#review-picker-list input')].find((i) => i.value === v); c.click(); } })()`, nil),
		chromedp.Value("#review-provisions", &provs, chromedp.ByQuery),
	)
	if provs != "Governing Law, Cap on Liability" {
		t.Errorf("picked %q", provs)
	}
	b.shot(shots, "review-provision-picker")

	// A collection: the name is typed before Delete is possible.
	var disabled bool
	b.run("delete a collection asks for its name",
		chromedp.Click("#collection-delete", chromedp.ByQuery),
		chromedp.WaitVisible("#confirm[open] #confirm-typed", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('confirm-ok').disabled`, &disabled),
	)
	if !disabled {
		t.Error("a collection can be deleted without typing its name")
	}
	var enabled bool
	b.run("type the name",
		chromedp.SendKeys("#confirm-typed", "default", chromedp.ByQuery),
		chromedp.Evaluate(`!document.getElementById('confirm-ok').disabled`, &enabled),
		chromedp.Click("#confirm-cancel", chromedp.ByQuery),
	)
	if !enabled {
		t.Error("the typed name does not enable Delete")
	}
	if n := count(); n != 2 {
		t.Errorf("%d documents after a cancelled collection delete", n)
	}
	b.noErrors()
}
