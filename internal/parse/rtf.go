package parse

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/pakton/pakton/internal/document"
)

// Canonical text of an RTF file is the body as a word processor displays
// it, in the paragraph layout every word-processor format shares (see
// paras.go):
//
//   - \par ends a paragraph, \line is a line break inside one, \tab a tab;
//     \page and \sect end the paragraph too.
//   - Numbering is the text the writer generated for display: Word,
//     LibreOffice and WordPad put it in a {\listtext …} (or older
//     {\pntext …}) group before each numbered paragraph, so it is taken
//     from there, as the label, never recomputed.
//   - A paragraph whose style is a built-in heading ("heading 2") or that
//     carries \outlinelevelN is a heading block at that level.
//   - Hidden text (\v), deleted revisions (\deleted), field instructions,
//     headers, footers, footnotes, comments, pictures, objects' data and
//     every destination marked \* that pakton does not know are left out;
//     a field's result is kept.
//   - Text bytes (\'hh and plain 8-bit) are decoded in the code page of the
//     font in use (\fcharset, \cpg) or of the document (\ansicpg); \uN is
//     Unicode, its \ucN fallback characters skipped.
//   - Tables (\intbl … \cell … \row) become one tab-separated line per row,
//     as for DOCX.

// rtfMaxDepth bounds group nesting; real documents stay far below it.
const rtfMaxDepth = 512

// rtfMaxEntries bounds the font table and the stylesheet (real documents
// hold dozens to hundreds of each); entries past it are read as no entry.
// rtfMaxName bounds a style's name.
const (
	rtfMaxEntries = 10_000
	rtfMaxName    = 256
)

// rtfState is what an RTF group carries and a closing brace restores.
type rtfState struct {
	dest    rtfDest
	uc      int    // fallback characters after \uN
	font    int    // current \fN
	hidden  bool   // \v or \deleted
	inTable bool   // \intbl
	style   int    // \sN of the paragraph
	outline int    // \outlinelevelN, -1 when none
	listLvl int    // \ilvlN
	inList  bool   // \lsN seen since \pard
	cp      string // code page of the current font, "" for the document's
}

// rtfDest says where text goes.
type rtfDest int

const (
	rtfBody      rtfDest = iota
	rtfSkip              // an ignored destination
	rtfListText          // the generated number of the next paragraph
	rtfFontTable         // font names and charsets
	rtfStyles            // stylesheet entries
)

// rtfFont is one font table entry.
type rtfFont struct{ cp string }

// rtfStyle is one paragraph style of the stylesheet.
type rtfStyle struct {
	name    strings.Builder
	outline int
}

type rtfReader struct {
	src   []byte
	pos   int
	st    rtfState
	stack []rtfState

	docCP  string
	fonts  map[int]*rtfFont
	styles map[int]*rtfStyle
	entry  int // font or style number of the table entry being read

	text  strings.Builder // the paragraph being read
	bytes []byte          // 8-bit text not yet decoded
	label strings.Builder // listtext of the paragraph being read
	skip  int             // fallback characters still to skip after \uN
	hi    rune            // pending high surrogate of \uN

	w     paraWriter
	cell  []wpPara   // paragraphs of the table cell being read
	cells [][]wpPara // cells of the row being read
}

func parseRTF(data []byte, lim *textBudget) (*document.Document, error) {
	if !bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n\x00\ufeff"), []byte(`{\rtf`)) {
		return nil, fmt.Errorf("%w: not an RTF file (no {\\rtf header)", ErrCorrupt)
	}
	r := &rtfReader{src: data, docCP: "1252", fonts: map[int]*rtfFont{}, styles: map[int]*rtfStyle{}}
	r.st = rtfState{uc: 1, font: -1, style: 0, outline: -1}
	r.w.lim = lim
	if err := r.run(); err != nil {
		return nil, err
	}
	r.endPara()
	r.endRow()
	if err := lim.Err(); err != nil {
		return nil, err
	}
	text, blocks := r.w.render()
	return &document.Document{Format: "rtf", Text: text, Blocks: blocks}, nil
}

