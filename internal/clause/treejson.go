package clause

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// DecodeJSON reads a tree written by encoding/json (as the store writes
// tree.json). Reading a contract is most of what a question over every
// contract of a large collection costs, and decoding its tree by reflection
// was most of that; DecodeJSON reads the form encoding/json writes directly
// and hands anything else — whitespace aside: escapes in a string, a
// number that is not a plain integer, a key it does not know, null — to
// json.Unmarshal, so it returns exactly what json.Unmarshal does
// (TestDecodeJSONLikeUnmarshal).
func DecodeJSON(b []byte) (*Tree, error) {
	d := treeDecoder{b: b}
	if t, ok := d.tree(); ok {
		return t, nil
	}
	t := new(Tree)
	if err := json.Unmarshal(b, t); err != nil {
		return nil, err
	}
	return t, nil
}

// treeDecoder reads the plain form of a tree; any step that meets something
// else returns false and the caller decodes with encoding/json.
type treeDecoder struct {
	b []byte
	i int
}

func (d *treeDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// byte_ consumes c after any space.
func (d *treeDecoder) byte_(c byte) bool {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// peek returns the next byte after any space (0 at the end).
func (d *treeDecoder) peek() byte {
	d.space()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// str reads a string; one with escapes or bytes that are not UTF-8 is
// decoded by encoding/json alone (as it would be within the tree).
func (d *treeDecoder) str() (string, bool) {
	if !d.byte_('"') {
		return "", false
	}
	start := d.i
	plain := true
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if plain {
				return string(s), true
			}
			if utf8.Valid(s) && !slices.Contains(s, '\\') {
				return string(s), true
			}
			var out string
			if json.Unmarshal(d.b[start-1:d.i], &out) != nil {
				return "", false
			}
			return out, true
		case c == '\\':
			plain = false
			d.i++ // the escaped byte: an escaped quote does not end the string
		case c < 0x20:
			return "", false
		case c >= 0x80:
			plain = false
		}
		d.i++
	}
	return "", false
}

// int reads an integer written plainly (an optional minus, digits).
func (d *treeDecoder) int() (int, bool) {
	d.space()
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	if d.i == digits || d.i-digits > 1 && d.b[digits] == '0' {
		return 0, false
	}
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	v, err := strconv.Atoi(string(d.b[start:d.i]))
	return v, err == nil
}

func (d *treeDecoder) tree() (*Tree, bool) {
	t := &Tree{}
	ok := d.object(func(k string) bool {
		if k != "nodes" {
			return false
		}
		t.Nodes = []Node{}
		return d.array(func() bool {
			var n Node
			if !d.node(&n) {
				return false
			}
			t.Nodes = append(t.Nodes, n)
			return true
		})
	})
	if !ok {
		return nil, false
	}
	d.space()
	return t, d.i == len(d.b)
}

// object reads an object, handing each key to field, which reads its value.
func (d *treeDecoder) object(field func(k string) bool) bool {
	if !d.byte_('{') {
		return false
	}
	if d.byte_('}') {
		return true
	}
	for {
		k, ok := d.str()
		if !ok || !d.byte_(':') || !field(k) {
			return false
		}
		if d.byte_('}') {
			return true
		}
		if !d.byte_(',') {
			return false
		}
	}
}

// array reads an array, elem reading each of its values.
func (d *treeDecoder) array(elem func() bool) bool {
	if !d.byte_('[') {
		return false
	}
	if d.byte_(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.byte_(']') {
			return true
		}
		if !d.byte_(',') {
			return false
		}
	}
}

func (d *treeDecoder) node(n *Node) bool {
	return d.object(func(k string) bool {
		var ok bool
		switch k {
		case "id":
			n.ID, ok = d.int()
		case "parent":
			n.Parent, ok = d.int()
		case "depth":
			n.Depth, ok = d.int()
		case "kind":
			var s string
			s, ok = d.str()
			n.Kind = Kind(s)
		case "label":
			n.Label, ok = d.str()
		case "heading":
			n.Heading, ok = d.str()
		case "term":
			n.Term, ok = d.str()
		case "span":
			ok = d.span(&n.Span.Start, &n.Span.End)
		case "own":
			ok = d.span(&n.Own.Start, &n.Own.End)
		case "children":
			ok = d.ints(&n.Children)
		}
		return ok
	})
}

func (d *treeDecoder) span(start, end *int) bool {
	return d.object(func(k string) bool {
		var ok bool
		switch k {
		case "start":
			*start, ok = d.int()
		case "end":
			*end, ok = d.int()
		}
		return ok
	})
}

func (d *treeDecoder) ints(out *[]int) bool {
	// encoding/json makes an empty, not nil, slice of "[]"
	l := []int{}
	ok := d.array(func() bool {
		v, ok := d.int()
		l = append(l, v)
		return ok
	})
	if ok {
		*out = l
	}
	return ok
}
