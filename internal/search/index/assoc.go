package index

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// An association table holds, for the terms of one commit of a collection,
// the words the search learned go with each (word associations) and the
// body words of the clauses it heads (heading associations), as the search
// package learns them (search.Index.WriteAssociations). Keyed by term
// text, so it serves a snapshot of any number of segments. It is written
// once per commit (Dir.PutAux) and read by mapping, like a segment.

const (
	assocFormat = 1
	assocMagic  = "PKTNASC\n"
)

const (
	asecMeta = iota + 1
	asecStrOff
	asecStr
	asecKeys // string index of each key
	asecKeyHash
	asecAssocOff
	asecAssoc
	asecBodyOff
	asecBody
	numAssocSections = asecBody
)

// AssocRef is one associated term and its weight.
type AssocRef struct {
	Term string
	W    float64
}

type assocEntry struct {
	Str int32
	_   int32
	W   float64
}

type assocMeta struct {
	Strs    int `json:"strs"`
	Keys    int `json:"keys"`
	Assoc   int `json:"assoc"`
	Bodies  int `json:"bodies"`
	KeyHash int `json:"key_hash"`
}

// AssocTableWriter collects a table's lists.
type AssocTableWriter struct {
	strs        []string
	byStr       map[string]int32
	keys        []int32
	assocOff    []int32
	assoc, body []assocEntry
	bodyOff     []int32
}

// NewAssocTableWriter returns an empty table.
func NewAssocTableWriter() *AssocTableWriter {
	return &AssocTableWriter{byStr: map[string]int32{}}
}

func (w *AssocTableWriter) str(s string) int32 {
	if i, ok := w.byStr[s]; ok {
		return i
	}
	i := int32(len(w.strs))
	w.byStr[s] = i
	w.strs = append(w.strs, s)
	return i
}

// Add adds a term's lists (each best first). Terms must be distinct.
func (w *AssocTableWriter) Add(term string, assoc, bodies []AssocRef) {
	w.keys = append(w.keys, w.str(term))
	w.assocOff = append(w.assocOff, int32(len(w.assoc)))
	for _, r := range assoc {
		w.assoc = append(w.assoc, assocEntry{Str: w.str(r.Term), W: r.W})
	}
	w.bodyOff = append(w.bodyOff, int32(len(w.body)))
	for _, r := range bodies {
		w.body = append(w.body, assocEntry{Str: w.str(r.Term), W: r.W})
	}
}

// Write writes the table to out, which must be a new file it can seek in
// (the header is written last).
func (w *AssocTableWriter) Write(out io.Writer) error {
	f, ok := out.(*os.File)
	if !ok {
		return fmt.Errorf("search: an association table is written to a file")
	}
	fw := newFileWriter(f, assocMagic, assocFormat, numAssocSections)
	off, strs := stringTable(w.strs)
	keyStrs := make([]string, len(w.keys))
	for i, k := range w.keys {
		keyStrs[i] = w.strs[k]
	}
	hash := vocabTable(keyStrs)
	fw.section(asecStrOff, asBytes(off))
	fw.section(asecStr, strs)
	fw.section(asecKeys, asBytes(w.keys))
	fw.section(asecKeyHash, asBytes(hash))
	fw.section(asecAssocOff, asBytes(append(w.assocOff, int32(len(w.assoc)))))
	fw.section(asecAssoc, asBytes(w.assoc))
	fw.section(asecBodyOff, asBytes(append(w.bodyOff, int32(len(w.body)))))
	fw.section(asecBody, asBytes(w.body))
	meta, _ := json.Marshal(assocMeta{Strs: len(w.strs), Keys: len(w.keys), Assoc: len(w.assoc), Bodies: len(w.body), KeyHash: len(hash)})
	_, err := fw.finish(meta)
	return err
}

// AssocTable is an opened association table.
type AssocTable struct {
	strOff            []uint32
	str               string
	keys              []int32
	hash              []int32
	assocOff, bodyOff []int32
	assoc, body       []assocEntry
	mapped            *mapping
}

// OpenAssocTable opens a table written by AssocTableWriter.
func OpenAssocTable(path string) (*AssocTable, error) {
	return openMapped(path, assocFrom, func(t *AssocTable, m *mapping) { t.mapped = m })
}

func assocFrom(data []byte) (*AssocTable, error) {
	c, err := openContainer(data, assocMagic, assocFormat, numAssocSections)
	if err != nil {
		return nil, err
	}
	var meta assocMeta
	if err := json.Unmarshal(c.secs[asecMeta-1], &meta); err != nil {
		return nil, fmt.Errorf("%w: meta: %v", ErrBadIndex, err)
	}
	t := &AssocTable{str: mappedString(c.secs[asecStr-1])}
	steps := []func() error{
		func() (err error) { t.strOff, err = fromBytes[uint32](c.secs[asecStrOff-1], meta.Strs+1); return },
		func() (err error) { t.keys, err = fromBytes[int32](c.secs[asecKeys-1], meta.Keys); return },
		func() (err error) { t.hash, err = fromBytes[int32](c.secs[asecKeyHash-1], meta.KeyHash); return },
		func() (err error) { t.assocOff, err = fromBytes[int32](c.secs[asecAssocOff-1], meta.Keys+1); return },
		func() (err error) { t.assoc, err = fromBytes[assocEntry](c.secs[asecAssoc-1], meta.Assoc); return },
		func() (err error) { t.bodyOff, err = fromBytes[int32](c.secs[asecBodyOff-1], meta.Keys+1); return },
		func() (err error) { t.body, err = fromBytes[assocEntry](c.secs[asecBody-1], meta.Bodies); return },
	}
	for _, f := range steps {
		if err := f(); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *AssocTable) string(i int32) string {
	if i < 0 || int(i)+1 >= len(t.strOff) {
		return ""
	}
	a, b := t.strOff[i], t.strOff[i+1]
	if b < a || int(b) > len(t.str) {
		return ""
	}
	return t.str[a:b]
}

// Lists returns a term's associations and heading associations, best
// first (none when the table has no entry for it). The strings point into
// the table's mapping: use them before the table is dropped.
func (t *AssocTable) Lists(term string) (assoc, bodies []AssocRef) {
	n := len(t.hash)
	if n == 0 || n&(n-1) != 0 {
		return nil, nil
	}
	mask := uint32(n - 1)
	i := termHash(term) & mask
	for range n {
		v := t.hash[i]
		if v == 0 {
			return nil, nil
		}
		if k := v - 1; k >= 0 && int(k) < len(t.keys) && t.string(t.keys[k]) == term {
			return t.list(t.assocOff, t.assoc, k), t.list(t.bodyOff, t.body, k)
		}
		i = (i + 1) & mask
	}
	return nil, nil
}

func (t *AssocTable) list(off []int32, l []assocEntry, k int32) []AssocRef {
	if int(k)+1 >= len(off) {
		return nil
	}
	a, b := off[k], off[k+1]
	if a < 0 || b < a || int(b) > len(l) {
		return nil
	}
	out := make([]AssocRef, 0, b-a)
	for _, e := range l[a:b] {
		out = append(out, AssocRef{Term: t.string(e.Str), W: e.W})
	}
	return out
}
