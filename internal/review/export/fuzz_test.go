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

// FuzzExports writes a one-cell review whose contract name, provision,
// extract, value and correction are arbitrary text (contract text is hostile
// input): every XLSX part must stay well-formed XML, the CSV must read back
// to the same fields, and the HTML must never carry the text unescaped.
func FuzzExports(f *testing.F) {
	f.Add("msa.pdf", "Governing Law", "This Agreement is governed by the laws of New York.", "New York", "")
	f.Add("<script>alert(1)</script>", "A&B \"x\"", "\x00\x01\x1f\ufffe bad XML chars \U0001D11E", "]]>", "</t></is>")
	f.Add("a,b\n\"c\"", "=cmd|' /C calc'!A0", "line\r\nbreak", "", "corrected <b>")
	f.Fuzz(func(t *testing.T, name, prov, text, value, corrected string) {
		// A marker with a "<" before every field: the HTML must show it
		// escaped wherever the field lands.
		const mark = "QZX<"
		name, prov, text, value = mark+name, mark+prov, mark+text, mark+value
		if corrected != "" {
			corrected = mark + corrected
		}
		cell := review.Cell{DocID: "d1", DocName: name, Provision: prov, Found: true, Confidence: 0.7, Value: value, Method: "detector",
			Extracts: []detect.Extract{{Span: document.Span{Start: 0, End: len([]rune(text))}, Path: prov, Text: text}}}
		tab := &review.Table{Playbook: "fuzz", Provisions: []string{prov}, Rows: []review.Row{{DocID: "d1", DocName: name, Cells: []review.Cell{cell}}}}
		var ds review.Decisions
		if corrected != "" {
			ds = ds.Set(review.Decision{DocID: "d1", Provision: prov, Verdict: review.Corrected, Text: corrected, Note: name})
		}
		rv := &export.Review{Table: tab, Decisions: ds, Text: func(string) (string, error) { return text, nil }}

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
			if err := wellFormed(b); err != nil {
				t.Fatalf("%s: %v", zf.Name, err)
			}
		}

		var c bytes.Buffer
		if err := export.CSV(&c, rv); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&c).ReadAll()
		if err != nil || len(recs) != 2 || len(recs[1]) != 12 {
			t.Fatalf("csv: %v %q", err, recs)
		}

		var h bytes.Buffer
		if err := export.HTML(&h, rv); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(h.String(), mark) {
			t.Fatalf("HTML carries a field unescaped:\n%s", h.String())
		}
	})
}
