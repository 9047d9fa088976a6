package export

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pakton/pakton/internal/review"
)

// XLSX writes an Office Open XML spreadsheet with two sheets: "Review" (one
// row per contract, one column per provision, each cell the answer — the
// extract, the corrected text or "Not found" — shaded by confidence) and
// "Sources" (one row per extract: contract, provision, clause path, pages,
// span, text, confidence, value, method and the reviewer's decision). It is
// written with archive/zip and encoding/xml: inline strings, no shared-string
// table, a small style sheet.
func XLSX(w io.Writer, rv *Review) error {
	zw := zip.NewWriter(w)
	files := []struct {
		name string
		body func(*bytes.Buffer)
	}{
		{"[Content_Types].xml", func(b *bytes.Buffer) { b.WriteString(contentTypes) }},
		{"_rels/.rels", func(b *bytes.Buffer) { b.WriteString(rootRels) }},
		{"docProps/core.xml", func(b *bytes.Buffer) { coreProps(b, rv) }},
		{"xl/workbook.xml", func(b *bytes.Buffer) { b.WriteString(workbook) }},
		{"xl/_rels/workbook.xml.rels", func(b *bytes.Buffer) { b.WriteString(workbookRels) }},
		{"xl/styles.xml", func(b *bytes.Buffer) { b.WriteString(styles) }},
		{"xl/worksheets/sheet1.xml", func(b *bytes.Buffer) { reviewSheet(b, rv) }},
		{"xl/worksheets/sheet2.xml", func(b *bytes.Buffer) { sourcesSheet(b, rv) }},
	}
	for _, f := range files {
		var b bytes.Buffer
		f.body(&b)
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return err
		}
		if _, err := fw.Write(b.Bytes()); err != nil {
			return err
		}
	}
	return zw.Close()
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

const contentTypes = xmlHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
	`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
	`<Default Extension="xml" ContentType="application/xml"/>` +
	`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
	`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
	`<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
	`<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>` +
	`<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
	`</Types>`

const rootRels = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>` +
	`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>` +
	`</Relationships>`

const workbook = xmlHeader + `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
	`<sheets><sheet name="Review" sheetId="1" r:id="rId1"/><sheet name="Sources" sheetId="2" r:id="rId2"/></sheets></workbook>`

const workbookRels = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>` +
	`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/>` +
	`<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
	`</Relationships>`

// Cell styles (index into cellXfs).
const (
	styleText     = 0
	styleHeader   = 1
	styleFound    = 2 // wrapped, green: found with confidence ≥ 0.5
	styleNotFound = 3 // grey text: "Not found"
	styleWrap     = 4 // wrapped, no fill
	styleLow      = 5 // wrapped, amber: found with confidence < 0.5, or rejected
)

const styles = xmlHeader + `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
	`<fonts count="3"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font>` +
	`<font><sz val="11"/><color rgb="FF808080"/><name val="Calibri"/></font></fonts>` +
	`<fills count="4"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>` +
	`<fill><patternFill patternType="solid"><fgColor rgb="FFE2F0D9"/><bgColor indexed="64"/></patternFill></fill>` +
	`<fill><patternFill patternType="solid"><fgColor rgb="FFFFF2CC"/><bgColor indexed="64"/></patternFill></fill></fills>` +
	`<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
	`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
	`<cellXfs count="6">` +
	`<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>` +
	`<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>` +
	`<xf numFmtId="0" fontId="0" fillId="2" borderId="0" xfId="0" applyFill="1" applyAlignment="1"><alignment wrapText="1" vertical="top"/></xf>` +
	`<xf numFmtId="0" fontId="2" fillId="0" borderId="0" xfId="0" applyFont="1" applyAlignment="1"><alignment vertical="top"/></xf>` +
	`<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" applyAlignment="1"><alignment wrapText="1" vertical="top"/></xf>` +
	`<xf numFmtId="0" fontId="0" fillId="3" borderId="0" xfId="0" applyFill="1" applyAlignment="1"><alignment wrapText="1" vertical="top"/></xf>` +
	`</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`

