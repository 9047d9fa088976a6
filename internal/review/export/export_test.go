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
	"html"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/answer"
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
	// A clause that excludes a provision: the cell is not found, its
	// evidence the excluding clause, its answer No.
	excluded(t, tab)
	row0 := tab.Rows[0]
	ds := review.Decisions{}.
		Set(review.Decision{DocID: row0.DocID, Provision: found.Provision, Verdict: review.Accepted}).
		Set(review.Decision{DocID: row0.DocID, Provision: "Source Code Escrow", Verdict: review.Corrected, Text: "Escrow <with> Iron Mountain & co", Value: "Yes", Note: "see schedule"})
	return &export.Review{Table: tab, Decisions: ds, Collection: "deal", Created: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC),
		Text: func(id string) (string, error) {
			rec, err := st.Document(t.Context(), "deal", id)
			if err != nil {
				return "", err
			}
			return rec.Doc.Text, nil
		}}
}

// excluded makes the first "Not found" cell with a candidate, in a row
// after the first, a cell whose evidence excludes its provision (the
// engine's kind "no"), and returns it.
func excluded(t *testing.T, tab *review.Table) *review.Cell {
	t.Helper()
	for i := 1; i < len(tab.Rows); i++ {
		for j := range tab.Rows[i].Cells {
			c := &tab.Rows[i].Cells[j]
			if c.Found || len(c.Extracts) == 0 {
				continue
			}
			e := c.Extracts[0]
			c.Answer = &answer.Answer{Kind: answer.KindNo, Text: "No", Excludes: true,
				Spans: []answer.Span{{Extract: 0, Span: document.Span{Start: e.Span.Start, End: e.Span.Start + min(12, e.Span.Len())}, Role: "exclusion"}}}
			c.Value = ""
			return c
		}
	}
	t.Fatal("the fixture has no Not found cell with a candidate")
	return nil
}

