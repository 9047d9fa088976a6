package parse

import (
	"encoding/binary"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/pakton/pakton/internal/numbering"
)

// Paragraph and character properties, styles and list numbering of the
// Word binary format (MS-DOC): the FKP pages that map file offsets to
// property runs (PlcBtePapx, PlcBteChpx), the stylesheet (STSH) and the
// list tables (PlfLst with its LVLs, PlfLfo). Every offset read here is
// checked against its buffer; a damaged table yields fewer properties,
// never a failure or a panic.

// docRun is a property run: file offsets [fc, fcEnd) of the WordDocument
// stream, the paragraph style (for paragraph runs) and the sprms.
type docRun struct {
	fc, fcEnd int
	istd      int
	grpprl    []byte
}

var le = binary.LittleEndian

// fkpPage is one property page (FKP) of the WordDocument stream with the
// file offsets its runs cover.
type fkpPage struct {
	first, last int
	page        []byte
}

// docRuns are the property runs of a document, found on their pages when
// asked for: a document of millions of one-character runs costs a few
// bytes per page, not per run.
type docRuns struct {
	pages []fkpPage // by first offset
	papx  bool
}

// readRuns reads the FKPs listed by the PlcBte at index i of the FIB. Each
// page is read once, however often the table lists it.
func (d *wordDoc) readRuns(i int, papx bool) docRuns {
	rs := docRuns{papx: papx}
	plc := d.tableBytes(i)
	if len(plc) < 12 || (len(plc)-4)%8 != 0 {
		return rs
	}
	n := (len(plc) - 4) / 8
	seen := map[int]bool{}
	for k := 0; k < n; k++ {
		pn := int(le.Uint32(plc[4*(n+1)+4*k:]) & 0x3FFFFF)
		if pn*512+512 > len(d.word) || seen[pn] {
			continue
		}
		seen[pn] = true
		page := d.word[pn*512 : pn*512+512]
		crun := int(page[511])
		if 4*(crun+1)+crun*13 > 511 && papx || 4*(crun+1)+crun > 511 || crun == 0 {
			continue
		}
		rs.pages = append(rs.pages, fkpPage{first: int(le.Uint32(page)), last: int(le.Uint32(page[4*crun:])), page: page})
	}
	sort.SliceStable(rs.pages, func(a, b int) bool { return rs.pages[a].first < rs.pages[b].first })
	return rs
}

// at returns the run containing file offset fc.
func (rs docRuns) at(fc int) (docRun, bool) {
	k := sort.Search(len(rs.pages), func(i int) bool { return rs.pages[i].last > fc })
	if k == len(rs.pages) || rs.pages[k].first > fc {
		return docRun{}, false
	}
	page := rs.pages[k].page
	crun := int(page[511])
	j := sort.Search(crun, func(j int) bool { return int(le.Uint32(page[4*j+4:])) > fc })
	if j == crun || int(le.Uint32(page[4*j:])) > fc {
		return docRun{}, false
	}
	return rs.run(page, crun, j), true
}

// run decodes run j of a page of crun runs.
func (rs docRuns) run(page []byte, crun, j int) docRun {
	r := docRun{fc: int(le.Uint32(page[4*j:])), fcEnd: int(le.Uint32(page[4*j+4:]))}
	var off int
	if rs.papx {
		off = 2 * int(page[4*(crun+1)+13*j])
	} else {
		off = 2 * int(page[4*(crun+1)+j])
	}
	if off <= 0 || off >= 511 {
		return r
	}
	cb := int(page[off])
	if !rs.papx {
		if off+1+cb <= 511 {
			r.grpprl = page[off+1 : off+1+cb]
		}
		return r
	}
	start, size := off+1, 2*cb-1
	if cb == 0 && off+1 < 511 {
		start, size = off+2, 2*int(page[off+1])
	}
	if size >= 2 && start+size <= 511 {
		r.istd = int(le.Uint16(page[start:]))
		r.grpprl = page[start+2 : start+size]
	}
	return r
}

// eachSprm calls fn for every sprm of a grpprl with its operand.
func eachSprm(g []byte, fn func(op uint16, arg []byte)) {
	for i := 0; i+2 <= len(g); {
		op := le.Uint16(g[i:])
		i += 2
		var n int
		switch op >> 13 {
		case 0, 1:
			n = 1
		case 2, 4, 5:
			n = 2
		case 3:
			n = 4
		case 7:
			n = 3
		case 6:
			switch {
			case op == 0xD608 || op == 0xD606: // table definitions: a 2-byte size
				if i+2 > len(g) {
					return
				}
				n = 2 + int(le.Uint16(g[i:])) - 1
			case i < len(g):
				n = 1 + int(g[i])
			default:
				return
			}
		}
		if n < 0 || i+n > len(g) {
			return
		}
		fn(op, g[i:i+n])
		i += n
	}
}

