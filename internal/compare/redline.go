package compare

import (
	"archive/zip"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// RedlineOptions describe a redline's revisions and file.
type RedlineOptions struct {
	// Author and Date are every revision's (default "pakton" and now).
	Author string
	Date   time.Time
	// Title names the document in its properties ("Contract against Form").
	Title string
	// Budget bounds the word-level difference (as Options.Budget); past it
	// the redline deletes the whole template and inserts the whole contract.
	Budget int
}

// Redline writes a Word document (.docx, WordprocessingML) whose text is
// the template's with the contract's differences as tracked changes: words
// the contract inserts are insertions (w:ins), words it removes deletions
// (w:del), each with its author and date, so that accepting every change in
// Word or LibreOffice gives the contract's text and rejecting every change
// gives the template's. The template — the firm's standard form — is the
// base. Differences are those of the comparison's words (Compare): white
// space, line breaks and typographic quotes and dashes are no change, and
// the unchanged text is written as the template has it. Paragraphs are the
// texts' (split at blank lines), with their line breaks; page furniture is
// left out. Its settings ask Word to
// track a reviewer's own edits too (w:trackRevisions).
func Redline(w io.Writer, contract, template Side, opt RedlineOptions) error {
	if opt.Author == "" {
		opt.Author = "pakton"
	}
	if opt.Date.IsZero() {
		opt.Date = time.Now()
	}
	intern := map[string]int{}
	a, b := wholeText(template, intern), wholeText(contract, intern)
	es, ok := DiffLinear(a.st.ids, b.st.ids, opt.Budget)
	if !ok {
		es = nil
		if len(a.st.ids) > 0 {
			es = append(es, Edit{Kind: Delete, AEnd: len(a.st.ids)})
		}
		if len(b.st.ids) > 0 {
			es = append(es, Edit{Kind: Insert, AStart: len(a.st.ids), AEnd: len(a.st.ids), BEnd: len(b.st.ids)})
		}
	} else {
		es = unequalNumbers(slide(es, a.st, b.st), a.st, b.st)
	}
	var pieces []piece
	aEnd, bEnd := 0, 0 // byte offsets after the last token written of each side
	for x, e := range es {
		// A replacement (a deletion beside an insertion) whose two gaps
		// before it are alike (both spaces, both line breaks, …) keeps the
		// template's gap: "within [-thirty-][+forty-five+]".
		if x+1 < len(es) && e.Kind != Equal && es[x+1].Kind != Equal && es[x+1].Kind != e.Kind {
			d, i := e, es[x+1]
			if d.Kind == Insert {
				d, i = i, d
			}
			aGap, bGap := a.text[aEnd:a.offs[d.AStart][0]], b.text[bEnd:b.offs[i.BStart][0]]
			if gapKind(aGap) == gapKind(bGap) {
				pieces = append(pieces, piece{Equal, aGap})
				aEnd, bEnd = a.offs[d.AStart][0], b.offs[i.BStart][0]
			}
		}
		switch e.Kind {
		case Equal:
			// After an insertion or a deletion the two gaps before the
			// kept words follow different words: when one is a space, a
			// line break or a paragraph break and the other is not, the
			// template's gap is deleted and the contract's inserted, so
			// that both texts come back exactly.
			tg, cg := a.text[aEnd:a.offs[e.AStart][0]], b.text[bEnd:b.offs[e.BStart][0]]
			if x > 0 && gapKind(tg) != gapKind(cg) {
				pieces = append(pieces, piece{Delete, tg}, piece{Insert, cg})
				aEnd, bEnd = a.offs[e.AStart][0], b.offs[e.BStart][0]
			}
			end := a.offs[e.AEnd-1][1]
			pieces = append(pieces, piece{Equal, a.text[aEnd:end]})
			aEnd, bEnd = end, b.offs[e.BEnd-1][1]
		case Delete:
			end := a.offs[e.AEnd-1][1]
			pieces = append(pieces, piece{Delete, a.text[aEnd:end]})
			aEnd = end
		case Insert:
			end := b.offs[e.BEnd-1][1]
			pieces = append(pieces, piece{Insert, b.text[bEnd:end]})
			bEnd = end
		}
	}
	pieces = append(pieces, piece{Equal, a.text[aEnd:]})
	return writeDocx(w, pieces, opt)
}

// DocxContentType is the media type of a redline.
const DocxContentType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

// RedlineName is a redline's file name: "CONTRACT against TEMPLATE
// redline.docx", each the file name without folder or extension, with the
// characters file systems refuse left out.
func RedlineName(contract, template string) string {
	base := func(s string) string {
		s = s[strings.LastIndexAny(s, "/\\")+1:]
		if i := strings.LastIndexByte(s, '.'); i > 0 {
			s = s[:i]
		}
		s = strings.Map(func(r rune) rune {
			if r < 0x20 || strings.ContainsRune(`<>:"/\|?*`, r) {
				return ' '
			}
			return r
		}, s)
		s = strings.Join(strings.Fields(s), " ")
		if r := []rune(s); len(r) > 60 {
			s = strings.TrimSpace(string(r[:60]))
		}
		return s
	}
	c, t := base(contract), base(template)
	if c == "" {
		c = "contract"
	}
	if t == "" {
		t = "template"
	}
	return c + " against " + t + " redline.docx"
}

// gapKind classes the white space between two words: none, spaces, a
// line break, a paragraph break (a blank line or a page break).
func gapKind(g string) int {
	switch n := strings.Count(g, "\n"); {
	case g == "":
		return 0
	case n >= 2 || strings.ContainsRune(g, '\f'):
		return 3
	case n == 1:
		return 2
	}
	return 1
}

// piece is a run of text of the redline: kept, deleted or inserted.
type piece struct {
	kind EditKind
	text string
}

// sideText is a side's whole text (furniture masked) and its tokens.
type sideText struct {
	text string
	offs [][2]int
	st   *stream
}

func wholeText(s Side, intern map[string]int) sideText {
	text := s.Doc.MaskedText()
	_, toks, offs := tokenizeAt(text)
	st := &stream{ownerLen: []int{len(toks)}}
	for k, t := range toks {
		v, ok := intern[t]
		if !ok {
			v = len(intern)
			intern[t] = v
		}
		st.ids = append(st.ids, v)
		st.toks = append(st.toks, t)
		prev := 0
		if k > 0 {
			prev = offs[k-1][1]
		}
		st.brk = append(st.brk, k == 0 || strings.ContainsAny(text[prev:offs[k][0]], "\n\f"))
		st.owner = append(st.owner, 0)
	}
	// A number at the start of a line before "." or ")" reads as a
	// section's number: sliding may pair it with another (renumbering).
	for k := range toks {
		st.label = append(st.label, isNumber(toks[k]) && st.brk[k] && k+1 < len(toks) && (toks[k+1] == "." || toks[k+1] == ")"))
	}
	return sideText{text: text, offs: offs, st: st}
}

// unequalNumbers splits the unchanged runs of a slid script where a
// section number pairs with another ("4" with "5"): the number is deleted
// and the other inserted, so the script turns one text into the other
// exactly.
func unequalNumbers(es []Edit, a, b *stream) []Edit {
	var out []Edit
	for _, e := range es {
		if e.Kind != Equal {
			out = append(out, e)
			continue
		}
		from := 0
		n := e.AEnd - e.AStart
		for k := 0; k < n; k++ {
			if a.ids[e.AStart+k] == b.ids[e.BStart+k] {
				continue
			}
			if k > from {
				out = append(out, Edit{Equal, e.AStart + from, e.AStart + k, e.BStart + from, e.BStart + k})
			}
			out = append(out, Edit{Delete, e.AStart + k, e.AStart + k + 1, e.BStart + k, e.BStart + k},
				Edit{Insert, e.AStart + k + 1, e.AStart + k + 1, e.BStart + k, e.BStart + k + 1})
			from = k + 1
		}
		if n > from {
			out = append(out, Edit{Equal, e.AStart + from, e.AEnd, e.BStart + from, e.BEnd})
		}
	}
	return out
}

const (
	nsW        = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	contentXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/><Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/></Types>`
	relsXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/></Relationships>`
	docRelsXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings" Target="settings.xml"/></Relationships>`
	stylesXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="` + nsW + `"><w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Times New Roman" w:hAnsi="Times New Roman" w:cs="Times New Roman" w:eastAsia="Times New Roman"/><w:sz w:val="22"/><w:szCs w:val="22"/><w:lang w:val="en-US"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="160" w:line="264" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style></w:styles>`
	settingsXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:settings xmlns:w="` + nsW + `"><w:trackRevisions/><w:defaultTabStop w:val="720"/><w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat></w:settings>`
	appXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>pakton</Application></Properties>`
)

// writeDocx writes the package: the pieces as paragraphs of runs, a line
// break of an inserted or deleted piece as an inserted or deleted
// paragraph mark.
func writeDocx(w io.Writer, pieces []piece, opt RedlineOptions) error {
	zw := zip.NewWriter(w)
	date := opt.Date.UTC().Format("2006-01-02T15:04:05Z")
	core := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>` + escape(opt.Title) + `</dc:title><dc:creator>` + escape(opt.Author) + `</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">` + date + `</dcterms:created></cp:coreProperties>`
	var doc strings.Builder
	doc.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n")
	doc.WriteString(`<w:document xmlns:w="` + nsW + `"><w:body>`)
	dw := &docWriter{b: &doc, attrs: ` w:author="` + escape(opt.Author) + `" w:date="` + date + `"`}
	for _, p := range pieces {
		dw.piece(p)
	}
	dw.endParagraph(Equal)
	doc.WriteString(`<w:sectPr><w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" w:gutter="0"/></w:sectPr></w:body></w:document>`)
	for _, f := range []struct{ name, body string }{
		{"[Content_Types].xml", contentXML},
		{"_rels/.rels", relsXML},
		{"word/document.xml", doc.String()},
		{"word/_rels/document.xml.rels", docRelsXML},
		{"word/styles.xml", stylesXML},
		{"word/settings.xml", settingsXML},
		{"docProps/core.xml", core},
		{"docProps/app.xml", appXML},
	} {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: opt.Date})
		if err != nil {
			return err
		}
		if _, err := io.WriteString(fw, f.body); err != nil {
			return err
		}
	}
	return zw.Close()
}

