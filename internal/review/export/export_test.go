package export_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/export"
	"github.com/pakton/pakton/internal/review/reviewtest"
	"github.com/pakton/pakton/internal/store"
)

func TestMain(m *testing.M) {
	var err error
	sharedDir, err = os.MkdirTemp("", "pakton-export-test-")
	if err != nil {
		panic(err)
	}
	code := m.Run()
	if sharedStore != nil {
		sharedStore.Close()
	}
	os.RemoveAll(sharedDir)
	os.Exit(code)
}

var (
	sharedDir   string
	shared      sync.Once
	sharedStore *store.Store
)

// fixture reviews the example contracts and records three decisions.
func fixture(t *testing.T) *export.Review {
	t.Helper()
	shared.Do(func() { sharedStore = reviewtest.StoreAt(t, sharedDir, "deal") })
	st := sharedStore
	tab, _, err := (&review.Run{Store: st, Collection: "deal", Reviewer: reviewtest.Reviewer(t)}).Table(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// One unreadable contract, as the runner reports it.
	tab.Rows = append(tab.Rows, review.Row{DocID: "broken", DocName: "broken.pdf", Error: "cannot read the document: damaged"})
	var found *review.Cell
	for i := range tab.Rows[0].Cells {
		if tab.Rows[0].Cells[i].Found {
			found = &tab.Rows[0].Cells[i]
			break
		}
	}
	if found == nil {
		t.Fatal("the fixture's first contract has no found cell")
	}
	row0 := tab.Rows[0]
	ds := review.Decisions{}.
		Set(review.Decision{DocID: row0.DocID, Provision: found.Provision, Verdict: review.Accepted}).
		Set(review.Decision{DocID: row0.DocID, Provision: "Source Code Escrow", Verdict: review.Corrected, Text: "Escrow <with> Iron Mountain & co", Value: "Yes", Note: "see schedule"})
	return &export.Review{Table: tab, Decisions: ds, Collection: "deal", Created: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC),
		Text: func(id string) (string, error) {
			rec, err := st.Document("deal", id)
			if err != nil {
				return "", err
			}
			return rec.Doc.Text, nil
		}}
}

func TestCSV(t *testing.T) {
	rv := fixture(t)
	var buf bytes.Buffer
	if err := export.CSV(&buf, rv); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(rv.Table.Rows)+1 {
		t.Fatalf("%d records, want header + %d", len(recs), len(rv.Table.Rows))
	}
	head := recs[0]
	if want := 3 + 4*len(rv.Table.Provisions); len(head) != want {
		t.Fatalf("%d columns, want %d", len(head), want)
	}
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %q in %v", name, head)
		return -1
	}
	escrow := col("Source Code Escrow")
	for i, r := range recs[1:] {
		row := rv.Table.Rows[i]
		switch {
		case row.Error != "":
			if r[col("Error")] != row.Error || r[escrow] != "" {
				t.Errorf("error row: %v", r)
			}
		case i == 0:
			if r[escrow] != "Escrow <with> Iron Mountain & co" || r[escrow+2] != "Yes" || r[escrow+3] != "corrected" {
				t.Errorf("corrected cell: %q %q %q", r[escrow], r[escrow+2], r[escrow+3])
			}
		default:
			c := rv.Table.Cell(row.DocID, "Source Code Escrow")
			if !c.Found && r[escrow] != export.NotFound {
				t.Errorf("row %d escrow: %q, want Not found", i, r[escrow])
			}
		}
	}
}