// docParaProps are the paragraph properties pakton uses.
type docParaProps struct {
	istd             int
	outline          int // -1 when not set
	ilfo, ilvl       int
	hasIlfo, hasIlvl bool
	inTable, rowEnd  bool
}

func applyParaSprms(p *docParaProps, g []byte) {
	eachSprm(g, func(op uint16, a []byte) {
		switch op {
		case 0x4600: // sprmPIstd
			p.istd = int(le.Uint16(a))
		case 0x260A: // sprmPIlvl
			p.ilvl, p.hasIlvl = int(a[0]), true
		case 0x460B: // sprmPIlfo
			p.ilfo, p.hasIlfo = int(int16(le.Uint16(a))), true
		case 0x2640: // sprmPOutLvl
			p.outline = int(a[0])
		case 0x2416: // sprmPFInTable
			p.inTable = a[0] != 0
		case 0x2417, 0x244C: // sprmPFTtp, sprmPFInnerTtp
			p.rowEnd = a[0] != 0
		case 0x6649: // sprmPItap
			p.inTable = le.Uint32(a) > 0
		}
	})
}

// paraProps returns the properties of the paragraph whose mark is at fc.
func (d *wordDoc) paraProps(fc, piece int) docParaProps {
	p := docParaProps{outline: -1}
	if r, ok := d.papx.at(fc); ok {
		p.istd = r.istd
		applyParaSprms(&p, r.grpprl)
	}
	if piece >= 0 && piece < len(d.pieces) && d.pieces[piece].sprms != nil {
		applyParaSprms(&p, d.pieces[piece].sprms)
	}
	if p.ilvl > 8 {
		p.ilvl = 8
	}
	return p
}

// hiddenAt reports whether the character at fc is deleted (a tracked
// deletion) or hidden.
func (d *wordDoc) hiddenAt(fc int) bool {
	r, ok := d.chpx.at(fc)
	if !ok {
		return false
	}
	hidden := false
	eachSprm(r.grpprl, func(op uint16, a []byte) {
		if (op == 0x0800 || op == 0x083C) && (a[0] == 1 || a[0] == 0x81) { // sprmCFRMarkDel, sprmCFVanish
			hidden = true
		}
	})
	return hidden
}

// docStyle is a paragraph style's effect on numbering and outline.
type docStyle struct {
	outline    int // -1 when none
	ilfo, ilvl int
	base       int
	name       string
	resolved   bool
}

// readDocStyles reads the stylesheet: per style its base style, name,
// built-in identity (sti 1–9 are "heading 1"–"heading 9") and paragraph
// sprms, resolved through base styles.
func readDocStyles(stsh []byte) []docStyle {
	if len(stsh) < 6 {
		return nil
	}
	cbStshi := int(le.Uint16(stsh))
	if 2+cbStshi > len(stsh) || cbStshi < 4 {
		return nil
	}
	cstd := int(le.Uint16(stsh[2:]))
	cbBase := int(le.Uint16(stsh[4:]))
	type raw struct {
		ok       bool
		sti, stk int
		base     int
		name     string
		grpprl   []byte
	}
	raws := make([]raw, 0, min(cstd, 4096))
	pos := 2 + cbStshi
	for i := 0; i < cstd && i < 4096 && pos+2 <= len(stsh); i++ {
		cb := int(le.Uint16(stsh[pos:]))
		pos += 2
		if pos+cb > len(stsh) {
			break
		}
		std := stsh[pos : pos+cb]
		pos += cb
		if cb < 10 || cbBase < 10 || cbBase+2 > cb {
			raws = append(raws, raw{})
			continue
		}
		r := raw{ok: true, sti: int(le.Uint16(std) & 0x0FFF), stk: int(le.Uint16(std[2:]) & 0x000F), base: int(le.Uint16(std[2:]) >> 4)}
		cch := int(le.Uint16(std[cbBase:]))
		nameEnd := cbBase + 2 + 2*cch
		if nameEnd <= len(std) {
			u := make([]uint16, cch)
			for k := range u {
				u[k] = le.Uint16(std[cbBase+2+2*k:])
			}
			r.name = string(utf16.Decode(u))
		}
		upx := nameEnd + 2
		if upx%2 == 1 {
			upx++
		}
		if r.stk == 1 && upx+2 <= len(std) { // paragraph style: UpxPapx first
			n := int(le.Uint16(std[upx:]))
			if n >= 2 && upx+2+n <= len(std) {
				r.grpprl = std[upx+4 : upx+2+n]
			}
		}
		raws = append(raws, r)
	}
	styles := make([]docStyle, len(raws))
	var resolve func(i, depth int) docStyle
	resolve = func(i, depth int) docStyle {
		if i < 0 || i >= len(raws) || !raws[i].ok || depth > 16 {
			return docStyle{outline: -1, base: 0xFFF}
		}
		if styles[i].resolved {
			return styles[i]
		}
		r := raws[i]
		s := docStyle{outline: -1, base: r.base, name: r.name}
		if r.base != 0xFFF {
			b := resolve(r.base, depth+1)
			s.outline, s.ilfo, s.ilvl = b.outline, b.ilfo, b.ilvl
		}
		if r.sti >= 1 && r.sti <= 9 {
			s.outline = r.sti - 1
		} else if l := headingStyleLevel(r.name); l >= 0 {
			s.outline = l
		}
		p := docParaProps{outline: -1}
		applyParaSprms(&p, r.grpprl)
		if p.outline >= 0 {
			s.outline = p.outline
		}
		if p.hasIlfo {
			s.ilfo = p.ilfo
		}
		if p.hasIlvl {
			s.ilvl = p.ilvl
		}
		if s.outline > 8 {
			s.outline = -1 // 9 is "body text"
		}
		s.resolved = true
		styles[i] = s
		return s
	}
	for i := range raws {
		resolve(i, 0)
	}
	return styles
}