// docWriter writes runs into the current paragraph.
type docWriter struct {
	b     *strings.Builder
	attrs string // author and date of every revision
	id    int
	para  strings.Builder // the open paragraph's runs
}

// piece writes a piece: its paragraphs (split at blank lines and page
// breaks) as runs, the break between two as the end of a paragraph whose
// mark is kept, inserted or deleted with the piece; a single line break
// inside a paragraph is a line break (w:br) of the run, so a word hyphenated
// across lines stays one paragraph as in the source.
func (d *docWriter) piece(p piece) {
	for i, para := range splitParagraphs(p.text) {
		if i > 0 {
			d.endParagraph(p.kind)
		}
		d.run(p.kind, para)
	}
}

// splitParagraphs splits at each run of white space holding two line
// breaks or a page break.
func splitParagraphs(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		if !strings.ContainsRune(" \t\r\n\f", rune(s[i])) {
			i++
			continue
		}
		j, nl, ff := i, 0, false
		for j < len(s) && strings.ContainsRune(" \t\r\n\f", rune(s[j])) {
			nl += map[bool]int{true: 1}[s[j] == '\n']
			ff = ff || s[j] == '\f'
			j++
		}
		if nl >= 2 || ff {
			out = append(out, s[start:i])
			start = j
		}
		i = j
	}
	return append(out, s[start:])
}