func (r *rtfReader) run() error {
	for r.pos < len(r.src) {
		if r.w.full() {
			return r.w.lim.Err()
		}
		c := r.src[r.pos]
		switch c {
		case '{':
			r.pos++
			if len(r.stack) >= rtfMaxDepth {
				return fmt.Errorf("%w: RTF groups nested more than %d deep", ErrCorrupt, rtfMaxDepth)
			}
			r.flushBytes()
			r.stack = append(r.stack, r.st)
		case '}':
			r.pos++
			r.flushBytes()
			if len(r.stack) == 0 {
				return nil // the end of the document; anything after it is ignored
			}
			prev := r.st
			r.st = r.stack[len(r.stack)-1]
			r.stack = r.stack[:len(r.stack)-1]
			r.closeGroup(prev)
		case '\\':
			r.pos++
			if err := r.control(); err != nil {
				return err
			}
		case '\r', '\n':
			r.pos++
		default:
			r.pos++
			r.char(c)
		}
	}
	return nil // an unterminated group: keep what was read, as word processors do
}

// closeGroup finishes a table entry when its group ends.
func (r *rtfReader) closeGroup(prev rtfState) {
	if prev.dest == rtfListText && r.st.dest != rtfListText {
		r.flushBytes()
	}
}

// char handles one byte of text.
func (r *rtfReader) char(c byte) {
	if r.skip > 0 {
		r.skip--
		return
	}
	if r.st.dest == rtfSkip || r.st.hidden && r.st.dest == rtfBody {
		return
	}
	if r.st.dest == rtfFontTable || r.st.dest == rtfStyles {
		if c == ';' {
			return
		}
	}
	if !r.w.lim.fits(r.pending() + 1) {
		return
	}
	r.bytes = append(r.bytes, c)
}

// pending is the text read but not yet in a finished paragraph, counted
// against the document's limits.
func (r *rtfReader) pending() int { return r.text.Len() + r.label.Len() + len(r.bytes) }

// flushBytes decodes pending 8-bit text in the current code page.
func (r *rtfReader) flushBytes() {
	if len(r.bytes) == 0 {
		return
	}
	cp := r.st.cp
	if cp == "" {
		cp = r.docCP
	}
	s := decodeCodePage(r.bytes, cp)
	r.bytes = r.bytes[:0]
	r.emit(s)
}

// emit adds decoded text to the current destination.
func (r *rtfReader) emit(s string) {
	switch r.st.dest {
	case rtfBody:
		if !r.st.hidden && r.w.lim.fits(r.pending()+len(s)) {
			r.text.WriteString(s)
		}
	case rtfListText:
		if r.w.lim.fits(r.pending() + len(s)) {
			r.label.WriteString(s)
		}
	case rtfStyles:
		if st := r.styles[r.entry]; st != nil && st.name.Len() < rtfMaxName {
			st.name.WriteString(s)
		}
	}
}

// control reads a control word or symbol after its backslash.
func (r *rtfReader) control() error {
	if r.pos >= len(r.src) {
		return nil
	}
	c := r.src[r.pos]
	if !isASCIILetter(c) {
		r.pos++
		r.symbol(c)
		return nil
	}
	// A control word has at most 32 letters and its parameter at most 10
	// digits; longer ones are read whole and ignored, not taken as text.
	start := r.pos
	for r.pos < len(r.src) && isASCIILetter(r.src[r.pos]) {
		r.pos++
	}
	word := string(r.src[start:min(r.pos, start+32)])
	if r.pos-start > 32 {
		word = "" // no control word is this long: ignored
	}
	param, hasParam := 0, false
	if r.pos < len(r.src) && (r.src[r.pos] == '-' || isDigit(r.src[r.pos])) {
		ps := r.pos
		r.pos++
		for r.pos < len(r.src) && isDigit(r.src[r.pos]) {
			r.pos++
		}
		if r.pos-ps <= 11 {
			if n, err := strconv.Atoi(string(r.src[ps:r.pos])); err == nil {
				param, hasParam = n, true
			}
		}
	}
	if r.pos < len(r.src) && r.src[r.pos] == ' ' {
		r.pos++
	}
	return r.word(word, param, hasParam)
}

