package parse

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"unicode/utf16"

	"github.com/pakton/pakton/internal/cfb"
	"github.com/pakton/pakton/internal/document"
)

// Canonical text of a Word 97–2003 document (.doc) is the main document's
// text as Word displays it, in the paragraph layout every word-processor
// format shares (see paras.go), read in pure Go from the Word binary
// format (MS-DOC):
//
//   - The characters come from the piece table (the Clx in the table
//     stream), which maps character positions to runs of 8-bit
//     (Windows-1252) or UTF-16 bytes in the WordDocument stream, so fast-
//     saved files read in the right order. Only the main document's
//     characters (the first ccpText) are read: footnotes, headers,
//     comments and text boxes are left out, as for DOCX.
//   - Paragraph marks (0x0D) end paragraphs; 0x0B is a line break inside
//     one; page, column and section breaks end the paragraph. Of a field,
//     the result is kept and the instructions dropped. Pictures, object
//     anchors and footnote marks are dropped. Text marked deleted (a
//     tracked deletion) or hidden is left out, as Word shows it with
//     changes accepted.
//   - Each paragraph's properties (its style, list and outline level, table
//     flags) are read from the paragraph FKPs; a heading style (built-in
//     "heading 1"–"heading 9") or an outline level makes a heading block,
//     and list numbering is rebuilt from the list tables (LSTF/LVL and the
//     LFO overrides) the way Word counts it, written before the text with
//     its follower (tab, space or nothing).
//   - Table cells (0x07) and rows become one tab-separated line per row,
//     as for DOCX.
//
// Word 6 and Word 95 files (an older layout) and files this reader cannot
// follow are handed to antiword when it is installed; otherwise the error
// names the Debian package that reads them.

// docMagicFIB is the FIB's wIdent of every Word document since Word 6.
const docMagicFIB = 0xA5EC

// nFib of Word 97, the oldest layout this reader follows.
const docMinNFib = 0xC0

var errNoAntiword = fmt.Errorf("%w: install the Debian package antiword to read Word 6/95 documents, or save the file as .docx", ErrMissingTool)

// errDocOld marks a file in a layout older than Word 97.
var errDocOld = errors.New("Word 6/95 layout")

