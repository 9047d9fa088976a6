package review_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/playbook"
	"github.com/pakton/pakton/internal/search"
	"github.com/pakton/pakton/internal/store"
)

const supplyText = "SUPPLY AGREEMENT\n\nThis Supply Agreement is made on 3 March 2020 by and between Acme Widgets, Inc., a Delaware corporation (\"Acme\"), and Borealis Foods LLC, a Texas limited liability company (\"Buyer\").\n\n1. Supply. Acme shall supply the Products to Buyer.\n\n2. Governing Law. This Agreement is governed by the laws of the State of New York.\n\n3. Term. This Agreement continues for three years.\n"

const licenceText = "LICENCE AGREEMENT\n\nThis Licence Agreement is made on 1 June 2021 between Zenith Software Ltd. (\"Zenith\") and Orion Bank, N.A. (\"Licensee\").\n\n1. Licence. Zenith grants Licensee a licence to use the Software.\n\n2. Governing Law. This Agreement is governed by the laws of England and Wales.\n"

// coverEmail is a cover e-mail with the supply agreement attached.
func coverEmail() string {
	var b strings.Builder
	b.WriteString("From: Anna Berg <anna@acme.example>\r\nTo: counsel@firm.example\r\nSubject: Executed supply agreement\r\nDate: Tue, 3 Mar 2020 10:00:00 +0100\r\nMIME-Version: 1.0\r\n")
	b.WriteString("Content-Type: multipart/mixed; boundary=\"B\"\r\n\r\n--B\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nDear counsel,\r\n\r\nPlease find attached the executed supply agreement with Borealis. The governing law is New York, as discussed.\r\n\r\nKind regards,\r\nAnna\r\n")
	b.WriteString("--B\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename=\"Supply Agreement.txt\"\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	b.WriteString(base64.StdEncoding.EncodeToString([]byte(supplyText)) + "\r\n--B--\r\n")
	return b.String()
}

// A cover e-mail in a ZIP data room is correspondence: kept, searchable and
// linked to its attachment, but not reviewed as a contract unless asked;
// the contract it carries is.
func TestCorrespondenceNotReviewed(t *testing.T) {
	dir := t.TempDir()
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, text := range map[string]string{"room/01 Cover/cover.eml": coverEmail(), "room/02 Commercial/Licence.txt": licenceText} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(text))
	}
	zw.Close()
	zipPath := filepath.Join(dir, "room.zip")
	if err := os.WriteFile(zipPath, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, err := ingest.Ingest(ctx, st, "deal", []string{zipPath}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	infos, err := st.List(ctx, "deal")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	var mailID string
	for _, in := range infos {
		nm, err := docread.DocNames(ctx, st, "deal", in.ID)
		if err != nil {
			t.Fatal(err)
		}
		kinds[in.Name] = nm.Correspondence
		if strings.HasSuffix(in.Name, "cover.eml") {
			mailID = in.ID
		}
	}
	if len(infos) != 3 || mailID == "" {
		t.Fatalf("documents: %v", kinds)
	}
	for name, k := range kinds {
		if want := map[bool]string{true: "e-mail", false: ""}[strings.HasSuffix(name, "cover.eml")]; k != want {
			t.Errorf("%s: correspondence %q, want %q", name, k, want)
		}
	}
	// Searchable: its words find it.
	ix, err := ingest.LoadIndex(ctx, st, "deal")
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(ctx, search.Query{Text: "please find attached the executed agreement", K: 3})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].DocID != mailID {
		t.Errorf("the e-mail is not found by its words: %+v %v", res.Hits, err)
	}
	for _, in := range infos {
		// The index holds what the stored names say (deal-room questions
		// read it there).
		if nm, ok := ix.DocNames(in.ID); !ok || nm.Correspondence != kinds[in.Name] {
			t.Errorf("%s: the index says correspondence %q (%v), the stored names %q", in.Name, nm.Correspondence, ok, kinds[in.Name])
		}
	}
	if d := ix.DocDisplay(mailID); !strings.HasPrefix(d, "E-mail: Executed supply agreement") {
		t.Errorf("the e-mail is shown as %q", d)
	}
	// Not reviewed as a contract; listed as left out.
	pb := &playbook.Playbook{Name: "x", Provisions: []playbook.Provision{{Name: "Governing Law", Definition: "The law that governs the agreement.", Answer: playbook.AnswerText}}}
	rev, err := review.NewReviewer(pb, nil)
	if err != nil {
		t.Fatal(err)
	}
	tab, _, err := (&review.Run{Store: st, Collection: "deal", Reviewer: rev}).Table(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range tab.Rows {
		rows = append(rows, r.DocName)
		if r.DocTitle == "" {
			t.Errorf("row %s has no title", r.DocName)
		}
	}
	if len(rows) != 2 || slices.ContainsFunc(rows, func(n string) bool { return strings.HasSuffix(n, "cover.eml") }) || len(tab.Correspondence) != 1 {
		t.Errorf("rows %v, left out %v", rows, tab.Correspondence)
	}
	// Unless asked.
	tab, _, err = (&review.Run{Store: st, Collection: "deal", Reviewer: rev, IncludeCorrespondence: true}).Table(ctx)
	if err != nil || len(tab.Rows) != 3 || len(tab.Correspondence) != 0 {
		t.Errorf("with correspondence: %d rows, left out %v, %v", len(tab.Rows), tab.Correspondence, err)
	}
}
