package server

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/compare"
)

// An uploaded ZIP is a data room: each entry is a document named by its
// path inside the archive, with its folder; entries that must be refused
// are failed results of the job, and the rest ingest.
func TestUploadDataRoom(t *testing.T) {
	e := newEnv(t, nil)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range map[string]string{
		"01 Corporate/1.1 Supply Agreement.txt": contract("Acme", "two years"),
		"02 Commercial/Licence.rtf":             `{\rtf1\ansi LICENCE AGREEMENT\par This Licence is made between Beta Ltd and Gamma Inc.\par 1.\tab Grant\par The Licensor grants a licence.\par}`,
		"../escape.txt":                         "x",
		"02 Commercial/prices.xlsx":             "PK\x03\x04",
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(data))
	}
	zw.Close()
	key := e.key("room")
	j := e.ingest("room", key, file{"room.zip", buf.String()})
	got := map[string]string{}
	for _, r := range j.Results {
		got[r.Name] = r.Status + " " + r.Reason
	}
	for name, want := range map[string]string{
		"01 Corporate/1.1 Supply Agreement.txt": "added",
		"02 Commercial/Licence.rtf":             "added",
		"../escape.txt":                         "failed refused: the path climbs out",
		"02 Commercial/prices.xlsx":             "skipped unsupported file type",
	} {
		if !strings.HasPrefix(got[name], want) {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
	for _, r := range j.Results {
		if strings.Contains(r.Reason, e.st.Dir()) {
			t.Errorf("a result names the server's path: %q", r.Reason)
		}
	}
	code, body := e.do("GET", "/api/v1/collections/room/documents?folder=02%20commercial", key, nil, "")
	if code != http.StatusOK || !strings.Contains(string(body), `"name":"02 Commercial/Licence.rtf"`) || strings.Contains(string(body), "Supply") {
		t.Fatalf("folder filter: %d %s", code, body)
	}
	if !strings.Contains(string(body), `"folder":"02 Commercial"`) || !strings.Contains(string(body), `"archive":"room.zip"`) {
		t.Errorf("document list lacks folder or archive: %s", body)
	}
	list := decode[struct {
		Documents []docJSON `json:"documents"`
	}](t, body)
	code, body = e.do("GET", "/api/v1/collections/room/documents/"+list.Documents[0].ID, key, nil, "")
	if code != http.StatusOK || !strings.Contains(string(body), `"title":"LICENCE AGREEMENT"`) || !strings.Contains(string(body), `"details":{"display":"Licence Agreement`) {
		t.Errorf("document details: %d %.300s", code, body)
	}
	if strings.Contains(string(body), e.st.Dir()) {
		t.Error("document details name the server's path")
	}
	// Content that does not match its name is refused on arrival.
	code, body = e.upload("room", key, file{"fake.zip", "not a zip at all"})
	if code != http.StatusUnsupportedMediaType || !strings.Contains(string(body), "not a ZIP archive") {
		t.Errorf("fake zip: %d %s", code, body)
	}
}

// The families of a collection and the comparison of two of its documents
// through the API.
func TestFamiliesAndCompare(t *testing.T) {
	e := newEnv(t, nil)
	key := e.key("deal")
	base := contract("Acme", "two years")
	changed := strings.Replace(base, "two years", "five years", 1)
	e.ingest("deal", key, file{"msa.txt", base}, file{"msa-signed.txt", changed}, file{"charter.txt", "TIME CHARTER PARTY\n\nThe Owners let and the Charterers hire the vessel for a period of twelve months.\n\n1. Hire\n\nHire is payable monthly in advance at the rate agreed.\n\n2. Off-hire\n\nNo hire is payable while the vessel is detained or under repair.\n"})
	code, body := e.do("GET", "/api/v1/collections/deal/families", key, nil, "")
	if code != http.StatusOK {
		t.Fatalf("families: %d %s", code, body)
	}
	fams := decode[struct {
		Families []struct {
			Members []struct{ ID, Name string }
			Primary string
		}
	}](t, body)
	if len(fams.Families) != 1 || len(fams.Families[0].Members) != 2 {
		t.Fatalf("families %s", body)
	}
	code, body = e.do("GET", "/api/v1/collections/deal/compare?contract=msa-signed.txt&against=msa.txt", key, nil, "")
	if code != http.StatusOK {
		t.Fatalf("compare: %d %s", code, body)
	}
	r := decode[struct {
		Missing, Added []any
		Changed        []struct {
			Template struct{ Path string }
			Diff     []struct{ Op, Text string }
		}
	}](t, body)
	if len(r.Changed) != 1 || len(r.Missing)+len(r.Added) != 0 || !strings.Contains(string(body), `"op":"-","text":"two"`) {
		t.Errorf("compare: %s", body)
	}
	// The redline: a .docx with the changes tracked, named after both.
	resp, docx := e.get("/api/v1/collections/deal/compare?contract=msa-signed.txt&against=msa.txt&format=docx&author=Legal", key, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != compare.DocxContentType ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), "msa-signed against msa redline.docx") {
		t.Fatalf("redline: %d %v", resp.StatusCode, resp.Header)
	}
	zr, err := zip.NewReader(bytes.NewReader(docx), int64(len(docx)))
	if err != nil {
		t.Fatalf("redline: %v", err)
	}
	found := false
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			found = strings.Contains(string(b), `w:author="Legal"`) && strings.Contains(string(b), "<w:del ")
		}
	}
	if !found {
		t.Error("the redline has no deletion by its author")
	}
	if code, _ := e.do("GET", "/api/v1/collections/deal/compare?contract=msa-signed.txt&against=msa.txt&format=pdf", key, nil, ""); code != http.StatusBadRequest {
		t.Errorf("compare as PDF: %d", code)
	}
	if code, _ := e.do("GET", "/api/v1/collections/deal/compare?contract=msa.txt", key, nil, ""); code != http.StatusBadRequest {
		t.Errorf("compare without against: %d", code)
	}
	if code, _ := e.do("GET", "/api/v1/collections/deal/compare?contract=msa.txt&against=nope.txt", key, nil, ""); code != http.StatusNotFound {
		t.Errorf("compare with an unknown document: %d", code)
	}
	// A document's details name the other copies of its contract.
	var signed string
	for _, m := range fams.Families[0].Members {
		if m.Name == "msa-signed.txt" {
			signed = m.ID
		}
	}
	code, body = e.do("GET", "/api/v1/collections/deal/documents/"+signed+"?text=0", key, nil, "")
	if code != http.StatusOK || !strings.Contains(string(body), `"duplicates":[{"id":"`) || !strings.Contains(string(body), `"name":"msa.txt"`) {
		t.Errorf("details of a family member: %d %.400s", code, body)
	}
	// Another collection's key sees neither the families nor the comparison.
	other := e.key("other")
	for _, path := range []string{"/api/v1/collections/deal/families", "/api/v1/collections/deal/compare?contract=msa.txt&against=msa-signed.txt"} {
		if code, body := e.do("GET", path, other, nil, ""); (code != http.StatusNotFound && code != http.StatusForbidden) || strings.Contains(string(body), "msa") {
			t.Errorf("%s with another collection's key: %d %s", path, code, body)
		}
	}
	// Deleting a copy ends its family: the families follow the collection.
	if code, body := e.do("DELETE", "/api/v1/collections/deal/documents/"+signed, key, nil, ""); code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", code, body)
	}
	code, body = e.do("GET", "/api/v1/collections/deal/families", key, nil, "")
	if code != http.StatusOK || string(bytes.TrimSpace(body)) != `{"families":[]}` {
		t.Errorf("families after deleting a copy: %d %s", code, body)
	}
}
