package parse

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// List markers drawn by CSS. A browser draws a list item's marker from
// the list-style-type in force (the item's own style attribute, then the
// rules of the page's style sheets, then its list's) or, when a rule gives
// the item a ::before content with a counter ("(" counter(x, lower-latin)
// ") ", the way Google Docs and many sites write "(a)"), from that
// content. htmlCSS keeps what a page's <style> elements say about lists,
// for simple selectors only: a tag (ol, ul, li), a class (.x), or both
// (ol.x), and for ::before a list selector followed by "> li" or " li", or
// an item's own class. Other selectors are ignored, so a page whose lists
// are styled some other way is drawn with the defaults, as before.

// Limits on style sheets: a contract's HTML has a few kilobytes of CSS.
const (
	maxHTMLCSSBytes = 1 << 20
	maxHTMLCSSRules = 10_000
)

type cssMarker struct {
	prefix, suffix string
	typ            string // list-style keyword of its counter; "" for none
	literal        bool   // no counter: the content is the marker
}

type htmlCSS struct {
	types  map[string]string    // selector key → list-style-type
	before map[string]cssMarker // selector key of the list or item → its items' marker
}

// readHTMLCSS collects the list rules of every <style> element under root.
func readHTMLCSS(root *html.Node) *htmlCSS {
	css := &htmlCSS{types: map[string]string{}, before: map[string]cssMarker{}}
	budget, rules := maxHTMLCSSBytes, 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Style {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode && budget > 0 {
					src := c.Data[:min(len(c.Data), budget)]
					budget -= len(src)
					rules += css.add(src, maxHTMLCSSRules-rules)
				}
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return css
}

// add reads the rules of a style sheet, at most limit of them, and returns
// how many it read.
func (css *htmlCSS) add(src string, limit int) int {
	src = stripCSSComments(src)
	n := 0
	for n < limit {
		open := strings.IndexByte(src, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(src[open:], '}')
		if end < 0 {
			break
		}
		sels, decls := src[:open], src[open+1:open+end]
		src = src[open+end+1:]
		n++
		if strings.Contains(sels, "@") {
			continue // @media, @page: their inner rules are read as they come
		}
		typ, content := cssListDecls(decls)
		if typ == "" && content == "" {
			continue
		}
		for _, sel := range strings.Split(sels, ",") {
			sel = strings.Join(strings.Fields(sel), " ")
			if content != "" {
				if key, ok := cssBeforeKey(sel); ok {
					if m, ok := cssContentMarker(content); ok {
						css.before[key] = m
					}
				}
			}
			if typ != "" && cssSimple(sel) {
				css.types[strings.ToLower(sel)] = typ
			}
		}
	}
	return n
}

// cssListDecls returns the list-style-type (from list-style-type or the
// list-style shorthand) and the content a declaration block sets.
func cssListDecls(decls string) (typ, content string) {
	for _, d := range strings.Split(decls, ";") {
		k, v, ok := strings.Cut(d, ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "!important"))
		switch k {
		case "list-style-type":
			typ = strings.ToLower(v)
		case "list-style":
			for _, w := range strings.Fields(strings.ToLower(v)) {
				if _, ok := cssListTypes[w]; ok {
					typ = w
				}
			}
		case "content":
			content = v
		}
	}
	return typ, content
}

// cssListTypes maps the list-style-type keywords pakton draws to an <ol>
// type ("1", "a", "A", "i", "I"), a bullet, or "" for none.
var cssListTypes = map[string]string{
	"decimal": "1", "lower-alpha": "a", "lower-latin": "a", "upper-alpha": "A", "upper-latin": "A",
	"lower-roman": "i", "upper-roman": "I", "none": "", "disc": "•", "circle": "◦", "square": "▪",
}

// cssSimple reports whether sel is a tag, a class or a tag with a class.
func cssSimple(sel string) bool {
	if sel == "" || strings.ContainsAny(sel, " >+~:[#*") {
		return false
	}
	return strings.Count(sel, ".") <= 1
}

// cssBeforeKey returns the key a ::before rule applies to: the list's
// selector for "ol.x > li::before", the item's own for "li.x::before".
func cssBeforeKey(sel string) (string, bool) {
	low := strings.ToLower(sel)
	var base string
	switch {
	case strings.HasSuffix(low, "::before"):
		base = low[:len(low)-len("::before")]
	case strings.HasSuffix(low, ":before"):
		base = low[:len(low)-len(":before")]
	default:
		return "", false
	}
	base = strings.TrimSpace(base)
	for _, sep := range []string{" > li", ">li", " li"} {
		if list, ok := strings.CutSuffix(base, sep); ok && cssSimple(strings.TrimSpace(list)) {
			return strings.TrimSpace(list) + ">li", true
		}
	}
	if cssSimple(base) {
		return base, true
	}
	return "", false
}

// cssContentMarker reads a content value of strings and at most one
// counter(name) or counter(name, style).
func cssContentMarker(v string) (cssMarker, bool) {
	var m cssMarker
	counters := 0
	for v = strings.TrimSpace(v); v != ""; v = strings.TrimSpace(v) {
		switch {
		case v[0] == '"' || v[0] == '\'':
			end := strings.IndexByte(v[1:], v[0])
			if end < 0 {
				return m, false
			}
			s := cssUnescape(v[1 : 1+end])
			if counters == 0 {
				m.prefix += s
			} else {
				m.suffix += s
			}
			v = v[2+end:]
		case strings.HasPrefix(strings.ToLower(v), "counter("):
			end := strings.IndexByte(v, ')')
			if end < 0 {
				return m, false
			}
			args := strings.Split(v[len("counter("):end], ",")
			m.typ = "decimal"
			if len(args) > 1 {
				m.typ = strings.ToLower(strings.TrimSpace(args[1]))
			}
			if _, ok := cssListTypes[m.typ]; !ok {
				return m, false
			}
			counters++
			v = v[end+1:]
		default:
			return m, false // counters(), attr(), open-quote: not drawn here
		}
	}
	if counters > 1 {
		return m, false
	}
	m.literal = counters == 0
	return m, true
}

// cssUnescape decodes the escapes of a CSS string ("\2022 " is "•").
func cssUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		j := i + 1
		for j < len(s) && j < i+7 && isHexByte(s[j]) {
			j++
		}
		if j == i+1 {
			b.WriteByte(s[j])
			i = j
			continue
		}
		var r rune
		for _, c := range s[i+1 : j] {
			r = r*16 + rune(hexVal(byte(c)))
		}
		if r > 0 && r <= 0x10FFFF {
			b.WriteRune(r)
		}
		if j < len(s) && s[j] == ' ' {
			j++
		}
		i = j - 1
	}
	return b.String()
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// keys returns the selector keys an element matches, most specific last:
// its tag, each class, and each tag.class.
func cssKeys(n *html.Node) []string {
	tag := strings.ToLower(n.Data)
	keys := []string{tag}
	if cls, ok := hasAttr(n, "class"); ok {
		for _, c := range strings.Fields(strings.ToLower(cls)) {
			keys = append(keys, "."+c, tag+"."+c)
		}
	}
	return keys
}

