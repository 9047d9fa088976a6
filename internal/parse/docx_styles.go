package parse

import (
	"encoding/xml"
	"strconv"
)

// DOCX styles (word/styles.xml): the style chain a paragraph inherits its
// numbering and outline level from.

type docxStyle struct {
	id, name, basedOn string
	numID, ilvl       string // "" when the style does not set them
	outline           int    // -1 when unset
}

// setProperty reads one element inside a w:style into s: its name and
// basedOn, the numId and ilvl of its numPr, the outlineLvl of its pPr;
// parent is the element's parent. Other elements are ignored.
func (s *docxStyle) setProperty(t xml.StartElement, parent string) {
	switch parent + "/" + t.Name.Local {
	case "style/name":
		s.name = wVal(t)
	case "style/basedOn":
		s.basedOn = wVal(t)
	case "numPr/numId":
		s.numID = wVal(t)
	case "numPr/ilvl":
		s.ilvl = wVal(t)
	case "pPr/outlineLvl":
		if v, err := strconv.Atoi(wVal(t)); err == nil {
			s.outline = v
		}
	}
}

type docxStyles struct {
	byID         map[string]*docxStyle
	defaultParaS string
}

func parseDocxStyles(b []byte) (*docxStyles, error) {
	st := &docxStyles{byID: map[string]*docxStyle{}}
	var cur *docxStyle
	err := walkW(b, func(t xml.StartElement, parent string) {
		switch t.Name.Local {
		case "style":
			typ, _ := wAttr(t, "type")
			if typ != "paragraph" && typ != "numbering" {
				cur = nil
				return
			}
			id, _ := wAttr(t, "styleId")
			cur = &docxStyle{id: id, outline: -1}
			st.byID[id] = cur
			if typ == "paragraph" && onOff2(t, "default") {
				st.defaultParaS = id
			}
		default:
			if cur != nil {
				cur.setProperty(t, parent)
			}
		}
	}, func(t xml.EndElement) {
		if t.Name.Local == "style" {
			cur = nil
		}
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

func onOff2(se xml.StartElement, attr string) bool {
	v, ok := wAttr(se, attr)
	return ok && (v == "1" || v == "true" || v == "on")
}

// chain returns the style and its ancestors, nearest first.
func (st *docxStyles) chain(id string) []*docxStyle {
	var out []*docxStyle
	for i := 0; id != "" && i < 32; i++ {
		s := st.byID[id]
		if s == nil {
			break
		}
		out = append(out, s)
		id = s.basedOn
	}
	return out
}
