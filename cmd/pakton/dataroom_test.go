package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/config"
)

const template = `SERVICES AGREEMENT

This Agreement is made between Orion Analytics Ltd ("Orion") and Vega Robotics Inc ("Vega").

1. Services

1.1 Orion shall perform the Services with reasonable skill and care.

1.2 Orion shall deliver a monthly report to Vega.

2. Payment

2.1 Vega shall pay each invoice within thirty (30) days of receipt.

3. Confidentiality

3.1 Each party shall keep the other party's Confidential Information secret.

4. Governing Law

4.1 This Agreement is governed by the laws of England and Wales, and Orion and Vega submit to its courts.
`

// TestDataRoomCLI ingests a ZIP data room, shows a document, its text
// exactly as stored and its folder, lists the families and compares two
// versions.
func TestDataRoomCLI(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(config.EnvStore, filepath.Join(dir, "store"))
	t.Setenv(config.EnvCollection, "room")
	executed := strings.Replace(template, "within thirty (30) days", "within sixty (60) days", 1)
	executed = strings.Replace(executed, "3. Confidentiality\n\n3.1 Each party shall keep the other party's Confidential Information secret.\n\n", "", 1)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, text := range map[string]string{"01 Corporate/MSA draft.txt": template, "01 Corporate/MSA executed.txt": executed, "02 Other/notes.md": "# Notes\n\nNothing to see: call Ann about the office lease and the parking spaces.\n"} {
		w, _ := zw.Create(name)
		w.Write([]byte(text))
	}
	zw.Close()
	room := filepath.Join(dir, "room.zip")
	os.WriteFile(room, buf.Bytes(), 0o644)
	if _, _, err := capture(t, runIngest, "-q", room); err != nil {
		t.Fatal(err)
	}
	out, _, err := capture(t, runDocs, "show", "MSA draft")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"01 Corporate/MSA draft.txt", "Folder", "01 Corporate", "Archive", "room.zip", "Same contract", "MSA executed.txt", "Names"} {
		if !strings.Contains(out, want) {
			t.Errorf("docs show lacks %q:\n%s", want, out)
		}
	}
	text, _, err := capture(t, runDocs, "show", "--text", "MSA draft")
	if err != nil || text != template {
		t.Errorf("docs show --text is not the stored text: %v\n%q", err, text)
	}
	out, _, err = capture(t, runDocs, "--folder", "02 other")
	if err != nil || !strings.Contains(out, "notes.md") || strings.Contains(out, "MSA") {
		t.Errorf("docs --folder: %v\n%s", err, out)
	}
	out, _, err = capture(t, runDocs, "families")
	if err != nil || !strings.Contains(out, "2 documents") {
		t.Errorf("docs families: %v\n%s", err, out)
	}
	out, _, err = capture(t, runCompare, "MSA executed", "--against", "MSA draft", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Missing []struct{ Path, Heading string }
		Changed []struct {
			Template, Contract struct{ Path string }
			Diff               []struct{ Op, Text string }
		}
		Added []struct{ Path string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Missing) != 1 || r.Missing[0].Path != "3" || r.Missing[0].Heading != "Confidentiality" {
		t.Errorf("missing %+v", r.Missing)
	}
	if len(r.Changed) != 1 || r.Changed[0].Template.Path != "2 > 2.1" || len(r.Added) != 0 {
		t.Errorf("changed %+v, added %+v", r.Changed, r.Added)
	}
	// The redline: a .docx whose tracked changes turn the draft into the
	// executed copy (two names: the base first).
	docx := filepath.Join(dir, "redline.docx")
	if _, _, err := capture(t, runCompare, "MSA draft", "MSA executed", "--redline", docx, "--author", "Legal"); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(docx)
	if err != nil {
		t.Fatalf("redline: %v", err)
	}
	var body []byte
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			rc, _ := f.Open()
			body, _ = io.ReadAll(rc)
			rc.Close()
		}
	}
	zr.Close()
	if !strings.Contains(string(body), `w:author="Legal"`) || !strings.Contains(string(body), ">sixty</w:t></w:r></w:ins>") || !strings.Contains(string(body), ">thirty</w:delText>") {
		t.Errorf("redline document.xml:\n%s", body)
	}
	if _, _, err := capture(t, runCompare, "MSA executed", "--against", "MSA draft", "--redline", filepath.Join(dir, "redline.pdf")); err == nil {
		t.Error("--redline accepted a file that is not .docx")
	}
	// In words: the changed period is substantive.
	out, _, err = capture(t, runCompare, "MSA executed", "--against", "MSA draft")
	if err != nil || !strings.Contains(out, "1 changed (1 substantive)") || !strings.Contains(out, "SUBSTANTIVE: “30” → “60”") {
		t.Errorf("compare: %v\n%s", err, out)
	}
	// A file on disk can be the template.
	tpl := filepath.Join(dir, "form.txt")
	os.WriteFile(tpl, []byte(template), 0o644)
	out, _, err = capture(t, runCompare, "MSA draft", "--against", tpl)
	if err != nil || !strings.Contains(out, "0 changed (0 substantive), 0 missing, 0 added") {
		t.Errorf("compare against a file: %v\n%s", err, out)
	}
}
