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
		case "name":
			if cur != nil && parent == "style" {
				cur.name = wVal(t)
			}
		case "basedOn":
			if cur != nil && parent == "style" {
				cur.basedOn = wVal(t)
			}
		case "numId":
			if cur != nil && parent == "numPr" {
				cur.numID = wVal(t)
			}
		case "ilvl":
			if cur != nil && parent == "numPr" {
				cur.ilvl = wVal(t)
			}
		case "outlineLvl":
			if cur != nil && parent == "pPr" {
				if v, err := strconv.Atoi(wVal(t)); err == nil {
					cur.outline = v
				}
			}
		}
	}, func(t xml.EndElement) {
		if isW(t.Name, "style") {
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