// excludedCell finds the fixture's excluding cell.
func excludedCell(t *testing.T, tab *review.Table) (int, int, *review.Cell) {
	for i := range tab.Rows {
		for j := range tab.Rows[i].Cells {
			if a := tab.Rows[i].Cells[j].Answer; a != nil && a.Excludes {
				return i, j, &tab.Rows[i].Cells[j]
			}
		}
	}
	t.Fatal("no excluding cell in the fixture")
	return 0, 0, nil
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
	if want := 4 + 8*len(rv.Table.Provisions); len(head) != want {
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
	for k, name := range []string{"extract", "confidence", "clause path", "page", "span", "answer span", "decision"} {
		if head[escrow+1+k] != "Source Code Escrow ("+name+")" {
			t.Errorf("column %d is %q, want Source Code Escrow (%s)", escrow+1+k, head[escrow+1+k], name)
		}
	}
	excludedCell(t, rv.Table) // the fixture has one at least
	perParty := 0
	for i, r := range recs[1:] {
		row := rv.Table.Rows[i]
		switch {
		case row.Error != "":
			if r[col("Error")] != row.Error || r[escrow] != "" {
				t.Errorf("error row: %v", r)
			}
			continue
		case i == 0:
			// Corrected: the corrected answer and text, no location (the
			// reviewer's text is not the engine's extract), the verdict.
			if got := r[escrow : escrow+8]; got[0] != "Yes" || got[1] != "Escrow <with> Iron Mountain & co" || got[3] != "" || got[7] != "corrected" {
				t.Errorf("corrected cell: %q", got)
			}
		}
		for _, p := range rv.Table.Provisions {
			c := rv.Table.Cell(row.DocID, p)
			at := col(p)
			got := r[at : at+8]
			if i == 0 && p == "Source Code Escrow" {
				continue
			}
			switch {
			case c.Answer != nil && c.Answer.Excludes:
				// the engine's own excluding cells and the fixture's
				e := c.Extracts[0]
				if got[0] != "No" || !strings.HasPrefix(got[1], strings.TrimSpace(e.Text)) || !strings.HasPrefix(got[5], e.Span.String()) || got[6] != c.Answer.Spans[0].Span.String() {
					t.Errorf("excluding cell %s × %s: %q", row.DocName, p, got)
				}
			case !c.Found:
				if got[0] != export.NotFound || got[3] != "" || got[5] != "" {
					t.Errorf("%s × %s: %q, want Not found without a location", row.DocName, p, got)
				}
			default:
				var spans []string
				for _, e := range c.Extracts {
					spans = append(spans, e.Span.String())
				}
				if got[0] == "" || got[0] == export.NotFound || got[2] != fmt.Sprintf("%.2f", c.Confidence) || got[3] == "" || got[5] != strings.Join(spans, "; ") {
					t.Errorf("%s × %s: %q, want the answer, confidence %.2f, clause path and spans %v", row.DocName, p, got, c.Confidence, spans)
				}
				if c.Answer != nil && len(c.Answer.Spans) > 0 && got[6] == "" {
					t.Errorf("%s × %s: no answer span in %q", row.DocName, p, got)
				}
				if c.Answer != nil && c.Answer.Summary != "" {
					// who holds it, on what terms, is the answer shown
					perParty++
					if got[0] != c.Answer.Summary {
						t.Errorf("%s × %s: answer %q, want the holders' summary %q", row.DocName, p, got[0], c.Answer.Summary)
					}
				}
			}
		}
	}
	if perParty == 0 {
		t.Error("no cell says who holds its provision (the services agreement's termination for convenience does)")
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
	for _, want := range []string{"xl/worksheets/_rels/sheet1.xml.rels", "xl/comments1.xml", "xl/drawings/vmlDrawing1.vml"} {
		if parts[want] == nil {
			t.Errorf("missing part %s", want)
		}
	}
	if !strings.Contains(string(parts["[Content_Types].xml"]), "comments+xml") {
		t.Error("[Content_Types].xml does not declare the comments")
	}
	sheet1 := cells(t, parts["xl/worksheets/sheet1.xml"])
	if len(sheet1) != len(rv.Table.Rows)+1 {
		t.Fatalf("sheet Review has %d rows, want %d", len(sheet1), len(rv.Table.Rows)+1)
	}
	p0 := rv.Table.Provisions[0]
	if got := sheet1[0]; len(got) != 3*len(rv.Table.Provisions)+3 || got[1] != p0 || got[2] != p0+" — clause" || got[3] != p0+" — page" {
		t.Errorf("header row %v", got)
	}
	sources := cells(t, parts["xl/worksheets/sheet2.xml"])
	shead := sources[0]
	scol := func(name string) int {
		for i, h := range shead {
			if h == name {
				return i
			}
		}
		t.Fatalf("Sources has no column %q: %v", name, shead)
		return -1
	}
	// Every answer cell with evidence or a decision links to its first
	// row in Sources: the same contract and provision.
	var ws struct {
		Links []struct {
			Ref      string `xml:"ref,attr"`
			Location string `xml:"location,attr"`
		} `xml:"hyperlinks>hyperlink"`
		Drawing *struct{} `xml:"legacyDrawing"`
	}
	if err := xml.Unmarshal(parts["xl/worksheets/sheet1.xml"], &ws); err != nil {
		t.Fatal(err)
	}
	if ws.Drawing == nil {
		t.Error("the Review sheet does not refer to its comments' drawing")
	}
	linked := map[string]bool{}
	for _, l := range ws.Links {
		r, c := refRC(l.Ref)
		at, ok := strings.CutPrefix(l.Location, "'Sources'!A")
		n, err := strconv.Atoi(at)
		if !ok || err != nil || n < 2 || n > len(sources) {
			t.Errorf("link %s goes to %q", l.Ref, l.Location)
			continue
		}
		src := sources[n-1]
		prov := rv.Table.Provisions[(c-2)/3]
		if (c-2)%3 != 0 || src[0] != rv.Table.Rows[r-2].DocTitle || src[scol("Provision")] != prov {
			t.Errorf("link %s (%s × %s) goes to Sources row %d: %v", l.Ref, rv.Table.Rows[r-2].DocName, prov, n, src[:3])
		}
		linked[l.Ref] = true
	}
	// Comments: the extract of each answer cell with evidence.
	var cm struct {
		List []struct {
			Ref  string `xml:"ref,attr"`
			Text string `xml:"text>t"`
		} `xml:"commentList>comment"`
	}
	if err := xml.Unmarshal(parts["xl/comments1.xml"], &cm); err != nil {
		t.Fatal(err)
	}
	comments := map[string]string{}
	for _, c := range cm.List {
		comments[c.Ref] = c.Text
	}
	if n := strings.Count(string(parts["xl/drawings/vmlDrawing1.vml"]), "<v:shape "); n != len(cm.List) {
		t.Errorf("%d comments but %d shapes to show them", len(cm.List), n)
	}
	excludedCell(t, rv.Table) // the fixture has one at least
	nf, answers := 0, 0
	for i, row := range rv.Table.Rows {
		if row.Error != "" {
			continue
		}
		for j, p := range rv.Table.Provisions {
			c := rv.Table.Cell(row.DocID, p)
			ref := colName(2+3*j) + strconv.Itoa(i+2)
			got := sheet1[i+1][1+3*j]
			switch {
			case i == 0 && p == "Source Code Escrow":
				if got != "Yes ✎ corrected (was: Not found)" || !linked[ref] || !strings.Contains(comments[ref], "Iron Mountain") {
					t.Errorf("corrected cell %s: %q, linked %v, comment %q", ref, got, linked[ref], comments[ref])
				}
			case c.Answer != nil && c.Answer.Excludes:
				if got != "No" || !linked[ref] || !strings.Contains(comments[ref], strings.TrimSpace(c.Extracts[0].Text)[:20]) {
					t.Errorf("excluding cell %s: %q, linked %v, comment %q", ref, got, linked[ref], comments[ref])
				}
			case !c.Found:
				nf++
				if got != export.NotFound || linked[ref] || comments[ref] != "" {
					t.Errorf("Not found cell %s: %q, linked %v, comment %q", ref, got, linked[ref], comments[ref])
				}
			default:
				answers++
				if got == "" || got == export.NotFound || !linked[ref] || !strings.HasPrefix(comments[ref], strings.TrimSpace(c.Extracts[0].Text)[:20]) {
					t.Errorf("found cell %s (%s × %s): %q, linked %v, comment %.40q", ref, row.DocName, p, got, linked[ref], comments[ref])
				}
				if path := sheet1[i+1][2+3*j]; path == "" || !strings.Contains(path, c.Extracts[0].Path) {
					t.Errorf("found cell %s: clause path %q, want %q", ref, path, c.Extracts[0].Path)
				}
			}
		}
	}
	if nf == 0 || answers == 0 {
		t.Errorf("%d Not found cells and %d answers in the Review sheet", nf, answers)
	}
	if got := sheet1[1][len(sheet1[1])-1]; got != "2 of 4" {
		t.Errorf("first contract's Reviewed column: %q, want 2 of 4", got)
	}
	evidence := 0
	for _, row := range rv.Table.Rows {
		for _, c := range row.Cells {
			if c.Found || c.Answer != nil && c.Answer.Excludes {
				evidence += len(c.Extracts)
			}
		}
	}
	// one row per extract of a cell with evidence, plus the corrected "Not found".
	if len(sources)-1 != evidence+1 {
		t.Errorf("Sources sheet has %d rows, want %d", len(sources)-1, evidence+1)
	}
	decisions := 0
	for _, r := range sources[1:] {
		if d := scol("Decision"); len(r) > d && r[d] != "" {
			decisions++
		}
	}
	if decisions < 2 {
		t.Errorf("Sources sheet shows %d decisions, want at least 2", decisions)
	}
	printSetup(t, parts, sheet1)
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
ws = wb["Review"]
print(wb.sheetnames, ws.max_row, ws.max_column, wb["Sources"].max_row)
print(ws["B1"].value)
print(sum(1 for r in ws.iter_rows() for c in r if c.comment), sum(1 for r in ws.iter_rows() for c in r if c.hyperlink))`, path).CombinedOutput()
	if err != nil {
		t.Fatalf("openpyxl cannot read the file: %v\n%s", err, out)
	}
	want := fmt.Sprintf("['Review', 'Sources'] %d %d %d\n%s\n%d %d", len(rv.Table.Rows)+1, 3*len(rv.Table.Provisions)+3, len(sources),
		rv.Table.Provisions[0], len(cm.List), len(ws.Links))
	if !strings.Contains(string(out), want) {
		t.Errorf("openpyxl read:\n%s\nwant\n%s", out, want)
	}
}

// refRC reads a cell reference ("C7") as a 1-based row and column.
func refRC(ref string) (row, col int) {
	for i, ch := range ref {
		if ch >= 'A' && ch <= 'Z' {
			col = col*26 + int(ch-'A'+1)
			continue
		}
		row, _ = strconv.Atoi(ref[i:])
		break
	}
	return row, col
}

// colName returns a spreadsheet column name: 1 → A, 27 → AA.
func colName(n int) string {
	var out []byte
	for n > 0 {
		n--
		out = append([]byte{byte('A' + n%26)}, out...)
		n /= 26
	}
	return string(out)
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
	// Answers first: each grid cell is its one-line answer; a reviewed
	// cell says how; the excluding clause is a source shown as No, its
	// exclusion's words marked inside the extract.
	grid := page[strings.Index(page, `<table class="grid"`):strings.Index(page, `<section class="sources">`)]
	if n, want := strings.Count(grid, `<span class="ans">`), 4*(len(rv.Table.Rows)-1); n != want {
		t.Errorf("%d answers in the grid, want %d", n, want)
	}
	for _, want := range []string{`<span class="ans">Yes</span>`, `✎ corrected (was: Not found)`, `✓ accepted`, `class="k-no"`} {
		if !strings.Contains(grid, want) {
			t.Errorf("the grid lacks %q", want)
		}
	}
	xi, xj, xc := excludedCell(t, rv.Table)
	src := page[strings.Index(page, `id="s-`+itoa(xi)+"-"+itoa(xj)+`"`):]
	src = src[:strings.Index(src, "</article>")]
	sp, e := xc.Answer.Spans[0].Span, xc.Extracts[xc.Answer.Spans[0].Extract]
	exclusion := []rune(e.Text)[sp.Start-e.Span.Start : sp.End-e.Span.Start]
	if !strings.Contains(src, `<div class="answer k-no">No`) || !strings.Contains(src, `<b class="ans">`+html.EscapeString(string(exclusion))+`</b>`) {
		t.Errorf("the excluding cell's source does not show No with its exclusion marked:\n%s", src)
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

// TestJSONStreamedRows: the JSON export written a row at a time
// (Review.Row) is byte for byte the one written from the whole table, with
// rows and without.
func TestJSONStreamedRows(t *testing.T) {
	rv := fixture(t)
	for _, rows := range [][]review.Row{rv.Table.Rows, nil} {
		tab := *rv.Table
		tab.Rows = rows
		whole := *rv
		whole.Table = &tab
		var want bytes.Buffer
		if err := export.JSON(&want, &whole); err != nil {
			t.Fatal(err)
		}
		streamed := whole
		streamed.Row = func(i int) (review.Row, error) { return tab.Rows[i], nil }
		var got bytes.Buffer
		if err := export.JSON(&got, &streamed); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d rows: streamed JSON differs:\n%s\nwant\n%s", len(rows), got.String(), want.String())
		}
	}
}

// TestEveryFormatReadsRowsThroughRow: with Review.Row set, every format
// writes from the rows Row returns, not from Table.Rows (which a light run
// holds without the cells' extracts): the output is byte for byte the one
// written from the whole table, and an error reading a row is returned.
func TestEveryFormatReadsRowsThroughRow(t *testing.T) {
	rv := fixture(t)
	light := *rv.Table
	light.Rows = make([]review.Row, len(rv.Table.Rows))
	for i, row := range rv.Table.Rows {
		row.Cells = slices.Clone(row.Cells)
		for k := range row.Cells {
			row.Cells[k].Extracts = nil
		}
		light.Rows[i] = row
	}
	streamed := *rv
	streamed.Table = &light
	streamed.Row = func(i int) (review.Row, error) { return rv.Table.Rows[i], nil }
	failing := streamed
	failing.Row = func(i int) (review.Row, error) { return review.Row{}, errors.New("row file gone") }
	for _, f := range export.Formats {
		var want, got bytes.Buffer
		if err := export.Write(&want, f, rv); err != nil {
			t.Fatal(err)
		}
		if err := export.Write(&got, f, &streamed); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: written through Row differs from the whole table's (%d vs %d bytes)", f, got.Len(), want.Len())
		}
		if err := export.Write(io.Discard, f, &failing); err == nil || !strings.Contains(err.Error(), "row file gone") {
			t.Errorf("%s: a row that cannot be read gave %v", f, err)
		}
	}
}

// worksheetOrder is the order of a worksheet's children in the schema
// (CT_Worksheet), as far as the export writes them.
var worksheetOrder = []string{"sheetPr", "dimension", "sheetViews", "sheetFormatPr", "cols", "sheetData", "autoFilter",
	"hyperlinks", "printOptions", "pageMargins", "pageSetup", "headerFooter", "drawing", "legacyDrawing"}

// printSetup checks that both sheets print landscape, one page wide, with
// their header row on every page, that their children come in the schema's
// order, and that the Review sheet's rows are as tall as their wrapped text.
func printSetup(t *testing.T, parts map[string][]byte, sheet1 [][]string) {
	t.Helper()
	for _, name := range []string{"xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml"} {
		var ws struct {
			Pr struct {
				Fit struct {
					Page string `xml:"fitToPage,attr"`
				} `xml:"pageSetUpPr"`
			} `xml:"sheetPr"`
			Setup struct {
				Orientation string `xml:"orientation,attr"`
				Width       string `xml:"fitToWidth,attr"`
				Height      string `xml:"fitToHeight,attr"`
			} `xml:"pageSetup"`
			Margins *struct{} `xml:"pageMargins"`
			Footer  string    `xml:"headerFooter>oddFooter"`
		}
		if err := xml.Unmarshal(parts[name], &ws); err != nil {
			t.Fatal(err)
		}
		if ws.Pr.Fit.Page != "1" || ws.Setup.Orientation != "landscape" || ws.Setup.Width != "1" || ws.Setup.Height != "0" || ws.Margins == nil || !strings.Contains(ws.Footer, "&P of &N") {
			t.Errorf("%s: print setup %+v", name, ws)
		}
		d := xml.NewDecoder(bytes.NewReader(parts[name]))
		depth, last := 0, -1
		for {
			tok, err := d.Token()
			if err != nil {
				break
			}
			switch el := tok.(type) {
			case xml.StartElement:
				depth++
				if depth == 2 {
					at := slices.Index(worksheetOrder, el.Name.Local)
					if at <= last {
						t.Errorf("%s: <%s> out of the schema's order", name, el.Name.Local)
					}
					last = at
				}
			case xml.EndElement:
				depth--
			}
		}
	}
	var wb struct {
		Names []struct {
			Name  string `xml:"name,attr"`
			Sheet string `xml:"localSheetId,attr"`
			Ref   string `xml:",chardata"`
		} `xml:"definedNames>definedName"`
	}
	if err := xml.Unmarshal(parts["xl/workbook.xml"], &wb); err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, n := range wb.Names {
		if n.Name == "_xlnm.Print_Titles" {
			titles[n.Sheet] = n.Ref
		}
	}
	if titles["0"] != "'Review'!$1:$1" || titles["1"] != "'Sources'!$1:$1" {
		t.Errorf("print titles %v, want the header row of both sheets", titles)
	}
	// Row heights: a row with a clause path longer than its column (18
	// wide) is at least two lines tall; no row is taller than allowed.
	var rows struct {
		Rows []struct {
			R      int     `xml:"r,attr"`
			Height float64 `xml:"ht,attr"`
			Custom string  `xml:"customHeight,attr"`
		} `xml:"sheetData>row"`
	}
	if err := xml.Unmarshal(parts["xl/worksheets/sheet1.xml"], &rows); err != nil {
		t.Fatal(err)
	}
	tall := 0
	for i, r := range rows.Rows {
		long := false
		for c := 2; c < len(sheet1[i]); c += 3 {
			long = long || utf8.RuneCountInString(sheet1[i][c]) > 18
		}
		if r.Height > 409 || long && (r.Height < 30 || r.Custom != "1") {
			t.Errorf("Review row %d: height %v (custom %q) for %v", r.R, r.Height, r.Custom, sheet1[i])
		}
		if long {
			tall++
		}
	}
	if tall == 0 {
		t.Error("no row of the fixture wraps: the row heights are not checked")
	}
	renderXLSX(t, parts)
}

// renderXLSX prints the workbook to PDF with LibreOffice (PAKTON_SLOW=1,
// when soffice is installed) and checks that every page is landscape.
func renderXLSX(t *testing.T, parts map[string][]byte) {
	if os.Getenv("PAKTON_SLOW") == "" {
		return
	}
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		t.Log("LibreOffice not installed (apt-get install libreoffice-calc-nogui): not rendering the XLSX")
		return
	}
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range parts {
		w, _ := zw.Create(name)
		w.Write(body)
	}
	zw.Close()
	in := filepath.Join(dir, "review.xlsx")
	os.WriteFile(in, buf.Bytes(), 0o644)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, soffice, "--headless", "-env:UserInstallation=file://"+filepath.Join(dir, "profile"),
		"--convert-to", "pdf", "--outdir", dir, in).CombinedOutput()
	pdf, rerr := os.ReadFile(filepath.Join(dir, "review.pdf"))
	if err != nil || rerr != nil {
		t.Fatalf("LibreOffice cannot print the XLSX: %v %v\n%s", err, rerr, out)
	}
	boxes := regexp.MustCompile(`/MediaBox\s*\[\s*0 0 ([0-9.]+) ([0-9.]+)`).FindAllSubmatch(pdf, -1)
	pages := len(regexp.MustCompile(`/Type\s*/Page[^s]`).FindAll(pdf, -1))
	if pages == 0 || len(boxes) == 0 {
		t.Fatalf("the PDF has %d pages, %d page sizes", pages, len(boxes))
	}
	for _, b := range boxes {
		w, _ := strconv.ParseFloat(string(b[1]), 64)
		h, _ := strconv.ParseFloat(string(b[2]), 64)
		if w <= h {
			t.Errorf("a page is %v × %v points: not landscape", w, h)
		}
	}
	t.Logf("LibreOffice prints the XLSX on %d landscape pages", pages)
}

func TestFileName(t *testing.T) {
	day := time.Date(2026, 12, 6, 23, 30, 0, 0, time.FixedZone("", -3600))
	tab := &review.Table{Playbook: "default"}
	for _, c := range []struct {
		title   string
		created time.Time
		want    string
	}{
		{"Q4 diligence", day, "Q4 diligence 2026-12-07.xlsx"},
		{"", day, "default review 2026-12-07.xlsx"},
		{`Acme/Beta: "NDA" <draft>?  `, day, "Acme Beta NDA draft 2026-12-07.xlsx"},
		{"Prüfung der Verträge", time.Time{}, "Prüfung der Verträge.xlsx"},
		{"..\x00/..", day, "review 2026-12-07.xlsx"},
		{strings.Repeat("ab ", 50), day, strings.TrimSpace(strings.Repeat("ab ", 27)) + " 2026-12-07.xlsx"},
	} {
		rv := &export.Review{Table: tab, Title: c.title, Created: c.created}
		if got := rv.FileName("xlsx"); got != c.want {
			t.Errorf("FileName of %q: %q, want %q", c.title, got, c.want)
		}
	}
}