func parseDOC(ctx context.Context, data []byte, lim *textBudget) (*document.Document, error) {
	head := bytes.TrimLeft(data[:min(len(data), 512)], " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(head, []byte(`{\rtf`)):
		// Word saves RTF under .doc when asked to; so do many mail systems.
		doc, err := parseRTF(data, lim)
		if doc != nil {
			doc.Format = "doc"
		}
		return doc, err
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		doc, err := parseDOCX(data, lim)
		if doc != nil {
			doc.Format = "doc"
		}
		return doc, err
	case !bytes.HasPrefix(data, cfb.Magic):
		if t := strings.ToLower(string(head[:min(len(head), 256)])); strings.Contains(t, "<html") || strings.Contains(t, "<!doctype html") {
			doc, err := parseHTML(ctx, data, lim)
			if doc != nil {
				doc.Format = "doc"
			}
			return doc, err
		}
		return nil, fmt.Errorf("%w: not a Word document (no compound-file header)", ErrCorrupt)
	}
	doc, err := readWordBinary(data, lim)
	if errors.Is(err, errDocOld) {
		return docWithAntiword(ctx, data)
	}
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// wordDoc holds the streams and tables of one Word binary document.
type wordDoc struct {
	word, table []byte
	fcLcb       []uint32 // FibRgFcLcb: fc, lcb pairs
	ccpText     int
	pieces      []docPiece
	papx        docRuns // paragraph properties by FC range
	chpx        docRuns // character properties by FC range
	styles      []docStyle
	lists       *docLists
}

// docPiece is one piece of the piece table: characters [cp, cpEnd) stored
// at byte offset fc, 8-bit or UTF-16.
type docPiece struct {
	cp, cpEnd  int
	fc         int
	compressed bool
	sprms      []byte // properties the piece's PRM applies to its paragraphs
}

func (d *wordDoc) fcLcbAt(i int) (fc, lcb uint32) {
	if 2*i+1 >= len(d.fcLcb) {
		return 0, 0
	}
	return d.fcLcb[2*i], d.fcLcb[2*i+1]
}

// tableBytes returns lcb bytes at fc of the table stream, or nil.
func (d *wordDoc) tableBytes(i int) []byte {
	fc, lcb := d.fcLcbAt(i)
	if lcb == 0 || uint64(fc)+uint64(lcb) > uint64(len(d.table)) {
		return nil
	}
	return d.table[fc : fc+lcb]
}

// Indexes into FibRgFcLcb97.
const (
	fibStshf       = 1
	fibPlcfBteChpx = 12
	fibPlcfBtePapx = 13
	fibClx         = 33
	fibPlfLst      = 73
	fibPlfLfo      = 74
)

func readWordBinary(data []byte, lim *textBudget) (*document.Document, error) {
	f, err := cfb.Open(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	root := f.Root()
	word, err := root.Stream("WordDocument")
	if errors.Is(err, cfb.ErrNotFound) {
		if root.Storage("__substg1.0_0037001F") != nil || hasStream(root, "__substg1.0_0037001E") {
			return nil, fmt.Errorf("%w: the file is an Outlook message; name it .msg", ErrUnsupported)
		}
		if hasStream(root, "EncryptedPackage") {
			return nil, fmt.Errorf("%w: the Word document is password-protected; remove the password in Word and save again", ErrEncrypted)
		}
		if hasStream(root, "Workbook") || hasStream(root, "Book") || hasStream(root, "PowerPoint Document") {
			return nil, fmt.Errorf("%w: the file is an Excel or PowerPoint file, not a Word document", ErrUnsupported)
		}
		return nil, fmt.Errorf("%w: no WordDocument stream; not a Word document", ErrCorrupt)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	le := binary.LittleEndian
	if len(word) < 34 || le.Uint16(word) != docMagicFIB {
		return nil, fmt.Errorf("%w: the WordDocument stream has no Word header", ErrCorrupt)
	}
	nFib := le.Uint16(word[2:])
	flags := le.Uint16(word[0x0A:])
	if flags&0x0100 != 0 {
		return nil, fmt.Errorf("%w: the Word document is password-protected; remove the password in Word and save again", ErrEncrypted)
	}
	if nFib < docMinNFib {
		return nil, errDocOld
	}
	tableName := "0Table"
	if flags&0x0200 != 0 {
		tableName = "1Table"
	}
	table, err := root.Stream(tableName)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	d := &wordDoc{word: word, table: table}
	if err := d.readFIB(); err != nil {
		return nil, err
	}
	if err := d.readPieces(); err != nil {
		return nil, err
	}
	// Properties help the layout; a document whose property tables are
	// damaged is still read as plain paragraphs.
	d.papx = d.readRuns(fibPlcfBtePapx, true)
	d.chpx = d.readRuns(fibPlcfBteChpx, false)
	d.styles = readDocStyles(d.tableBytes(fibStshf))
	var lvls []byte // the LVLs follow the PlfLst in the table stream
	if fc, lcb := d.fcLcbAt(fibPlfLst); lcb > 0 && uint64(fc)+uint64(lcb) <= uint64(len(table)) {
		lvls = table[fc+lcb:]
	}
	d.lists = readDocLists(d.tableBytes(fibPlfLst), d.tableBytes(fibPlfLfo), lvls)
	text, blocks := d.render(lim)
	if err := lim.Err(); err != nil {
		return nil, err
	}
	return &document.Document{Format: "doc", Text: text, Blocks: blocks}, nil
}

func hasStream(s *cfb.Storage, name string) bool {
	_, err := s.Stream(name)
	return err == nil
}

// readFIB reads ccpText and the fc/lcb table of the FIB.
func (d *wordDoc) readFIB() error {
	le := binary.LittleEndian
	w := d.word
	pos := 32
	bad := fmt.Errorf("%w: the Word header (FIB) is truncated", ErrCorrupt)
	if pos+2 > len(w) {
		return bad
	}
	csw := int(le.Uint16(w[pos:]))
	pos += 2 + 2*csw
	if pos+2 > len(w) {
		return bad
	}
	cslw := int(le.Uint16(w[pos:]))
	pos += 2
	if pos+4*cslw > len(w) || cslw < 4 {
		return bad
	}
	d.ccpText = int(int32(le.Uint32(w[pos+4*3:])))
	pos += 4 * cslw
	if pos+2 > len(w) {
		return bad
	}
	cb := int(le.Uint16(w[pos:]))
	pos += 2
	if pos+8*cb > len(w) {
		return bad
	}
	for i := 0; i < 2*cb; i++ {
		d.fcLcb = append(d.fcLcb, le.Uint32(w[pos+4*i:]))
	}
	if d.ccpText < 0 || d.ccpText > len(w) {
		return fmt.Errorf("%w: the Word header declares %d characters of text", ErrCorrupt, d.ccpText)
	}
	return nil
}

// readPieces reads the piece table from the Clx.
func (d *wordDoc) readPieces() error {
	clx := d.tableBytes(fibClx)
	if clx == nil {
		return fmt.Errorf("%w: the Word document has no piece table", ErrCorrupt)
	}
	le := binary.LittleEndian
	var prcs [][]byte
	pos := 0
	for pos < len(clx) && clx[pos] == 0x01 { // Prc: grpprl for pieces
		if pos+3 > len(clx) {
			return fmt.Errorf("%w: truncated piece table", ErrCorrupt)
		}
		n := int(int16(le.Uint16(clx[pos+1:])))
		if n < 0 || pos+3+n > len(clx) {
			return fmt.Errorf("%w: truncated piece table", ErrCorrupt)
		}
		prcs = append(prcs, clx[pos+3:pos+3+n])
		pos += 3 + n
	}
	if pos+5 > len(clx) || clx[pos] != 0x02 {
		return fmt.Errorf("%w: no piece table in the Clx", ErrCorrupt)
	}
	lcb := int(le.Uint32(clx[pos+1:]))
	plc := clx[pos+5:]
	if lcb < 4 || lcb > len(plc) || (lcb-4)%12 != 0 {
		return fmt.Errorf("%w: malformed piece table", ErrCorrupt)
	}
	n := (lcb - 4) / 12
	for i := 0; i < n; i++ {
		cp, cpEnd := int(le.Uint32(plc[4*i:])), int(le.Uint32(plc[4*i+4:]))
		pcd := plc[4*(n+1)+8*i:]
		fcRaw := le.Uint32(pcd[2:])
		p := docPiece{cp: cp, cpEnd: cpEnd, compressed: fcRaw&(1<<30) != 0}
		p.fc = int(fcRaw &^ (3 << 30))
		if p.compressed {
			p.fc /= 2
		}
		if prm := le.Uint16(pcd[6:]); prm&1 == 1 {
			if k := int(prm >> 1); k < len(prcs) {
				p.sprms = prcs[k]
			}
		}
		if cpEnd < cp || cpEnd-cp > len(d.word) {
			return fmt.Errorf("%w: a piece of the piece table is out of range", ErrCorrupt)
		}
		d.pieces = append(d.pieces, p)
	}
	return nil
}

// docChar is one character of the main document with the file offset of
// its bytes (for property lookups).
type docChar struct {
	r     rune
	fc    int
	piece int
}

// eachChar calls f with the main document's characters in order, surrogate
// pairs joined, until f returns false. The characters are read one at a
// time: a document of many millions costs no memory per character.
func (d *wordDoc) eachChar(f func(docChar) bool) {
	var pend docChar // a high surrogate waiting for its pair
	have := false
	emit := func(c docChar) bool {
		if have {
			have = false
			if c.r >= 0xDC00 && c.r < 0xE000 {
				pend.r = utf16.DecodeRune(pend.r, c.r)
				return f(pend)
			}
			pend.r = '\uFFFD'
			if !f(pend) {
				return false
			}
		}
		switch {
		case utf16.IsSurrogate(c.r) && c.r < 0xDC00:
			pend, have = c, true
			return true
		case utf16.IsSurrogate(c.r):
			c.r = '\uFFFD'
		}
		return f(c)
	}
	for pi, p := range d.pieces {
		for cp := p.cp; cp < p.cpEnd && cp < d.ccpText; cp++ {
			k := cp - p.cp
			var c docChar
			if p.compressed {
				off := p.fc + k
				if off >= len(d.word) {
					break
				}
				b := d.word[off]
				c = docChar{rune(b), off, pi}
				if b >= 0x80 && b < 0xA0 {
					c.r = cp1252[b-0x80]
				}
			} else {
				off := p.fc + 2*k
				if off+2 > len(d.word) {
					break
				}
				c = docChar{rune(binary.LittleEndian.Uint16(d.word[off:])), off, pi}
			}
			if !emit(c) {
				return
			}
		}
	}
	if have {
		pend.r = '\uFFFD'
		f(pend)
	}
}

// render builds the canonical text from the characters and properties.
func (d *wordDoc) render(lim *textBudget) (string, []document.Block) {
	var (
		w      = paraWriter{lim: lim}
		b      strings.Builder
		fields []bool // per open field: true once its separator was seen (result follows)
		instr  int    // open fields whose separator was not seen: inside instructions
		cell   []wpPara
		cells  [][]wpPara
		nums   = newDocCounters(d.lists)
	)
	endPara := func(c docChar, endsCell bool) {
		pp := d.paraProps(c.fc, c.piece)
		text := b.String()
		b.Reset()
		kind, level := document.BlockKind(""), 0
		label, suffix := "", "\t"
		outline := pp.outline
		st := d.style(pp.istd)
		if outline < 0 || outline > 8 {
			outline = st.outline
		}
		ilfo, ilvl := pp.ilfo, pp.ilvl
		if !pp.hasIlfo {
			ilfo = st.ilfo
			if !pp.hasIlvl {
				ilvl = st.ilvl
			}
		}
		if ilfo > 0 {
			if l, sfx, ok := nums.next(ilfo, ilvl); ok {
				label, suffix = l, sfx
				kind, level = document.BlockListItem, ilvl
			}
		}
		if outline >= 0 && outline <= 8 {
			kind, level = document.BlockHeading, outline
		}
		pw := w.sub()
		pw.add(label, suffix, text, kind, level)
		switch {
		case pp.rowEnd:
			if len(cell) > 0 || len(cells) > 0 {
				cells = append(cells, cell)
			}
			// The row-end mark carries no text of its own.
			cell = nil
			if len(cells) > 0 {
				w.row(cells)
			}
			cells = nil
		case endsCell || pp.inTable:
			cell = append(cell, pw.out...)
			if endsCell {
				cells = append(cells, cell)
				cell = nil
			}
		default:
			if len(cells) > 0 || len(cell) > 0 {
				if len(cell) > 0 {
					cells = append(cells, cell)
				}
				w.row(cells)
				cells, cell = nil, nil
			}
			w.out = append(w.out, pw.out...)
		}
	}
	d.eachChar(func(c docChar) bool {
		if w.full() {
			return false
		}
		switch c.r {
		case 0x13:
			fields = append(fields, false)
			instr++
			return true
		case 0x14:
			if n := len(fields); n > 0 && !fields[n-1] {
				fields[n-1] = true
				instr--
			}
			return true
		case 0x15:
			if n := len(fields); n > 0 {
				if !fields[n-1] {
					instr--
				}
				fields = fields[:n-1]
			}
			return true
		}
		if instr > 0 {
			return true // inside a field's instructions
		}
		if d.hiddenAt(c.fc) && c.r != 0x0D && c.r != 0x07 {
			return true
		}
		if !lim.fits(b.Len() + 4) {
			return false
		}
		switch c.r {
		case 0x0D:
			endPara(c, false)
		case 0x07:
			endPara(c, true)
		case 0x0C, 0x0E:
			endPara(c, false)
		case 0x0B:
			b.WriteByte('\n')
		case 0x09:
			b.WriteByte('\t')
		case 0x1E:
			b.WriteByte('-')
		case 0x1F, 0x01, 0x02, 0x03, 0x04, 0x05, 0x08:
		default:
			if c.r >= 0x20 {
				b.WriteRune(c.r)
			}
		}
		return true
	})
	if b.Len() > 0 {
		pw := w.sub()
		pw.add("", "", b.String(), "", 0)
		w.out = append(w.out, pw.out...)
	}
	if len(cell) > 0 {
		cells = append(cells, cell)
	}
	if len(cells) > 0 {
		w.row(cells)
	}
	return w.render()
}

// docWithAntiword reads a .doc this reader does not follow with antiword.
func docWithAntiword(ctx context.Context, data []byte) (*document.Document, error) {
	bin, err := exec.LookPath("antiword")
	if err != nil {
		return nil, errNoAntiword
	}
	f, err := os.CreateTemp("", "pakton-*.doc")
	if err != nil {
		return nil, fmt.Errorf("antiword: temporary file: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, fmt.Errorf("antiword: temporary file: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("antiword: temporary file: %w", err)
	}
	// -w 0: one line per paragraph; -m UTF-8.txt: UTF-8 output.
	cmd := exec.CommandContext(ctx, bin, "-w", "0", "-m", "UTF-8.txt", f.Name())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := lastBytes(stderr.String(), 300)
		if strings.Contains(strings.ToLower(msg), "encrypt") {
			return nil, fmt.Errorf("%w: the Word document is password-protected", ErrEncrypted)
		}
		return nil, fmt.Errorf("%w: antiword could not read it: %s", ErrCorrupt, msg)
	}
	var w paraWriter
	for _, p := range strings.Split(canonicalText(stdout.String()), "\n") {
		w.add("", "", p, "", 0)
	}
	text, blocks := w.render()
	return &document.Document{Format: "doc", Text: text, Blocks: blocks, Meta: &document.Meta{Reader: "antiword"}}, nil
}
