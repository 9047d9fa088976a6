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

// XLSX writes an Office Open XML spreadsheet with two sheets:
//
//   - "Review": one row per contract; per provision, the answer (Yes, No,
//     Conditional: …, a value, Found or Not found — a reviewer's correction
//     applied, and a reviewed cell says so: "✎ corrected (was: Yes)"),
//     coloured by answer, hyperlinked to the cell's first row in Sources,
//     with the extract as the cell's comment; then the clause path and the
//     pages of the answer.
//   - "Sources": one row per extract: contract, provision, answer,
//     condition, clause path, pages, span, the answer's span, text,
//     confidence, method and the reviewer's decision.
//
// Both sheets print landscape, fitted to one page wide (as many tall as
// needed), their header row repeated on every page, the review's title in
// the page header and "Page n of N" in the footer; a row with wrapped text
// is as tall as its text needs.
//
// It is written with archive/zip and encoding/xml: inline strings, no
// shared-string table, a small style sheet, comments in the legacy VML
// drawing Excel needs to show them.
func XLSX(w io.Writer, rv *Review) error {
	var reviewXML, sources, comments, vml bytes.Buffer
	rs, ss := newReviewSheet(&reviewXML, rv.Table), newSourcesSheet(&sources, rv.Table)
	rs.s.print, ss.s.print = printSetup(rv.title()), printSetup(rv.title())
	// One pass over the rows (each read once when they come through
	// rv.Row): a row's sources first, so its answer cells can link to
	// their first row in Sources.
	err := rv.eachRow(func(_ int, row *review.Row) error {
		rs.add(row, rv.Decisions, ss.add(row, rv.Decisions))
		return nil
	})
	if err != nil {
		return err
	}
	ss.end()
	notes := rs.end()
	writeComments(&comments, &vml, notes)
	types := contentTypes
	if len(notes) == 0 {
		types = strings.Replace(types, commentTypes, "", 1)
	}
	zw := zip.NewWriter(w)
	files := []struct {
		name string
		body []byte
	}{
		{"[Content_Types].xml", []byte(types)},
		{"_rels/.rels", []byte(rootRels)},
		{"docProps/core.xml", coreProps(rv)},
		{"xl/workbook.xml", []byte(workbook)},
		{"xl/_rels/workbook.xml.rels", []byte(workbookRels)},
		{"xl/styles.xml", []byte(styles)},
		{"xl/worksheets/sheet1.xml", reviewXML.Bytes()},
		{"xl/worksheets/_rels/sheet1.xml.rels", []byte(sheet1Rels)},
		{"xl/comments1.xml", comments.Bytes()},
		{"xl/drawings/vmlDrawing1.vml", vml.Bytes()},
		{"xl/worksheets/sheet2.xml", sources.Bytes()},
	}
	for _, f := range files {
		if len(notes) == 0 && (strings.HasSuffix(f.name, ".rels") && strings.Contains(f.name, "sheet1") || f.name == "xl/comments1.xml" || strings.HasSuffix(f.name, ".vml")) {
			continue // no comments: no comment parts
		}
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.body); err != nil {
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
	commentTypes +
	`<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
	`</Types>`

// commentTypes declare the comment parts (left out when there are none).
const commentTypes = `<Default Extension="vml" ContentType="application/vnd.openxmlformats-officedocument.vmlDrawing"/>` +
	`<Override PartName="/xl/comments1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.comments+xml"/>`

// sheet1Rels ties the Review sheet to its comments and their drawing.
const sheet1Rels = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="../comments1.xml"/>` +
	`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/vmlDrawing" Target="../drawings/vmlDrawing1.vml"/>` +
	`</Relationships>`

const rootRels = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>` +
	`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>` +
	`</Relationships>`

// workbook names the sheets and, as print titles, their header rows.
const workbook = xmlHeader + `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
	`<sheets><sheet name="Review" sheetId="1" r:id="rId1"/><sheet name="Sources" sheetId="2" r:id="rId2"/></sheets>` +
	`<definedNames><definedName name="_xlnm.Print_Titles" localSheetId="0">'Review'!$1:$1</definedName>` +
	`<definedName name="_xlnm.Print_Titles" localSheetId="1">'Sources'!$1:$1</definedName></definedNames></workbook>`

// printSetup is a sheet's page setup, in the schema's order: narrow
// margins, landscape, one page wide and as many tall as needed, the
// review's title in the header and the page number in the footer.
func printSetup(title string) string {
	var b bytes.Buffer
	b.WriteString(`<pageMargins left="0.4" right="0.4" top="0.6" bottom="0.6" header="0.3" footer="0.3"/>` +
		`<pageSetup orientation="landscape" fitToWidth="1" fitToHeight="0"/><headerFooter><oddHeader>`)
	// In a header "&" starts a code; a literal one is doubled.
	xmlText(&b, "&L"+strings.ReplaceAll(title, "&", "&&"))
	b.WriteString(`</oddHeader><oddFooter>`)
	xmlText(&b, "&L&A&RPage &P of &N")
	b.WriteString(`</oddFooter></headerFooter>`)
	return b.String()
}

const workbookRels = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>` +
	`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/>` +
	`<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
	`</Relationships>`

// Cell styles (index into cellXfs).
const (
	styleText   = 0
	styleHeader = 1 // bold, wrapped
	styleWrap   = 2 // wrapped, no fill
	// styleAnswer is the first answer style: one per answer kind (in
	// answerKinds order) in three variants — plain, low confidence
	// (italic), rejected (struck through).
	styleAnswer = 3
)

// answerKinds are the answer kinds, in the order of their styles.
var answerKinds = []string{"yes", "no", "conditional", "value", "found", "not_found"}

// answerStyle returns the style of an answer cell.
func answerStyle(a shownAnswer, conf float64) int {
	k := 0
	for i, x := range answerKinds {
		if x == a.Kind {
			k = i
		}
	}
	v := 0
	switch {
	case a.Verdict == review.Rejected:
		v = 2
	case conf >= 0.2 && conf < 0.6 && a.Verdict != review.Corrected:
		v = 1
	}
	return styleAnswer + 3*k + v
}

// styles: fonts 0 normal, 1 bold, 2 grey (unused), then per answer kind
// three fonts (bold coloured; italic; struck through), underlined as links,
// from 3; fills 0 none, 1 gray125
// (required), then one per answer kind from 2.
var styles = func() string {
	type look struct{ ink, fill string }
	looks := []look{{"FF14532D", "FFD7F0D9"}, {"FF8A1C1C", "FFFBDCDC"}, {"FF7A4B00", "FFFDECC2"},
		{"FF173F85", "FFDDE8FB"}, {"FF2D4A34", "FFE6F2E8"}, {"FF808080", ""}}
	var b strings.Builder
	b.WriteString(xmlHeader + `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`)
	fmt.Fprintf(&b, `<fonts count="%d"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font>`+
		`<font><sz val="11"/><color rgb="FF808080"/><name val="Calibri"/></font>`, 3+3*len(looks))
	for _, l := range looks {
		fmt.Fprintf(&b, `<font><b/><u/><sz val="11"/><color rgb="%s"/><name val="Calibri"/></font>`, l.ink)
		fmt.Fprintf(&b, `<font><i/><u/><sz val="11"/><color rgb="%s"/><name val="Calibri"/></font>`, l.ink)
		fmt.Fprintf(&b, `<font><strike/><u/><sz val="11"/><color rgb="%s"/><name val="Calibri"/></font>`, l.ink)
	}
	fmt.Fprintf(&b, `</fonts><fills count="%d"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>`, 2+len(looks))
	for _, l := range looks {
		if l.fill == "" {
			b.WriteString(`<fill><patternFill patternType="none"/></fill>`)
			continue
		}
		fmt.Fprintf(&b, `<fill><patternFill patternType="solid"><fgColor rgb="%s"/><bgColor indexed="64"/></patternFill></fill>`, l.fill)
	}
	b.WriteString(`</fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
		`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>`)
	fmt.Fprintf(&b, `<cellXfs count="%d">`, styleAnswer+3*len(looks))
	b.WriteString(`<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>` +
		`<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1" applyAlignment="1"><alignment wrapText="1" vertical="bottom"/></xf>` +
		`<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" applyAlignment="1"><alignment wrapText="1" vertical="top"/></xf>`)
	for k := range looks {
		for v := range 3 {
			fmt.Fprintf(&b, `<xf numFmtId="0" fontId="%d" fillId="%d" borderId="0" xfId="0" applyFont="1" applyFill="1" applyAlignment="1"><alignment wrapText="1" vertical="top"/></xf>`, 3+3*k+v, 2+k)
		}
	}
	b.WriteString(`</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`)
	return b.String()
}()

func coreProps(rv *Review) []byte {
	var b bytes.Buffer
	b.WriteString(xmlHeader + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>`)
	xmlText(&b, rv.title())
	b.WriteString(`</dc:title><dc:creator>pakton</dc:creator>`)
	if !rv.Created.IsZero() {
		fmt.Fprintf(&b, `<dcterms:created xsi:type="dcterms:W3CDTF">%s</dcterms:created>`, rv.Created.UTC().Format(time.RFC3339))
	}
	b.WriteString(`</cp:coreProperties>`)
	return b.Bytes()
}

// sheet writes a worksheet's XML around rows written by body.
type sheet struct {
	b      *bytes.Buffer
	row    int
	col    int
	widths []float64
	cells  bytes.Buffer // the current row's cells
	lines  int          // the most lines a wrapped cell of the row takes
	print  string       // the page setup (printSetup)
}

func newSheet(b *bytes.Buffer, widths []float64) *sheet {
	b.WriteString(xmlHeader + `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">`)
	b.WriteString(`<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr><sheetViews><sheetView workbookViewId="0"><pane xSplit="1" ySplit="1" topLeftCell="B2" activePane="bottomRight" state="frozen"/></sheetView></sheetViews>`)
	b.WriteString(`<sheetFormatPr defaultRowHeight="15"/><cols>`)
	for i, w := range widths {
		fmt.Fprintf(b, `<col min="%d" max="%d" width="%.1f" customWidth="1"/>`, i+1, i+1, w)
	}
	b.WriteString(`</cols><sheetData>`)
	return &sheet{b: b, widths: widths}
}

func (s *sheet) startRow() {
	s.endRow()
	s.row++
	s.col = 0
	s.lines = 1
}

// lineHeight is the height in points of a line of 11-point Calibri, and
// maxRowHeight the tallest row a spreadsheet allows.
const (
	lineHeight   = 15
	maxRowHeight = 409
)

// endRow writes the current row: as tall as its most wrapped cell needs
// (Excel does not fit a row's height to its text when it opens a file).
func (s *sheet) endRow() {
	if s.row == 0 {
		return
	}
	if s.lines > 1 {
		fmt.Fprintf(s.b, `<row r="%d" ht="%d" customHeight="1">`, s.row, min(maxRowHeight, lineHeight*s.lines))
	} else {
		fmt.Fprintf(s.b, `<row r="%d">`, s.row)
	}
	s.b.Write(s.cells.Bytes())
	s.b.WriteString(`</row>`)
	s.cells.Reset()
}

// wrappedLines estimates the lines v takes wrapped in a column width
// characters wide: words are not split, a longer word is broken where it
// fills the line. A column's width counts digits, wider than most letters,
// so that the estimate errs towards too tall rather than cut text.
func wrappedLines(v string, width float64) int {
	room := max(1, int(width))
	n := 0
	for _, para := range strings.Split(v, "\n") {
		n++
		used := 0
		for _, w := range strings.Fields(para) {
			l := utf8.RuneCountInString(w)
			switch {
			case used == 0:
			case used+1+l <= room:
				used += 1 + l
				continue
			default:
				n++
			}
			n += (l - 1) / room
			used = (l-1)%room + 1
		}
	}
	return n
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
	if style != styleText && s.col <= len(s.widths) {
		s.lines = max(s.lines, wrappedLines(v, s.widths[s.col-1]))
	}
	fmt.Fprintf(&s.cells, `<c r="%s%d" t="inlineStr" s="%d"><is><t xml:space="preserve">`, colName(s.col), s.row, style)
	xmlText(&s.cells, v)
	s.cells.WriteString(`</t></is></c>`)
}

func (s *sheet) number(v float64, style int) {
	s.col++
	fmt.Fprintf(&s.cells, `<c r="%s%d" s="%d"><v>%s</v></c>`, colName(s.col), s.row, style, strconv.FormatFloat(v, 'f', -1, 64))
}

// ref is the reference of the cell written last ("B7").
func (s *sheet) ref() string { return colName(s.col) + strconv.Itoa(s.row) }

// end closes the sheet: the autofilter, the hyperlinks, the page setup
// and the comments' drawing follow the rows, as the schema orders them.
func (s *sheet) end(autoFilter bool, cols int, hyperlinks, drawing string) {
	s.endRow()
	s.b.WriteString(`</sheetData>`)
	if autoFilter && s.row > 0 && cols > 0 {
		fmt.Fprintf(s.b, `<autoFilter ref="A1:%s%d"/>`, colName(cols), s.row)
	}
	s.b.WriteString(hyperlinks)
	s.b.WriteString(s.print)
	s.b.WriteString(drawing)
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

// note is a comment on a cell of the Review sheet.
type note struct {
	row, col int // 1-based
	text     string
}

// maxNoteChars bounds a comment: the whole extract is in Sources.
const maxNoteChars = 1000

// reviewSheet writes the Review sheet, a row per contract, and keeps the
// comments to put on its answer cells.
type reviewSheet struct {
	s     *sheet
	t     *review.Table
	notes []note
	hyper strings.Builder
}

// newReviewSheet starts the Review sheet with its header.
func newReviewSheet(b *bytes.Buffer, t *review.Table) *reviewSheet {
	widths := []float64{36}
	for range t.Provisions {
		widths = append(widths, 24, 18, 7)
	}
	widths = append(widths, 12, 30)
	s := newSheet(b, widths)
	s.startRow()
	s.text("Contract", styleHeader)
	for _, p := range t.Provisions {
		s.text(p, styleHeader)
		s.text(p+" — clause", styleHeader)
		s.text(p+" — page", styleHeader)
	}
	s.text("Reviewed", styleHeader)
	s.text("Error", styleHeader)
	return &reviewSheet{s: s, t: t}
}

// add writes a contract's row; links holds, for each of its cells
// (provision index) with sources, its first row in Sources.
func (r *reviewSheet) add(row *review.Row, ds review.Decisions, links map[int]int) {
	s := r.s
	s.startRow()
	if name := contractName(row); name != row.DocName {
		s.text(name+"\n"+row.DocName, styleWrap) // the file under its name
	} else {
		s.text(name, styleWrap)
	}
	decided, cells := 0, 0
	for j, p := range r.t.Provisions {
		c := cellOf(row, p)
		if c == nil {
			s.text("", styleText)
			s.text("", styleText)
			s.text("", styleText)
			continue
		}
		cells++
		a := answerOf(c, ds.Find(row.DocID, p))
		text := a.Line
		if rv := a.reviewed(); rv != "" {
			decided++
			text += " " + rv
		}
		s.text(text, answerStyle(a, c.Confidence))
		if at, ok := links[j]; ok {
			fmt.Fprintf(&r.hyper, `<hyperlink ref="%s" location="'Sources'!A%d" tooltip="The evidence (Sources, row %d)"/>`, s.ref(), at, at)
		}
		if a.Evidence || a.Decision != nil {
			if n := noteText(c, a); n != "" {
				r.notes = append(r.notes, note{s.row, s.col, n})
			}
		}
		paths, pgs, _, _ := located(c, a)
		s.text(paths, styleWrap)
		s.text(pgs, styleText)
	}
	if cells > 0 {
		s.text(fmt.Sprintf("%d of %d", decided, cells), styleText)
	} else {
		s.text("", styleText)
	}
	s.text(row.Error, styleWrap)
}

// end closes the sheet and returns the comments to put on the answer cells.
func (r *reviewSheet) end() []note {
	links, drawing := "", ""
	if r.hyper.Len() > 0 {
		links = "<hyperlinks>" + r.hyper.String() + "</hyperlinks>"
	}
	if len(r.notes) > 0 {
		drawing = `<legacyDrawing r:id="rId2"/>`
	}
	r.s.end(true, 1+3*len(r.t.Provisions)+2, links, drawing)
	return r.notes
}

// noteText is an answer cell's comment: the extract the answer is read
// from (or the corrected text), clipped, and the reviewer's note.
func noteText(c *review.Cell, a shownAnswer) string {
	var parts []string
	if a.Kind == "no" && a.Decision == nil {
		parts = append(parts, "Excluded by:")
	}
	if a.Text != NotFound {
		t := strings.TrimSpace(a.Text)
		if utf8.RuneCountInString(t) > maxNoteChars {
			t = string([]rune(t)[:maxNoteChars]) + "… (the whole extract is in Sources)"
		}
		parts = append(parts, t)
	}
	if d := a.Decision; d != nil && d.Note != "" {
		parts = append(parts, "Note: "+d.Note)
	}
	return strings.Join(parts, "\n")
}

// writeComments writes the Review sheet's comments and the legacy VML
// drawing that shows them (Excel does not show comments without it).
func writeComments(comments, vml *bytes.Buffer, notes []note) {
	comments.WriteString(xmlHeader + `<comments xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><authors><author>pakton</author></authors><commentList>`)
	for _, n := range notes {
		fmt.Fprintf(comments, `<comment ref="%s%d" authorId="0"><text><t xml:space="preserve">`, colName(n.col), n.row)
		xmlText(comments, n.text)
		comments.WriteString(`</t></text></comment>`)
	}
	comments.WriteString(`</commentList></comments>`)
	// Shape ids come in blocks of 1024, each block listed in the idmap.
	blocks := []string{}
	for b := 1; b <= (1025+len(notes))/1024; b++ {
		blocks = append(blocks, strconv.Itoa(b))
	}
	vml.WriteString(`<xml xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:x="urn:schemas-microsoft-com:office:excel">` +
		`<o:shapelayout v:ext="edit"><o:idmap v:ext="edit" data="` + strings.Join(blocks, ",") + `"/></o:shapelayout>` +
		`<v:shapetype id="_x0000_t202" coordsize="21600,21600" o:spt="202" path="m,l,21600r21600,l21600,xe"><v:stroke joinstyle="miter"/><v:path gradientshapeok="t" o:connecttype="rect"/></v:shapetype>`)
	for i, n := range notes {
		fmt.Fprintf(vml, `<v:shape id="_x0000_s%d" type="#_x0000_t202" style="position:absolute;margin-left:80pt;margin-top:2pt;width:320pt;height:160pt;z-index:%d;visibility:hidden" fillcolor="#ffffe1" o:insetmode="auto">`+
			`<v:fill color2="#ffffe1"/><v:shadow on="t" color="black" obscured="t"/><v:path o:connecttype="none"/><v:textbox style="mso-direction-alt:auto"><div style="text-align:left"></div></v:textbox>`+
			`<x:ClientData ObjectType="Note"><x:MoveWithCells/><x:SizeWithCells/><x:Anchor>%d, 15, %d, 2, %d, 15, %d, 4</x:Anchor><x:AutoFill>False</x:AutoFill><x:Row>%d</x:Row><x:Column>%d</x:Column></x:ClientData></v:shape>`,
			1025+i, i+1, n.col, max(0, n.row-2), n.col+4, n.row+9, n.row-1, n.col-1)
	}
	vml.WriteString(`</xml>`)
}

// sourcesHead is the header of the Sources sheet.
var sourcesHead = []string{"Contract", "Document ID", "Provision", "Answer", "Condition", "Found", "Clause path", "Pages", "Span start", "Span end",
	"Answer span", "Text", "Confidence", "Method", "Decision", "Reviewed by", "Corrected text", "Corrected value", "Note", "Risk answers", "Model notes"}

// sourcesSheet writes the Sources sheet: one row per extract of a cell with
// evidence (found, or a clause that excludes the provision), and one row
// for a decided cell without any.
type sourcesSheet struct {
	s  *sheet
	at map[string]int // provision → its index in the table
}

// newSourcesSheet starts the Sources sheet with its header.
func newSourcesSheet(b *bytes.Buffer, t *review.Table) *sourcesSheet {
	s := newSheet(b, []float64{30, 18, 24, 22, 30, 9, 30, 8, 10, 10, 14, 80, 11, 11, 11, 14, 40, 20, 30, 50, 50})
	s.startRow()
	for _, h := range sourcesHead {
		s.text(h, styleHeader)
	}
	at := map[string]int{}
	for j, p := range t.Provisions {
		at[p] = j
	}
	return &sourcesSheet{s: s, at: at}
}

// add writes a contract's sources and returns, for each of its cells with
// any (provision index), its first row.
func (src *sourcesSheet) add(row *review.Row, ds review.Decisions) map[int]int {
	s := src.s
	links := map[int]int{}
	for k := range row.Cells {
		c := &row.Cells[k]
		d := ds.Find(row.DocID, c.Provision)
		a := answerOf(c, d)
		if !a.Evidence && d == nil {
			continue // a "Not found" nobody judged has no source
		}
		exs := c.Extracts
		if !a.Evidence {
			exs = nil // the best candidate of a "Not found" is not a source
		}
		if len(exs) == 0 {
			exs = append(exs, emptyExtract)
		}
		if j, ok := src.at[c.Provision]; ok {
			links[j] = s.row + 1
		}
		found := yesNo(a.Found)
		if a.Kind == "no" && a.Evidence {
			found = "No (excluded)"
		}
		for x, e := range exs {
			s.startRow()
			s.text(contractName(row), styleWrap)
			s.text(row.DocID, styleText)
			s.text(c.Provision, styleWrap)
			s.text(a.Line, answerStyle(a, c.Confidence))
			s.text(a.Condition, styleWrap)
			s.text(found, styleText)
			s.text(e.Path, styleWrap)
			s.text(pageList(e.Pages), styleText)
			if e.Text != "" {
				s.number(float64(e.Span.Start), styleText)
				s.number(float64(e.Span.End), styleText)
			} else {
				s.text("", styleText)
				s.text("", styleText)
			}
			var spans []string
			for _, sp := range a.Spans {
				if sp.Extract == x {
					spans = append(spans, sp.Span.String())
				}
			}
			s.text(strings.Join(spans, "; "), styleText)
			s.text(e.Text, styleWrap)
			s.number(roundTo(c.Confidence, 3), styleText)
			s.text(c.Method, styleText)
			dd := d
			if dd == nil {
				dd = &review.Decision{}
			}
			s.text(string(dd.Verdict), styleText)
			s.text(dd.By, styleText)
			s.text(dd.Text, styleWrap)
			s.text(dd.Value, styleWrap)
			s.text(dd.Note, styleWrap)
			s.text(riskText(c.Risks), styleWrap)
			s.text(strings.Join(c.Notes, "\n"), styleWrap)
		}
	}
	return links
}

// end closes the sheet.
func (src *sourcesSheet) end() { src.s.end(true, len(sourcesHead), "", "") }

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