// run writes text as one run (its line breaks as w:br), inside an
// insertion or a deletion when kind says so.
func (d *docWriter) run(kind EditKind, text string) {
	if text == "" {
		return
	}
	tag := "w:t"
	if kind == Delete {
		tag = "w:delText"
	}
	var r strings.Builder
	r.WriteString("<w:r>")
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			r.WriteString("<w:br/>")
		}
		if line = strings.TrimRight(line, "\r"); line != "" {
			fmt.Fprintf(&r, `<%s xml:space="preserve">%s</%s>`, tag, xmlText(line), tag)
		}
	}
	r.WriteString("</w:r>")
	switch kind {
	case Insert, Delete:
		d.id++
		el := map[EditKind]string{Insert: "w:ins", Delete: "w:del"}[kind]
		fmt.Fprintf(&d.para, `<%s w:id="%d"%s>%s</%s>`, el, d.id, d.attrs, r.String(), el)
	default:
		d.para.WriteString(r.String())
	}
}

// endParagraph closes the open paragraph; its mark is inserted or deleted
// when kind says so.
func (d *docWriter) endParagraph(kind EditKind) {
	d.b.WriteString("<w:p>")
	switch kind {
	case Insert:
		d.id++
		fmt.Fprintf(d.b, `<w:pPr><w:rPr><w:ins w:id="%d"%s/></w:rPr></w:pPr>`, d.id, d.attrs)
	case Delete:
		d.id++
		fmt.Fprintf(d.b, `<w:pPr><w:rPr><w:del w:id="%d"%s/></w:rPr></w:pPr>`, d.id, d.attrs)
	}
	d.b.WriteString(d.para.String())
	d.b.WriteString("</w:p>")
	d.para.Reset()
}

// xmlText escapes text for an element, tabs as spaces and characters XML
// 1.0 cannot hold left out.
func xmlText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteByte(' ')
		case r == utf8.RuneError || r < 0x20 || r == 0xFFFE || r == 0xFFFF || unicode.Is(unicode.Cs, r):
		default:
			b.WriteRune(r)
		}
	}
	return escape(b.String())
}

func escape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