func coreProps(b *bytes.Buffer, rv *Review) {
	b.WriteString(xmlHeader + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>`)
	xmlText(b, rv.title())
	b.WriteString(`</dc:title><dc:creator>pakton</dc:creator>`)
	if !rv.Created.IsZero() {
		fmt.Fprintf(b, `<dcterms:created xsi:type="dcterms:W3CDTF">%s</dcterms:created>`, rv.Created.UTC().Format(time.RFC3339))
	}
	b.WriteString(`</cp:coreProperties>`)
}

// sheet writes a worksheet's XML around rows written by body.
type sheet struct {
	b   *bytes.Buffer
	row int
	col int
}

func newSheet(b *bytes.Buffer, widths []float64) *sheet {
	b.WriteString(xmlHeader + `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`)
	b.WriteString(`<sheetViews><sheetView workbookViewId="0"><pane xSplit="1" ySplit="1" topLeftCell="B2" activePane="bottomRight" state="frozen"/></sheetView></sheetViews>`)
	b.WriteString(`<sheetFormatPr defaultRowHeight="15"/><cols>`)
	for i, w := range widths {
		fmt.Fprintf(b, `<col min="%d" max="%d" width="%.1f" customWidth="1"/>`, i+1, i+1, w)
	}
	b.WriteString(`</cols><sheetData>`)
	return &sheet{b: b}
}

func (s *sheet) startRow() {
	if s.row > 0 {
		s.b.WriteString(`</row>`)
	}
	s.row++
	s.col = 0
	fmt.Fprintf(s.b, `<row r="%d">`, s.row)
}

// maxCellChars is Excel's limit on the characters of one cell.
const maxCellChars = 32767

func (s *sheet) text(v string, style int) {
	s.col++
	if v == "" {
		return
	}
	if utf8.RuneCountInString(v) > maxCellChars {
		v = string([]rune(v)[:maxCellChars-1]) + "…"
	}
	fmt.Fprintf(s.b, `<c r="%s%d" t="inlineStr" s="%d"><is><t xml:space="preserve">`, colName(s.col), s.row, style)
	xmlText(s.b, v)
	s.b.WriteString(`</t></is></c>`)
}

func (s *sheet) number(v float64, style int) {
	s.col++
	fmt.Fprintf(s.b, `<c r="%s%d" s="%d"><v>%s</v></c>`, colName(s.col), s.row, style, strconv.FormatFloat(v, 'f', -1, 64))
}

func (s *sheet) end(autoFilter bool, cols int) {
	if s.row > 0 {
		s.b.WriteString(`</row>`)
	}
	s.b.WriteString(`</sheetData>`)
	if autoFilter && s.row > 0 && cols > 0 {
		fmt.Fprintf(s.b, `<autoFilter ref="A1:%s%d"/>`, colName(cols), s.row)
	}
	s.b.WriteString(`</worksheet>`)
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

// xmlText writes s escaped; characters XML cannot hold become U+FFFD.
func xmlText(b *bytes.Buffer, s string) { xml.EscapeText(b, []byte(s)) }

func reviewSheet(b *bytes.Buffer, rv *Review) {
	t := rv.Table
	widths := []float64{36}
	for range t.Provisions {
		widths = append(widths, 48)
	}
	widths = append(widths, 30)
	s := newSheet(b, widths)
	s.startRow()
	s.text("Contract", styleHeader)
	for _, p := range t.Provisions {
		s.text(p, styleHeader)
	}
	s.text("Error", styleHeader)
	for i := range t.Rows {
		row := &t.Rows[i]
		s.startRow()
		s.text(row.DocName, styleWrap)
		for _, p := range t.Provisions {
			c := cellOf(row, p)
			if c == nil {
				s.text("", styleText)
				continue
			}
			a := answerOf(c, rv.Decisions.Find(row.DocID, p))
			text, style := a.Text, styleNotFound
			if a.Found {
				style = styleFound
				if c.Confidence < 0.5 || a.Verdict == "rejected" {
					style = styleLow
				}
				if a.Value != "" && a.Value != a.Text {
					text = a.Value + " — " + text
				}
			}
			if a.Verdict != "" {
				text += " [" + string(a.Verdict) + "]"
			}
			s.text(text, style)
		}
		s.text(row.Error, styleWrap)
	}
	s.end(true, len(t.Provisions)+2)
}

func sourcesSheet(b *bytes.Buffer, rv *Review) {
	head := []string{"Contract", "Document ID", "Provision", "Found", "Clause path", "Pages", "Span start", "Span end", "Text", "Confidence", "Value", "Method", "Decision", "Corrected text", "Corrected value", "Note", "Risk answers", "Model notes"}
	s := newSheet(b, []float64{30, 18, 24, 8, 30, 8, 10, 10, 80, 11, 20, 11, 11, 40, 20, 30, 50, 50})
	s.startRow()
	for _, h := range head {
		s.text(h, styleHeader)
	}
	for i := range rv.Table.Rows {
		row := &rv.Table.Rows[i]
		for j := range row.Cells {
			c := &row.Cells[j]
			d := rv.Decisions.Find(row.DocID, c.Provision)
			if !c.Found && d == nil {
				continue // a "Not found" nobody judged has no source
			}
			exs := c.Extracts
			if !c.Found {
				exs = nil // the best candidate of a "Not found" is not a source
			}
			if len(exs) == 0 {
				exs = append(exs, emptyExtract)
			}
			for _, e := range exs {
				s.startRow()
				s.text(row.DocName, styleWrap)
				s.text(row.DocID, styleText)
				s.text(c.Provision, styleWrap)
				s.text(yesNo(c.Found), styleText)
				s.text(e.Path, styleWrap)
				s.text(pages(e.Pages), styleText)
				if e.Text != "" {
					s.number(float64(e.Span.Start), styleText)
					s.number(float64(e.Span.End), styleText)
				} else {
					s.text("", styleText)
					s.text("", styleText)
				}
				s.text(e.Text, styleWrap)
				s.number(roundTo(c.Confidence, 3), styleText)
				s.text(c.Value, styleWrap)
				s.text(c.Method, styleText)
				if d == nil {
					d = &review.Decision{}
				}
				s.text(string(d.Verdict), styleText)
				s.text(d.Text, styleWrap)
				s.text(d.Value, styleWrap)
				s.text(d.Note, styleWrap)
				s.text(riskText(c.Risks), styleWrap)
				s.text(strings.Join(c.Notes, "\n"), styleWrap)
			}
		}
	}
	s.end(true, len(head))
}

// riskText writes a cell's risk answers one per line: "question — answer".
func riskText(rs []review.RiskAnswer) string {
	var lines []string
	for _, r := range rs {
		lines = append(lines, r.Question+" — "+r.Answer)
	}
	return strings.Join(lines, "\n")
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

func roundTo(v float64, digits int) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', digits, 64), 64)
	return f
}
