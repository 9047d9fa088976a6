package detect

import (
	"fmt"
	"strings"
	"sync"
	"unicode"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// Passage sizes (code points). A clause's own text is one passage unless it
// is longer than maxPassage; then it is cut at sentence ends into pieces of
// about targetPassage.
const (
	maxPassage    = 1200
	targetPassage = 700
	leadInChars   = 200 // how much of a parent's own text gives a list item its context
)

// Doc is one contract to review: its canonical text and clause tree.
type Doc struct {
	ID   string
	Name string
	// Hash identifies the document's content (the store's source SHA-256),
	// so cached results are reused only for unchanged documents.
	Hash string
	Doc  *document.Document
	Tree *clause.Tree // parsed from Doc when nil
	// Stored, when set, reads the contract as prepared when it was
	// ingested (Prepared.Encode), or returns nil when there is none:
	// Prepare uses it when it fits Doc and Tree (DecodePrepared), and
	// prepares the contract from its text otherwise.
	Stored func() []byte
}

// Extract is one verbatim passage returned for a cell.
type Extract struct {
	Span  document.Span `json:"span"`            // code points of the canonical text
	Path  string        `json:"path,omitempty"`  // clause path, e.g. "Article 5 > 5.2"
	Node  int           `json:"node"`            // clause node id
	Pages []int         `json:"pages,omitempty"` // 1-based physical pages (paginated formats)
	Text  string        `json:"text"`            // the canonical text of Span, verbatim
	Score float64       `json:"score"`           // the detector's probability for this passage
}

// Passage is one candidate location of a provision: a clause's own text (or
// a piece of it), with the words around it that say what it is about.
//
// Words, Context and LeadIn are empty in the passages of a contract read
// from its stored preparation (DecodePrepared): the scorer reads them as
// indexes (its tables), the trainer and Encode through
// Prepared.wordPassages.
type Passage struct {
	Span    document.Span
	Node    int
	Words   []string // analyzed words of the passage text, in order
	Context []string // analyzed words of its ancestors' labels and headings and its own heading
	LeadIn  []string // analyzed words of the parent's lead-in, for list items
	Rel     float64  // where the passage starts, as a fraction of the document
	Ordinal int      // index among the document's passages
	Kind    clause.Kind
}

// Prepared is a contract analyzed once for review: cut into passages, its
// words and features extracted. Several scorers (or one scorer called
// several times) can share it; it is safe for concurrent use.
type Prepared struct {
	doc      Doc
	tree     *clause.Tree
	ix       *document.Index
	passages []Passage
	feats    [][]uint32 // per passage: hashed feature ids (see features.go)

	tab      lazyTables        // the words and features as indexes (tables)
	sections map[string][]byte // read with a stored preparation (Section)

	// words are the passages with their words, for a stored preparation
	// (whose passages hold none): built on first use (wordPassages).
	words struct {
		once  sync.Once
		build func() []Passage // nil: passages hold their words
		list  []Passage
	}

	memoMu sync.Mutex
	memo   map[any]*memoEntry
}

type memoEntry struct {
	once sync.Once
	v    any
}

// Prepare analyzes a contract for review, or reads it as stored at ingest
// (Doc.Stored).
func Prepare(d Doc) (*Prepared, error) {
	if d.Doc == nil {
		return nil, fmt.Errorf("review: document %q has no text", d.Name)
	}
	if d.Stored != nil {
		if b := d.Stored(); len(b) > 0 {
			if p, err := DecodePrepared(d, b); err == nil {
				return p, nil
			}
		}
	}
	return prepare(d), nil
}

// Doc returns the contract p was prepared from.
func (p *Prepared) Doc() Doc { return p.doc }

// Tree returns the contract's clause tree.
func (p *Prepared) Tree() *clause.Tree { return p.tree }

// Index returns the code-point index of the contract's text.
func (p *Prepared) Index() *document.Index { return p.ix }

// Passages returns the contract's passages, in document order. The caller
// must not change them.
func (p *Prepared) Passages() []Passage { return p.passages }

// wordPassages returns p's passages with their words, heading and lead-in
// words as strings: its passages, or, for a contract read from its stored
// preparation, a copy of them with the words filled in from the indexes
// decoded (made once). What reads the words as strings — training,
// Encode, the reference scorer of the tests — reads them here; scoring
// reads the tables.
func (p *Prepared) wordPassages() []Passage {
	p.words.once.Do(func() {
		if p.words.build != nil {
			p.words.list = p.words.build()
		} else {
			p.words.list = p.passages
		}
	})
	return p.words.list
}

// Memo returns what build returns for key, calling build once per key and
// contract: what the layers above derive from the whole contract (its
// running lines, its defined dates) is found on first use and kept with it.
func (p *Prepared) Memo(key any, build func() any) any {
	p.memoMu.Lock()
	e := p.memo[key]
	if e == nil {
		if p.memo == nil {
			p.memo = map[any]*memoEntry{}
		}
		e = &memoEntry{}
		p.memo[key] = e
	}
	p.memoMu.Unlock()
	e.once.Do(func() { e.v = build() })
	return e.v
}

func prepare(d Doc) *Prepared {
	p := &Prepared{doc: d, tree: TreeOf(d), ix: document.NewIndex(d.Doc.Text)}
	n := p.ix.Len()
	t := p.tree
	for id := 1; id < len(t.Nodes); id++ {
		node := &t.Nodes[id]
		if node.Own.Empty() {
			continue
		}
		ctx := headingWords(t, id)
		var lead []string
		if par := node.Parent; par > 0 && t.Nodes[par].Kind != clause.KindDocument {
			lead = Analyze(truncate(p.ix.Slice(t.Nodes[par].Own), leadInChars))
		}
		for _, sp := range cut(p.ix, node.Own) {
			words := Analyze(p.ix.Slice(sp))
			if len(words) == 0 {
				continue
			}
			rel := 0.0
			if n > 0 {
				rel = float64(sp.Start) / float64(n)
			}
			p.passages = append(p.passages, Passage{Span: sp, Node: id, Words: words, Context: ctx, LeadIn: lead, Rel: rel, Ordinal: len(p.passages), Kind: node.Kind})
		}
	}
	p.feats = make([][]uint32, len(p.passages))
	for i := range p.passages {
		p.feats[i] = features(&p.passages[i], p.ix.Slice(p.passages[i].Span))
	}
	return p
}

// Extract turns passage k into an Extract.
func (p *Prepared) Extract(k int, score float64) Extract {
	ps := &p.passages[k]
	return Extract{
		Span:  ps.Span,
		Path:  p.tree.Path(ps.Node),
		Node:  ps.Node,
		Pages: p.doc.Doc.PagesOf(ps.Span),
		Text:  p.ix.Slice(ps.Span),
		Score: score,
	}
}

// TreeOf returns the document's tree, parsing it when absent.
func TreeOf(d Doc) *clause.Tree {
	if d.Tree != nil && len(d.Tree.Nodes) > 0 {
		return d.Tree
	}
	return clause.Parse(d.Doc)
}

// headingWords returns the analyzed labels and headings of a node and its
// ancestors: what the drafter said the clause is about.
func headingWords(t *clause.Tree, id int) []string {
	var b strings.Builder
	for _, a := range append(t.Ancestors(id), id) {
		n := &t.Nodes[a]
		if n.Heading != "" {
			b.WriteString(n.Heading)
			b.WriteByte(' ')
		}
		if n.Term != "" {
			b.WriteString(n.Term)
			b.WriteByte(' ')
		}
	}
	return Analyze(b.String())
}

// cut splits a long span at sentence ends into pieces of about
// targetPassage code points; a short span is returned whole. Leading and
// trailing white space is trimmed from every piece.
func cut(ix *document.Index, sp document.Span) []document.Span {
	sp = TrimSpan(ix, sp)
	if sp.Len() <= maxPassage {
		if sp.Empty() {
			return nil
		}
		return []document.Span{sp}
	}
	text := []rune(ix.Slice(sp))
	var out []document.Span
	start := 0
	for start < len(text) {
		end := len(text)
		if end-start > maxPassage {
			end = sentenceBreak(text, start+targetPassage/2, start+targetPassage, start+maxPassage)
		}
		piece := TrimSpan(ix, document.Span{Start: sp.Start + start, End: sp.Start + end})
		if !piece.Empty() {
			out = append(out, piece)
		}
		start = end
	}
	return out
}

// sentenceBreak returns the end of the sentence ending nearest after
// target (searching back to lo when none ends before hi), or hi.
func sentenceBreak(text []rune, lo, target, hi int) int {
	isEnd := func(i int) bool {
		if i <= 0 || i >= len(text) {
			return false
		}
		c := text[i-1]
		return (c == '.' || c == ';' || c == ':') && unicode.IsSpace(text[i])
	}
	for i := target; i < hi && i < len(text); i++ {
		if isEnd(i) {
			return i
		}
	}
	for i := target; i > lo; i-- {
		if isEnd(i) {
			return i
		}
	}
	for i := hi; i > lo; i-- {
		if i < len(text) && unicode.IsSpace(text[i]) {
			return i
		}
	}
	return min(hi, len(text))
}

// TrimSpan returns sp without its leading and trailing white space.
func TrimSpan(ix *document.Index, sp document.Span) document.Span {
	s := []rune(ix.Slice(sp))
	a, b := 0, len(s)
	for a < b && unicode.IsSpace(s[a]) {
		a++
	}
	for b > a && unicode.IsSpace(s[b-1]) {
		b--
	}
	return document.Span{Start: sp.Start + a, End: sp.Start + b}
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}