func TestXLSX(t *testing.T) {
	rv := fixture(t)
	var buf bytes.Buffer
	if err := export.XLSX(&buf, rv); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		parts[f.Name], _ = io.ReadAll(rc)
		rc.Close()
		if err := wellFormed(parts[f.Name]); err != nil {
			t.Errorf("%s is not well-formed XML: %v", f.Name, err)
		}
	}
	for _, want := range []string{"[Content_Types].xml", "_rels/.rels", "xl/workbook.xml", "xl/_rels/workbook.xml.rels", "xl/styles.xml", "xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml"} {
		if parts[want] == nil {
			t.Errorf("missing part %s", want)
		}
	}
	sheet1 := cells(t, parts["xl/worksheets/sheet1.xml"])
	if len(sheet1) != len(rv.Table.Rows)+1 {
		t.Fatalf("sheet Review has %d rows, want %d", len(sheet1), len(rv.Table.Rows)+1)
	}
	if got := sheet1[0]; len(got) != len(rv.Table.Provisions)+2 || got[1] != rv.Table.Provisions[0] {
		t.Errorf("header row %v", got)
	}
	nf := 0
	for _, r := range sheet1[1:] {
		for _, v := range r {
			if v == export.NotFound {
				nf++
			}
		}
	}
	if nf == 0 {
		t.Error("no \"Not found\" cell in the Review sheet")
	}
	sources := cells(t, parts["xl/worksheets/sheet2.xml"])
	found := 0
	for _, row := range rv.Table.Rows {
		for _, c := range row.Cells {
			if c.Found {
				found += len(c.Extracts)
			}
		}
	}
	// one row per extract of a found cell, plus the corrected "Not found".
	if len(sources)-1 != found+1 {
		t.Errorf("Sources sheet has %d rows, want %d", len(sources)-1, found+1)
	}
	var decisions int
	for _, r := range sources[1:] {
		if len(r) > 12 && r[12] != "" {
			decisions++
		}
	}
	if decisions < 2 {
		t.Errorf("Sources sheet shows %d decisions, want at least 2", decisions)
	}

	// A real spreadsheet reader, when one is installed.
	python := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import openpyxl").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Log("openpyxl not installed (apt-get install python3-openpyxl): skipping the check with a real reader")
		return
	}
	path := filepath.Join(t.TempDir(), "review.xlsx")
	os.WriteFile(path, buf.Bytes(), 0o644)
	out, err := exec.Command(python, "-c", `import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
print(wb.sheetnames, wb["Review"].max_row, wb["Review"].max_column, wb["Sources"].max_row)
print(wb["Review"]["B1"].value)`, path).CombinedOutput()
	if err != nil {
		t.Fatalf("openpyxl cannot read the file: %v\n%s", err, out)
	}
	want := fmt.Sprintf("['Review', 'Sources'] %d %d %d", len(rv.Table.Rows)+1, len(rv.Table.Provisions)+2, len(sources))
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), rv.Table.Provisions[0]) {
		t.Errorf("openpyxl read: %s", out)
	}
}

// wellFormed decodes every token of an XML document.
func wellFormed(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// cells reads a worksheet's inline-string and number cells, row by row
// (empty cells as "").
func cells(t *testing.T, b []byte) [][]string {
	t.Helper()
	var ws struct {
		Rows []struct {
			Cells []struct {
				Ref string `xml:"r,attr"`
				V   string `xml:"v"`
				T   string `xml:"is>t"`
			} `xml:"c"`
		} `xml:"sheetData>row"`
	}
	if err := xml.Unmarshal(b, &ws); err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, r := range ws.Rows {
		var row []string
		for _, c := range r.Cells {
			col := 0
			for _, ch := range c.Ref {
				if ch >= 'A' && ch <= 'Z' {
					col = col*26 + int(ch-'A'+1)
				}
			}
			for len(row) < col-1 {
				row = append(row, "")
			}
			row = append(row, c.T+c.V)
		}
		out = append(out, row)
	}
	return out
}

func TestJSON(t *testing.T) {
	rv := fixture(t)
	var buf bytes.Buffer
	if err := export.JSON(&buf, rv); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Table     review.Table     `json:"table"`
		Decisions review.Decisions `json:"decisions"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Table.Rows) != len(rv.Table.Rows) || len(got.Decisions) != 2 || got.Decisions[1].Note != "see schedule" {
		t.Errorf("round trip: %d rows, decisions %+v", len(got.Table.Rows), got.Decisions)
	}
}

func TestHTML(t *testing.T) {
	rv := fixture(t)
	var buf bytes.Buffer
	if err := export.HTML(&buf, rv); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{`src="http`, `href="http`, `@import`, `url(http`} {
		if strings.Contains(page, bad) {
			t.Errorf("report is not self-contained: has %s", bad)
		}
	}
	if strings.Contains(page, "<with>") || !strings.Contains(page, "Escrow &lt;with&gt; Iron Mountain &amp; co") {
		t.Error("corrected text is not escaped or missing")
	}
	// Every found cell links to a source showing its extract highlighted in
	// the contract text around it.
	for i, row := range rv.Table.Rows {
		for j, c := range row.Cells {
			if !c.Found {
				continue
			}
			anchor := "s-" + itoa(i) + "-" + itoa(j)
			if !strings.Contains(page, `href="#`+anchor+`"`) || !strings.Contains(page, `id="`+anchor+`"`) {
				t.Errorf("cell %s × %s has no link to its source %s", row.DocName, c.Provision, anchor)
			}
		}
	}
	if n := strings.Count(page, "<mark>"); n == 0 {
		t.Error("no highlighted passage")
	}
	if !strings.Contains(page, "cannot read the document") {
		t.Error("the unreadable contract's error is not shown")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestWriteFilesAndFormats(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", export.Formats, false},
		{"all", export.Formats, false},
		{"csv, XLSX,csv", []string{"csv", "xlsx"}, false},
		{"pdf", nil, true},
	}
	for _, c := range cases {
		got, err := export.ParseFormats(c.in)
		if (err != nil) != c.err || strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("ParseFormats(%q) = %v, %v", c.in, got, err)
		}
	}
	rv := fixture(t)
	dir := t.TempDir()
	paths, err := export.WriteFiles(dir, export.Formats, rv)
	if err != nil || len(paths) != 4 {
		t.Fatalf("WriteFiles: %v %v", paths, err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".review-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