func (d *wordDoc) style(istd int) docStyle {
	if istd >= 0 && istd < len(d.styles) {
		return d.styles[istd]
	}
	return docStyle{outline: -1}
}

// docLevel is one level of a Word list.
type docLevel struct {
	start     int
	nfc       byte
	legal     bool
	noRestart bool
	follow    byte // 0 tab, 1 space, 2 nothing
	text      []uint16
}

// docList is a list definition (LSTF and its levels).
type docList struct {
	lsid   int32
	levels []docLevel
}

// docLFO is a list-format override: which list a paragraph's ilfo uses and
// the start values it overrides.
type docLFO struct {
	lsid   int32
	starts map[int]int
}

type docLists struct {
	byID map[int32]*docList
	lfos []docLFO
}

// readLVL reads one LVL at b, returning it and its size.
func readLVL(b []byte) (docLevel, int, bool) {
	if len(b) < 28 {
		return docLevel{}, 0, false
	}
	lv := docLevel{start: int(int32(le.Uint32(b))), nfc: b[4], legal: b[5]&0x04 != 0, noRestart: b[5]&0x08 != 0, follow: b[15]}
	n := 28 + int(b[24]) + int(b[25])
	if n+2 > len(b) {
		return docLevel{}, 0, false
	}
	cch := int(le.Uint16(b[n:]))
	n += 2
	if n+2*cch > len(b) {
		return docLevel{}, 0, false
	}
	for k := 0; k < cch; k++ {
		lv.text = append(lv.text, le.Uint16(b[n+2*k:]))
	}
	return lv, n + 2*cch, true
}

// readDocLists reads the list definitions (PlfLst at lst, whose LVLs
// follow its lcb bytes in the table stream, lstRest) and overrides (PlfLfo).
func readDocLists(lst, lfo []byte, lstRest []byte) *docLists {
	ls := &docLists{byID: map[int32]*docList{}}
	if len(lst) >= 2 {
		n := int(int16(le.Uint16(lst)))
		type head struct {
			lsid   int32
			simple bool
		}
		var heads []head
		for i := 0; i < n && 2+28*(i+1) <= len(lst); i++ {
			f := lst[2+28*i:]
			heads = append(heads, head{int32(le.Uint32(f)), f[26]&1 != 0})
		}
		pos := 0
		for _, h := range heads {
			l := &docList{lsid: h.lsid}
			count := 9
			if h.simple {
				count = 1
			}
			for k := 0; k < count; k++ {
				lv, size, ok := readLVL(lstRest[min(pos, len(lstRest)):])
				if !ok {
					break
				}
				pos += size
				l.levels = append(l.levels, lv)
			}
			ls.byID[h.lsid] = l
		}
	}
	if len(lfo) >= 4 {
		n := int(int32(le.Uint32(lfo)))
		if n < 0 || 4+16*n > len(lfo) {
			n = 0
		}
		pos := 4 + 16*n
		for i := 0; i < n; i++ {
			f := lfo[4+16*i:]
			o := docLFO{lsid: int32(le.Uint32(f)), starts: map[int]int{}}
			clfolvl := int(f[12])
			if pos+4 <= len(lfo) {
				pos += 4 // LFOData.cp
				for k := 0; k < clfolvl && pos+8 <= len(lfo); k++ {
					start, flags := int(int32(le.Uint32(lfo[pos:]))), le.Uint32(lfo[pos+4:])
					pos += 8
					if flags&0x10 != 0 { // fStartAt
						o.starts[int(flags&0x0F)] = start
					}
					if flags&0x20 != 0 { // fFormatting: an LVL follows
						if _, size, ok := readLVL(lfo[pos:]); ok {
							pos += size
						} else {
							pos = len(lfo)
						}
					}
				}
			}
			ls.lfos = append(ls.lfos, o)
		}
	}
	return ls
}