// symbol handles a control symbol (\' \\ \{ \} \~ \- \_ \* …).
func (r *rtfReader) symbol(c byte) {
	switch c {
	case '\'':
		if r.pos+2 <= len(r.src) {
			if v, err := strconv.ParseUint(string(r.src[r.pos:r.pos+2]), 16, 8); err == nil {
				r.pos += 2
				r.char(byte(v))
				return
			}
		}
	case '\\', '{', '}':
		r.char(c)
	case '~':
		r.text1("\u00a0")
	case '_':
		r.text1("\u2011")
	case '-': // optional hyphen: not shown
	case '*':
		// An ignorable destination: skipped unless a known word inside
		// switches it on again (none of ours does).
		r.st.dest = rtfSkip
	case '\r', '\n':
		r.par()
	case '\t':
		r.text1("\t")
	}
}

// text1 adds a character that counts as one fallback character.
func (r *rtfReader) text1(s string) {
	if r.skip > 0 {
		r.skip--
		return
	}
	r.flushBytes()
	if r.st.dest != rtfSkip {
		r.emit(s)
	}
}

// rtfSkipped are destinations whose content is not body text.
var rtfSkipped = map[string]bool{
	"colortbl": true, "info": true, "pict": true, "objdata": true, "header": true, "footer": true,
	"headerl": true, "headerr": true, "headerf": true, "footerl": true, "footerr": true, "footerf": true,
	"footnote": true, "annotation": true, "atnid": true, "atnauthor": true, "fldinst": true, "themedata": true,
	"colorschememapping": true, "latentstyles": true, "datastore": true, "xmlnstbl": true, "listtable": true,
	"listoverridetable": true, "rsidtbl": true, "generator": true, "mmathPr": true, "pgdsctbl": true,
	"pn": true, "revtbl": true, "filetbl": true, "xe": true, "tc": true, "bkmkstart": true, "bkmkend": true,
	"shpinst": true, "nonshppict": true, "userprops": true, "template": true, "docvar": true, "falt": true,
	"panose": true, "fname": true, "protusertbl": true, "wgrffmtfilter": true, "listpicture": true,
}

// word handles one control word.
func (r *rtfReader) word(w string, n int, has bool) error {
	if rtfSkipped[w] {
		r.flushBytes()
		r.st.dest = rtfSkip
		return nil
	}
	if r.st.dest == rtfSkip {
		if w == "bin" && has && n > 0 {
			r.pos = min(len(r.src), r.pos+n)
		}
		return nil
	}
	switch w {
	case "bin":
		if has && n > 0 {
			r.pos = min(len(r.src), r.pos+n)
		}
	case "ansicpg":
		r.docCP = strconv.Itoa(n)
	case "mac":
		r.docCP = "mac"
	case "pc":
		r.docCP = "437"
	case "pca":
		r.docCP = "850"
	case "fonttbl":
		r.flushBytes()
		r.st.dest = rtfFontTable
	case "stylesheet":
		r.flushBytes()
		r.st.dest = rtfStyles
	case "listtext", "pntext":
		r.flushBytes()
		r.st.dest = rtfListText
		r.label.Reset()
	case "f":
		if r.st.dest == rtfFontTable {
			r.entry = n
			if len(r.fonts) < rtfMaxEntries {
				r.fonts[n] = &rtfFont{}
			}
			return nil
		}
		r.flushBytes()
		r.st.font = n
		r.st.cp = ""
		if f := r.fonts[n]; f != nil {
			r.st.cp = f.cp
		}
	case "fcharset":
		if f := r.fonts[r.entry]; f != nil && r.st.dest == rtfFontTable {
			if f.cp == "" || f.cp == "1252" {
				f.cp = charsetCodePage(n)
			}
		}
	case "cpg":
		if f := r.fonts[r.entry]; f != nil && r.st.dest == rtfFontTable {
			f.cp = strconv.Itoa(n)
		}
	case "s":
		if r.st.dest == rtfStyles {
			r.entry = n
			if len(r.styles) < rtfMaxEntries {
				r.styles[n] = &rtfStyle{outline: -1}
			}
			return nil
		}
		r.st.style = n
	case "cs", "ds", "ts":
		if r.st.dest == rtfStyles {
			r.entry = -1 - n // character, section and table styles are not paragraphs
		}
	case "outlinelevel":
		if r.st.dest == rtfStyles {
			if s := r.styles[r.entry]; s != nil {
				s.outline = n
			}
			return nil
		}
		r.st.outline = n
	case "uc":
		if n >= 0 && n < 10 {
			r.st.uc = n
		}
	case "u":
		r.flushBytes()
		r.unicode(n)
	case "par":
		r.par()
	case "line":
		r.text1("\n")
	case "tab":
		r.text1("\t")
	case "page", "sect":
		r.par()
	case "pard":
		r.st.style, r.st.outline, r.st.inTable, r.st.inList, r.st.listLvl = 0, -1, false, false, 0
	case "plain":
		r.st.hidden = false
	case "intbl":
		r.st.inTable = true
	case "ls":
		r.st.inList = true
	case "ilvl":
		r.st.listLvl = n
	case "cell", "nestcell":
		r.endCell()
	case "row", "nestrow":
		r.endRow()
	case "v", "deleted":
		r.flushBytes()
		r.st.hidden = !has || n != 0
	case "emdash":
		r.text1("—")
	case "endash":
		r.text1("–")
	case "lquote":
		r.text1("‘")
	case "rquote":
		r.text1("’")
	case "ldblquote":
		r.text1("“")
	case "rdblquote":
		r.text1("”")
	case "bullet":
		r.text1("•")
	case "emspace", "enspace", "qmspace":
		r.text1(" ")
	case "zwj", "zwnj", "ltrmark", "rtlmark", "zwbo", "zwnbo":
	default:
		if r.skip > 0 {
			r.skip-- // a control word counts as one fallback character
		}
	}
	return nil
}

