package usecase

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pakton/pakton/examples"
	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/graph"
	"github.com/pakton/pakton/internal/ingest"
	"github.com/pakton/pakton/internal/parse/pdftest"
	"github.com/pakton/pakton/internal/store"
)

// emlWith builds an e-mail whose attachments are name → bytes, in order.
func emlWith(subject, body string, atts ...[2]string) []byte {
	var b strings.Builder
	b.WriteString("From: Anna <anna@acme.example>\r\nTo: counsel@firm.example\r\nSubject: " + subject + "\r\nDate: Tue, 3 Mar 2020 10:00:00 +0100\r\nMIME-Version: 1.0\r\n")
	b.WriteString("Content-Type: multipart/mixed; boundary=\"B\"\r\n\r\n--B\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + body + "\r\n")
	for _, a := range atts {
		b.WriteString("--B\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"" + a[0] + "\"\r\nContent-Transfer-Encoding: base64\r\n\r\n")
		b.WriteString(base64.StdEncoding.EncodeToString([]byte(a[1])) + "\r\n")
	}
	b.WriteString("--B--\r\n")
	return []byte(b.String())
}

// orderedZip builds a zip with entries in the order given.
func orderedZip(t testing.TB, entries ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// dataRoom is a ZIP export with numbered folders, Word old and new, an
// e-mail with the contract attached (twice, and a spreadsheet) and a nested
// archive: what Describe and Folders read provenance from.
func dataRoom(t testing.TB) []byte {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "parse", "testdata", "wordproc", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	pdf := string(pdftest.OnePage("LICENCE AGREEMENT", "1. Grant", "The Licensor grants a licence.", "2. Term", "Five years."))
	nested := orderedZip(t, [2]string{"Old Draft.rtf", read("legal.rtf")})
	eml := emlWith("Re: signed licence", "Please find the signed licence attached.",
		[2]string{"Licence Agreement.pdf", pdf}, [2]string{"prices.csv", "a,b\n"}, [2]string{"Licence Agreement.pdf", contractText(31, 2)})
	return orderedZip(t,
		[2]string{"01 Corporate/", ""},
		[2]string{"01 Corporate/1.1 Services Agreement.doc", read("legal.doc")},
		[2]string{"01 Corporate/1.2 Services Agreement.odt", read("legal.odt")},
		[2]string{"01 Corporate/1.3 Services Agreement.docx", read("legal.docx")},
		[2]string{"02 Commercial/2.3 Distribution/Re signed licence.eml", string(eml)},
		[2]string{"02 Commercial/2.3 Distribution/Prices.xlsx", "PK\x03\x04junk"},
		[2]string{"02 Commercial/Archive.zip", string(nested)},
		[2]string{"02 Commercial/damaged.pdf", "%PDF-1.4 this is not a PDF"},
		[2]string{"03 Other/notes.txt", contractText(32, 2)},
	)
}

// TestDescribeDataRoom: a message's details name its attachments' documents
// (a missing one as missing), and the folders count the documents below them.
func TestDescribeDataRoom(t *testing.T) {
	dir := t.TempDir()
	room := writeFile(t, dir, "room.zip", dataRoom(t))
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := ingest.Ingest(context.Background(), st, "room", []string{room}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	infos, err := st.List(t.Context(), "room")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]store.DocInfo{}
	for _, in := range infos {
		byName[in.Name] = in
	}
	msg := "02 Commercial/2.3 Distribution/Re signed licence.eml"
	d, _, err := Describe(t.Context(), st, "room", byName[msg].ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Meta == nil || d.Meta.Message == nil || d.Meta.Message.Subject != "Re: signed licence" {
		t.Fatalf("message meta %+v", d.Meta)
	}
	if len(d.Attachments) != 3 || d.Attachments[0].ID != byName[msg+"/Licence Agreement.pdf"].ID || !d.Attachments[1].Missing {
		t.Errorf("attachments %+v", d.Attachments)
	}
	var fc []string
	for _, f := range Folders(infos) {
		fc = append(fc, f.Folder+"="+strconv.Itoa(f.Docs))
	}
	if want := "01 Corporate=3|02 Commercial=3|02 Commercial/2.3 Distribution=2|02 Commercial/Archive.zip=1|03 Other=1"; strings.Join(fc, "|") != want {
		t.Errorf("folders %q, want %q", strings.Join(fc, "|"), want)
	}
}

// TestCollectionGraph: the collection's graph joins the documents' stored
// graphs (none computed on load after a fresh ingest); one document's view
// gives each reference its target's clause path.
func TestCollectionGraph(t *testing.T) {
	dir := t.TempDir()
	data, err := examples.FS.ReadFile("contracts/master-services-agreement.txt")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "in/msa.txt", data)
	writeFile(t, dir, "in/other.txt", []byte(contractText(7, 3)))
	st, err := store.Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := ingest.Ingest(t.Context(), st, "c", []string{filepath.Join(dir, "in")}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	cg, n, err := CollectionGraph(t.Context(), st, "c", nil)
	if err != nil || n != 0 {
		t.Fatalf("CollectionGraph: %d computed, err %v", n, err)
	}
	stats := cg.Stats()
	if stats[string(graph.NodeDocument)] != 2 || stats[string(graph.EdgeRefersTo)] == 0 || stats[string(graph.EdgeDefines)] < 2 || stats[string(graph.EdgePartOf)] == 0 {
		t.Errorf("collection graph stats %v", stats)
	}
	info, err := docread.FindDoc(t.Context(), st, "c", "msa.txt")
	if err != nil {
		t.Fatal(err)
	}
	rec, g, computed, err := docread.ReadGraph(t.Context(), st, "c", info.ID)
	if err != nil || computed {
		t.Fatalf("ReadGraph: computed %v, err %v", computed, err)
	}
	v := ViewGraph(rec.Tree, g, computed)
	resolved := 0
	for _, r := range v.References {
		if r.Target != nil {
			resolved++
			if r.TargetPath == "" || r.TargetSpan == nil {
				t.Errorf("reference %+v: no target path or span", r)
			}
		}
	}
	if len(v.Definitions) == 0 || resolved == 0 {
		t.Errorf("view: %d definitions, %d resolved references", len(v.Definitions), resolved)
	}
}
