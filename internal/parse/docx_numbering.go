package parse

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/pakton/pakton/internal/numbering"
)

// DOCX numbering: the list definitions (word/numbering.xml) and the counters
// that rebuild the label Word shows before a numbered paragraph.

type docxLevel struct {
	start   int
	fmt     string
	text    string
	suff    string
	restart int // -1: default (restart after any higher level)
	legal   bool
	pStyle  string
	set     bool
}

// setProperty reads one child element of a w:lvl (start, numFmt, lvlText,
// suff, lvlRestart, isLgl, pStyle) into l; other elements are ignored.
func (l *docxLevel) setProperty(t xml.StartElement) {
	switch t.Name.Local {
	case "start":
		if v, err := strconv.Atoi(wVal(t)); err == nil {
			l.start = v
		}
	case "numFmt":
		l.fmt = wVal(t)
	case "lvlText":
		l.text = wVal(t)
	case "suff":
		l.suff = wVal(t)
	case "lvlRestart":
		if v, err := strconv.Atoi(wVal(t)); err == nil {
			l.restart = v
		}
	case "isLgl":
		l.legal = onOff(t)
	case "pStyle":
		l.pStyle = wVal(t)
	}
}

type docxAbstract struct {
	id        string
	levels    [9]docxLevel
	styleLink string // numStyleLink: levels come from the style's list
}

type docxNum struct {
	abstractID string
	overrides  map[int]docxOverride
}

type docxOverride struct {
	start    int // -1 when not overridden
	level    docxLevel
	hasLevel bool
}

type docxNumbering struct {
	abstract map[string]*docxAbstract
	nums     map[string]*docxNum
}

func defaultLevel() docxLevel {
	return docxLevel{start: 1, fmt: "decimal", suff: "tab", restart: -1}
}

func parseDocxNumbering(b []byte) (*docxNumbering, error) {
	nb := &docxNumbering{abstract: map[string]*docxAbstract{}, nums: map[string]*docxNum{}}
	var (
		abs  *docxAbstract
		num  *docxNum
		ovr  *docxOverride
		ovrL int
		lvl  *docxLevel
	)
	err := walkW(b, func(t xml.StartElement, parent string) {
		switch t.Name.Local {
		case "abstractNum":
			id, _ := wAttr(t, "abstractNumId")
			abs = &docxAbstract{id: id}
			for i := range abs.levels {
				abs.levels[i] = defaultLevel()
			}
			nb.abstract[id] = abs
		case "num":
			id, _ := wAttr(t, "numId")
			num = &docxNum{overrides: map[int]docxOverride{}}
			nb.nums[id] = num
		case "abstractNumId":
			if num != nil {
				num.abstractID = wVal(t)
			}
		case "lvlOverride":
			if num != nil {
				v, _ := wAttr(t, "ilvl")
				if i, err := strconv.Atoi(v); err == nil && i >= 0 && i < 9 {
					ovrL = i
					ovr = &docxOverride{start: -1, level: defaultLevel()}
				}
			}
		case "startOverride":
			if ovr != nil {
				if v, err := strconv.Atoi(wVal(t)); err == nil {
					ovr.start = v
				}
			}
		case "numStyleLink":
			if abs != nil {
				abs.styleLink = wVal(t)
			}
		case "lvl":
			v, _ := wAttr(t, "ilvl")
			i, err := strconv.Atoi(v)
			if err != nil || i < 0 || i >= 9 {
				lvl = nil
				return
			}
			switch {
			case ovr != nil:
				ovr.hasLevel = true
				lvl = &ovr.level
			case abs != nil:
				lvl = &abs.levels[i]
			}
			if lvl != nil {
				lvl.set = true
			}
		default:
			if lvl != nil && parent == "lvl" {
				lvl.setProperty(t)
			}
		}
	}, func(t xml.EndElement) {
		switch t.Name.Local {
		case "abstractNum":
			abs = nil
		case "num":
			num = nil
		case "lvlOverride":
			if ovr != nil && num != nil {
				num.overrides[ovrL] = *ovr
			}
			ovr = nil
		case "lvl":
			lvl = nil
		}
	})
	if err != nil {
		return nil, err
	}
	return nb, nil
}