// docCounters counts list items as Word does.
type docCounters struct {
	lists   *docLists
	count   map[string]*[9]int
	started map[string]*[9]bool
	// restarted: the overrides (ilfo, level) whose start value was applied
	restarted map[[2]int]bool
}

func newDocCounters(l *docLists) *docCounters {
	return &docCounters{lists: l, count: map[string]*[9]int{}, started: map[string]*[9]bool{}}
}

// next advances the counter of level ilvl of list-format override ilfo
// (1-based) and returns the paragraph's label and its follower.
func (c *docCounters) next(ilfo, ilvl int) (string, string, bool) {
	if c.lists == nil || ilfo < 1 || ilfo > len(c.lists.lfos) || ilvl < 0 || ilvl > 8 {
		return "", "", false
	}
	o := c.lists.lfos[ilfo-1]
	l := c.lists.byID[o.lsid]
	if l == nil || ilvl >= len(l.levels) {
		return "", "", false
	}
	// The overrides of one list share its counters, as DOCX's lists of one
	// abstract numbering do (docx_numbering.go): an override's start value
	// restarts the count where the override is first used, and paragraphs
	// of the list's other overrides continue from there.
	key := "l" + strconv.Itoa(int(o.lsid))
	cnt, st := c.count[key], c.started[key]
	if cnt == nil {
		cnt, st = new([9]int), new([9]bool)
		c.count[key], c.started[key] = cnt, st
	}
	startOf := func(k int) int {
		if v, ok := o.starts[k]; ok {
			return v
		}
		if k < len(l.levels) {
			return l.levels[k].start
		}
		return 1
	}
	restart := false
	if _, ok := o.starts[ilvl]; ok {
		if c.restarted == nil {
			c.restarted = map[[2]int]bool{}
		}
		if k := [2]int{ilfo, ilvl}; !c.restarted[k] {
			c.restarted[k], restart = true, true
		}
	}
	if st[ilvl] && !restart {
		cnt[ilvl]++
	} else {
		cnt[ilvl], st[ilvl] = startOf(ilvl), true
	}
	for k := ilvl + 1; k < 9; k++ {
		if k < len(l.levels) && l.levels[k].noRestart {
			continue
		}
		st[k] = false
	}
	lv := l.levels[ilvl]
	var sb strings.Builder
	for _, ch := range lv.text {
		if ch < 9 {
			k := int(ch)
			v := startOf(k)
			if st[k] {
				v = cnt[k]
			}
			nfc := byte(0)
			if k < len(l.levels) {
				nfc = l.levels[k].nfc
			}
			if lv.legal && nfc != 23 {
				nfc = 0
			}
			sb.WriteString(formatWordNumber(v, nfc))
			continue
		}
		sb.WriteString(string(utf16.Decode([]uint16{ch})))
	}
	label := strings.TrimSpace(bulletGlyphs(sb.String()))
	follow := "\t"
	switch lv.follow {
	case 1:
		follow = " "
	case 2:
		follow = ""
	}
	return label, follow, true
}

// formatWordNumber renders n in a Word number format code (nfc).
func formatWordNumber(n int, nfc byte) string {
	switch nfc {
	case 1:
		return strings.ToUpper(numbering.Roman(n))
	case 2:
		return numbering.Roman(n)
	case 3:
		return numbering.Letters(n, true)
	case 4:
		return numbering.Letters(n, false)
	case 5:
		return strconv.Itoa(n) + numbering.OrdinalSuffix(n)
	case 22:
		if n >= 0 && n < 10 {
			return "0" + strconv.Itoa(n)
		}
	case 23, 255:
		return ""
	}
	return strconv.Itoa(n)
}