// listType returns the list-style-type in force on n from its style
// attribute or the style sheets, and whether any was.
func (css *htmlCSS) listType(n *html.Node) (string, bool) {
	if st, ok := hasAttr(n, "style"); ok {
		if typ, _ := cssListDecls(st); typ != "" {
			return typ, true
		}
	}
	if css == nil {
		return "", false
	}
	typ, found := "", false
	for _, k := range cssKeys(n) {
		if t, ok := css.types[k]; ok {
			typ, found = t, true
		}
	}
	return typ, found
}

// marker returns the ::before marker a rule gives the items of list l (or
// the item li itself).
func (css *htmlCSS) marker(list, li *html.Node) (cssMarker, bool) {
	if css == nil || len(css.before) == 0 {
		return cssMarker{}, false
	}
	var m cssMarker
	found := false
	if list != nil {
		for _, k := range cssKeys(list) {
			if v, ok := css.before[k+">li"]; ok {
				m, found = v, true
			}
		}
	}
	for _, k := range cssKeys(li) {
		if k == "li" {
			continue // "li::before" styles every item of the page
		}
		if v, ok := css.before[k]; ok {
			m, found = v, true
		}
	}
	return m, found
}

// stripCSSComments replaces each /* comment */ with a space, in one pass.
func stripCSSComments(src string) string {
	if !strings.Contains(src, "/*") {
		return src
	}
	var b strings.Builder
	for {
		i := strings.Index(src, "/*")
		if i < 0 {
			b.WriteString(src)
			return b.String()
		}
		b.WriteString(src[:i])
		b.WriteByte(' ')
		j := strings.Index(src[i+2:], "*/")
		if j < 0 {
			return b.String()
		}
		src = src[i+2+j+2:]
	}
}