// unicode handles \uN.
func (r *rtfReader) unicode(n int) {
	if n < 0 {
		n += 65536
	}
	c := rune(n)
	r.skip = r.st.uc
	switch {
	case utf16.IsSurrogate(c) && c < 0xDC00:
		r.hi = c
		return
	case utf16.IsSurrogate(c):
		if r.hi != 0 {
			c = utf16.DecodeRune(r.hi, c)
		} else {
			c = '\uFFFD'
		}
	}
	r.hi = 0
	if r.st.dest != rtfSkip {
		r.emit(string(c))
	}
}

// par ends the current paragraph.
func (r *rtfReader) par() {
	r.flushBytes()
	if r.st.dest != rtfBody {
		return
	}
	r.endPara()
}

// endPara adds the paragraph read so far to the cell or the document.
func (r *rtfReader) endPara() {
	r.flushBytes()
	text := r.text.String()
	label := r.label.String()
	r.text.Reset()
	r.label.Reset()
	kind, level := document.BlockKind(""), 0
	outline := r.st.outline
	if outline < 0 {
		if s := r.styles[r.st.style]; s != nil {
			outline = s.outline
			if outline < 0 {
				outline = headingStyleLevel(s.name.String())
			}
		}
	}
	label, suffix := splitListText(label)
	switch {
	case outline >= 0 && outline <= 8:
		kind, level = document.BlockHeading, outline
	case label != "" || r.st.inList:
		kind, level = document.BlockListItem, r.st.listLvl
	}
	if r.st.inTable {
		w := r.w.sub()
		w.add(label, suffix, text, kind, level)
		r.cell = append(r.cell, w.out...)
		return
	}
	r.endRow() // a row left open by a writer that forgot \row
	r.w.add(label, suffix, text, kind, level)
}

// splitListText separates the generated number from the separator that
// follows it ("1.\t" → "1.", "\t"). Bullets keep their glyph as the label.
func splitListText(s string) (label, suffix string) {
	t := strings.TrimRight(s, " \t\u00a0")
	suffix = s[len(t):]
	if strings.Contains(suffix, "\t") {
		suffix = "\t"
	} else if suffix != "" {
		suffix = " "
	} else {
		suffix = "\t"
	}
	return bulletGlyphs(strings.TrimSpace(t)), suffix
}

// endCell closes a table cell.
func (r *rtfReader) endCell() {
	r.flushBytes()
	if r.text.Len() > 0 || r.label.Len() > 0 {
		inTable := r.st.inTable
		r.st.inTable = true
		r.endPara()
		r.st.inTable = inTable
	}
	r.cells = append(r.cells, r.cell)
	r.cell = nil
}

// endRow writes the table row read so far.
func (r *rtfReader) endRow() {
	if len(r.cell) > 0 {
		r.cells = append(r.cells, r.cell)
		r.cell = nil
	}
	if len(r.cells) > 0 {
		r.w.row(r.cells)
		r.cells = nil
	}
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool       { return c >= '0' && c <= '9' }
