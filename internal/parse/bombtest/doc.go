package bombtest

import (
	"encoding/binary"
	"io"
)

// Word 97–2003 documents (MS-DOC) written from their parts: a FIB, 8-bit
// text in one or more pieces, and the bin tables of character and
// paragraph property pages (FKPs).

const (
	docTextFC   = 1024 // where the text starts in the WordDocument stream
	docFIBSize  = 898
	fibChpx     = 12
	fibPapx     = 13
	fibClx      = 33
	chpxPerPage = 101 // the most runs a character FKP holds
	papxPerPage = 29  // the most runs a paragraph FKP holds
)

var le = binary.LittleEndian

// wordDoc is the parts of a Word document before they are laid out.
type wordDoc struct {
	text      []byte   // 8-bit text
	chpxPages [][]byte // character FKPs, 512 bytes each
	papxPages [][]byte // paragraph FKPs
	chpxBin   []int    // page index into chpxPages for each bin-table entry (nil: each page once)
}

// fkp returns a property page of runs starting at the file offsets fcs
// (the last one ends the last run), each with no properties of its own
// but, for a paragraph page, style 0.
func fkp(fcs []int, papx bool) []byte {
	p := make([]byte, 512)
	crun := len(fcs) - 1
	for i, fc := range fcs {
		le.PutUint32(p[4*i:], uint32(fc))
	}
	if papx {
		// One PAPX shared by every run: cb=1 (2 bytes: istd only), at the
		// end of the page.
		off := 510 - 4
		p[off] = 1
		le.PutUint16(p[off+1:], 0)
		for j := 0; j < crun; j++ {
			p[4*(crun+1)+13*j] = byte(off / 2)
		}
	}
	p[511] = byte(crun)
	return p
}

// bytes lays the document out as a compound file.
func (d *wordDoc) write(w io.Writer) error {
	// WordDocument: FIB, text, then the FKPs on 512-byte pages.
	textEnd := docTextFC + len(d.text)
	firstPage := (textEnd + 511) / 512
	word := make([]byte, 512*(firstPage+len(d.chpxPages)+len(d.papxPages)))
	le.PutUint16(word[0:], 0xA5EC)
	le.PutUint16(word[2:], 0x00C1)
	le.PutUint16(word[0x0A:], 0x0200) // the table stream is 1Table
	le.PutUint16(word[32:], 14)
	le.PutUint16(word[62:], 22)
	le.PutUint32(word[64+12:], uint32(len(d.text)))
	le.PutUint16(word[152:], 93)
	copy(word[docTextFC:], d.text)
	for i, p := range d.chpxPages {
		copy(word[512*(firstPage+i):], p)
	}
	papxFirst := firstPage + len(d.chpxPages)
	for i, p := range d.papxPages {
		copy(word[512*(papxFirst+i):], p)
	}

	// Table stream: the Clx, then the two bin tables.
	var table []byte
	setFcLcb := func(i, fc, lcb int) {
		le.PutUint32(word[154+8*i:], uint32(fc))
		le.PutUint32(word[154+8*i+4:], uint32(lcb))
	}
	pieces := [][2]int{{0, len(d.text)}}
	clx := []byte{0x02, 0, 0, 0, 0}
	for _, p := range pieces {
		clx = le.AppendUint32(clx, uint32(p[0]))
	}
	clx = le.AppendUint32(clx, uint32(pieces[len(pieces)-1][1]))
	for _, p := range pieces {
		pcd := make([]byte, 8)
		le.PutUint32(pcd[2:], uint32(2*(docTextFC+p[0]))|1<<30)
		clx = append(clx, pcd...)
	}
	le.PutUint32(clx[1:], uint32(len(clx)-5))
	setFcLcb(fibClx, 0, len(clx))
	table = append(table, clx...)
	bin := func(first int, pages int, order []int) []byte {
		if order == nil {
			order = make([]int, pages)
			for i := range order {
				order[i] = i
			}
		}
		var b []byte
		for i := 0; i <= len(order); i++ {
			b = le.AppendUint32(b, uint32(docTextFC+i))
		}
		for _, k := range order {
			b = le.AppendUint32(b, uint32(first+k))
		}
		return b
	}
	if len(d.chpxPages) > 0 {
		b := bin(firstPage, len(d.chpxPages), d.chpxBin)
		setFcLcb(fibChpx, len(table), len(b))
		table = append(table, b...)
	}
	if len(d.papxPages) > 0 {
		b := bin(papxFirst, len(d.papxPages), nil)
		setFcLcb(fibPapx, len(table), len(b))
		table = append(table, b...)
	}
	dirs := []dirent{entry("Root Entry", cfbRoot, -1), entry("WordDocument", cfbStream, 0), entry("1Table", cfbStream, 1)}
	dirs[0].child = siblings(dirs, []uint32{1, 2})
	return writeCFB(w, dirs, [][]byte{word, table})
}

// shortParagraphs returns n bytes of text in paragraphs of two letters.
func shortParagraphs(n int) []byte {
	t := make([]byte, n)
	for i := range t {
		t[i] = "ab\r"[i%3]
	}
	return t
}

// oneCharRuns returns character FKPs making every character of text a run
// of its own, and paragraph FKPs making every paragraph one.
func oneCharRuns(text []byte) (chpx, papx [][]byte) {
	for start := 0; start < len(text); start += chpxPerPage {
		var fcs []int
		for i := start; i <= min(len(text), start+chpxPerPage); i++ {
			fcs = append(fcs, docTextFC+i)
		}
		chpx = append(chpx, fkp(fcs, false))
	}
	marks := []int{docTextFC}
	for i, c := range text {
		if c == '\r' {
			marks = append(marks, docTextFC+i+1)
		}
	}
	for k := 0; k+1 < len(marks); k += papxPerPage {
		papx = append(papx, fkp(marks[k:min(len(marks), k+papxPerPage+1)], true))
	}
	return chpx, papx
}

func docCases() []Case {
	return []Case{
		{
			Name: "doc-runs", File: "runs.doc", Want: Either,
			About: "6 million characters in two-letter paragraphs, every character a run of its own (59,000 character pages, 69,000 paragraph pages)",
			Write: func(w io.Writer) error {
				text := shortParagraphs(6_000_000)
				chpx, papx := oneCharRuns(text)
				return (&wordDoc{text: text, chpxPages: chpx, papxPages: papx}).write(w)
			},
		},
		{
			Name: "doc-shared-runs", File: "shared-runs.doc", Want: Either,
			About: "one page of 101 one-character runs listed two million times by the character bin table",
			Write: func(w io.Writer) error {
				text := shortParagraphs(1_000_000)
				chpx, _ := oneCharRuns(text[:chpxPerPage])
				order := make([]int, 2_000_000)
				return (&wordDoc{text: text, chpxPages: chpx, chpxBin: order}).write(w)
			},
		},
	}
}