// numberParagraph advances the list counters for a numbered paragraph and
// returns its label and suffix.
func (bw *docxBody) numberParagraph(p *docxParaState, chain []*docxStyle, style string) (label, suffix string, ilvl int, ok bool) {
	numID, ilvlS := p.numID, p.ilvl
	hasNum, hasIlvl := p.hasNumID, p.hasIlvl
	fromStyle := false
	for _, s := range chain {
		if !hasNum && s.numID != "" {
			numID, hasNum, fromStyle = s.numID, true, true
		}
		if !hasIlvl && s.ilvl != "" {
			ilvlS, hasIlvl = s.ilvl, true
		}
	}
	if !hasNum || numID == "" || numID == "0" {
		return "", "", 0, false
	}
	num := bw.num.nums[numID]
	if num == nil {
		return "", "", 0, false
	}
	abs := bw.resolveAbstract(num.abstractID)
	if abs == nil {
		return "", "", 0, false
	}
	ilvl, _ = strconv.Atoi(ilvlS)
	if !hasIlvl && fromStyle {
		// A level may name the style that selects it.
		for i, l := range abs.levels {
			if l.pStyle != "" && l.pStyle == style {
				ilvl = i
				break
			}
		}
	}
	ilvl = min(max(ilvl, 0), 8)

	// The lists (w:num) of one abstract numbering share its counters, as
	// Word and LibreOffice count them: a list whose only override is a
	// start value (w:startOverride, how "restart numbering" is saved)
	// restarts the count where it is first used, and the paragraphs of the
	// other lists that follow continue from there ("(a)" restarted, then
	// "(b)" in the original list). A list that redefines a level (w:lvl in
	// its override) counts apart.
	levels := abs.levels
	key := "a" + abs.id
	restart := -1
	for i, o := range num.overrides {
		if o.hasLevel {
			key = "n" + numID
			levels[i] = o.level
		}
		if o.start >= 0 {
			levels[i].start = o.start
		}
	}
	if o, ok := num.overrides[ilvl]; ok && o.start >= 0 && key[0] == 'a' {
		if bw.restarted == nil {
			bw.restarted = map[string]bool{}
		}
		if k := numID + ":" + strconv.Itoa(ilvl); !bw.restarted[k] {
			bw.restarted[k] = true
			restart = o.start
		}
	}
	if bw.started == nil {
		bw.started = map[string]*[9]bool{}
	}
	cnt, st := bw.counters[key], bw.started[key]
	if cnt == nil {
		cnt, st = new([9]int), new([9]bool)
		bw.counters[key], bw.started[key] = cnt, st
	}
	switch {
	case restart >= 0:
		cnt[ilvl], st[ilvl] = restart, true
	case st[ilvl]:
		cnt[ilvl]++
	default:
		cnt[ilvl], st[ilvl] = levels[ilvl].start, true
	}
	for j := ilvl + 1; j < 9; j++ {
		r := levels[j].restart
		if r < 0 || ilvl < r {
			st[j] = false
		}
	}
	lv := levels[ilvl]
	var sb strings.Builder
	t := lv.text
	for i := 0; i < len(t); i++ {
		if t[i] == '%' && i+1 < len(t) && t[i+1] >= '1' && t[i+1] <= '9' {
			j := int(t[i+1] - '1')
			v := levels[j].start
			if st[j] {
				v = cnt[j]
			}
			f := levels[j].fmt
			if lv.legal && f != "bullet" {
				f = "decimal"
			}
			sb.WriteString(formatDocxNumber(v, f))
			i++
			continue
		}
		sb.WriteByte(t[i])
	}
	label = bulletGlyphs(canonicalText(sb.String()))
	if lv.fmt == "none" && strings.TrimSpace(label) == "" {
		label = ""
	}
	label = strings.TrimSpace(label)
	switch lv.suff {
	case "space":
		suffix = " "
	case "nothing":
		suffix = ""
	default:
		suffix = "\t"
	}
	return label, suffix, ilvl, true
}

// resolveAbstract follows numStyleLink (a list defined by a numbering
// style) to the abstract numbering that holds the levels.
func (bw *docxBody) resolveAbstract(id string) *docxAbstract {
	for i := 0; i < 8; i++ {
		abs := bw.num.abstract[id]
		if abs == nil || abs.styleLink == "" {
			return abs
		}
		s := bw.styles.byID[abs.styleLink]
		if s == nil || s.numID == "" || bw.num.nums[s.numID] == nil {
			return abs
		}
		next := bw.num.nums[s.numID].abstractID
		if next == id {
			return abs
		}
		id = next
	}
	return nil
}

// bulletGlyphs maps the private-use Symbol/Wingdings code points Word
// stores for bullets to ordinary characters.
func bulletGlyphs(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == 0xF0A7 || r == 0xF06E:
			return '▪'
		case r == 0xF0D8 || r == 0xF0E0:
			return '➢'
		case r == 0xF0FC:
			return '✓'
		case r >= 0xE000 && r <= 0xF8FF:
			return '•'
		}
		return r
	}, s)
}

// formatDocxNumber renders counter n in WordprocessingML number format f.
func formatDocxNumber(n int, f string) string {
	switch f {
	case "decimalZero":
		if n >= 0 && n < 10 {
			return "0" + strconv.Itoa(n)
		}
	case "ordinal":
		return strconv.Itoa(n) + numbering.OrdinalSuffix(n)
	case "bullet", "none":
		return ""
	}
	return formatListNumber(n, docxListTypes[f], numbering.Letters)
}

// docxListTypes are the WordprocessingML number formats that are list types
// of HTML and ODF (formatListNumber); the others render in decimal.
var docxListTypes = map[string]string{
	"lowerLetter": "a", "upperLetter": "A", "lowerRoman": "i", "upperRoman": "I",
}
