package graph

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
)

// NodeKind names what a vertex of a collection graph stands for.
type NodeKind string

// Vertex kinds.
const (
	NodeDocument NodeKind = "document"
	NodeClause   NodeKind = "clause"
	NodeTerm     NodeKind = "term"
	NodeParty    NodeKind = "party"
	// NodeInstrument is another agreement, statute or regulation that
	// references point into; one vertex per name across the collection.
	NodeInstrument NodeKind = "instrument"
	// NodeMissing is a label a reference names that nothing in its
	// document carries.
	NodeMissing NodeKind = "missing"
)

// EdgeKind names a relation.
type EdgeKind string

// Relations.
const (
	EdgeDefines  EdgeKind = "defines"   // clause → term or party
	EdgeUses     EdgeKind = "uses"      // clause → term or party (Count times)
	EdgeRefersTo EdgeKind = "refers-to" // clause → clause, instrument or missing (Count times)
	EdgePartOf   EdgeKind = "part-of"   // clause → parent clause or document
	EdgeNext     EdgeKind = "next"      // clause → its next sibling
)

// Vertex is one node of a collection graph. ID is unique in the graph:
// "doc:ID", "clause:DOC/N", "term:DOC/KEY", "party:DOC/KEY",
// "instrument:NAME", "missing:DOC/LABEL".
type Vertex struct {
	ID    string   `json:"id"`
	Kind  NodeKind `json:"kind"`
	Label string   `json:"label"`         // document name, clause path, term, instrument name
	Doc   string   `json:"doc,omitempty"` // document id (all but instruments)
	Node  int      `json:"node,omitempty"`
	// Span is the clause's span, or for a term its first definition's.
	Span *document.Span `json:"span,omitempty"`
}

// Edge is one relation between two vertices.
type Edge struct {
	From  string   `json:"from"`
	To    string   `json:"to"`
	Kind  EdgeKind `json:"kind"`
	Count int      `json:"count,omitempty"` // uses and references: how many times
}

// Graph is the graph of a collection: its documents, their clauses, the
// terms and parties they define, and how clauses define, use and refer.
type Graph struct {
	Vertices []Vertex `json:"nodes"`
	Edges    []Edge   `json:"edges"`
}

// Source is one document as Build needs it.
type Source struct {
	ID, Name string
	Tree     *clause.Tree
	Graph    *Doc
}

// ClauseID returns the vertex id of clause node n of document doc.
func ClauseID(doc string, n int) string { return "clause:" + doc + "/" + strconv.Itoa(n) }

// TermID returns the vertex id of a term (or party name) of document doc.
func TermID(doc, term string, party bool) string {
	if party {
		return "party:" + doc + "/" + Key(term)
	}
	return "term:" + doc + "/" + Key(term)
}

// Build assembles the graph of a collection from its documents, in the
// order given.
func Build(docs []Source) *Graph {
	g := &Graph{}
	instruments := map[string]bool{}
	for _, d := range docs {
		docID := "doc:" + d.ID
		g.Vertices = append(g.Vertices, Vertex{ID: docID, Kind: NodeDocument, Label: d.Name, Doc: d.ID})
		t := d.Tree
		for id := 1; id < len(t.Nodes); id++ {
			n := &t.Nodes[id]
			sp := n.Span
			g.Vertices = append(g.Vertices, Vertex{ID: ClauseID(d.ID, id), Kind: NodeClause, Label: clauseLabel(t, id), Doc: d.ID, Node: id, Span: &sp})
			parent := docID
			if n.Parent > 0 {
				parent = ClauseID(d.ID, n.Parent)
			}
			g.Edges = append(g.Edges, Edge{From: ClauseID(d.ID, id), To: parent, Kind: EdgePartOf})
			sib := t.Nodes[n.Parent].Children
			for k, c := range sib {
				if c == id && k+1 < len(sib) {
					g.Edges = append(g.Edges, Edge{From: ClauseID(d.ID, id), To: ClauseID(d.ID, sib[k+1]), Kind: EdgeNext})
				}
			}
		}
		if d.Graph == nil {
			continue
		}
		party := map[string]bool{}
		for _, def := range d.Graph.Definitions {
			if def.Kind == DefParty {
				party[Key(def.Term)] = true
			}
		}
		seen := map[string]bool{}
		for _, def := range d.Graph.Definitions {
			id := TermID(d.ID, def.Term, party[Key(def.Term)])
			if !seen[id] {
				seen[id] = true
				kind := NodeTerm
				if party[Key(def.Term)] {
					kind = NodeParty
				}
				sp := def.Span
				g.Vertices = append(g.Vertices, Vertex{ID: id, Kind: kind, Label: def.Term, Doc: d.ID, Node: def.Node, Span: &sp})
			}
			g.Edges = append(g.Edges, Edge{From: nodeVertex(d.ID, def.Node), To: id, Kind: EdgeDefines})
		}
		for _, u := range d.Graph.Uses {
			term := d.Graph.Terms[u.Term]
			g.Edges = append(g.Edges, Edge{From: nodeVertex(d.ID, u.Node), To: TermID(d.ID, term, party[Key(term)]), Kind: EdgeUses, Count: u.Count})
		}
		refs := map[[2]string]int{}
		var order [][2]string
		for _, r := range d.Graph.References {
			var to string
			switch {
			case r.Target >= 0:
				to = ClauseID(d.ID, r.Target)
			case r.Status == External:
				to = "instrument:" + r.External
				if !instruments[to] {
					instruments[to] = true
					g.Vertices = append(g.Vertices, Vertex{ID: to, Kind: NodeInstrument, Label: r.External})
				}
			default:
				to = "missing:" + d.ID + "/" + r.Label
				if !seen[to] {
					seen[to] = true
					g.Vertices = append(g.Vertices, Vertex{ID: to, Kind: NodeMissing, Label: r.Label, Doc: d.ID})
				}
			}
			k := [2]string{nodeVertex(d.ID, r.Node), to}
			if refs[k] == 0 {
				order = append(order, k)
			}
			refs[k]++
		}
		for _, k := range order {
			g.Edges = append(g.Edges, Edge{From: k[0], To: k[1], Kind: EdgeRefersTo, Count: refs[k]})
		}
	}
	return g
}

// nodeVertex is the vertex of clause node n, the document for the root.
func nodeVertex(doc string, n int) string {
	if n <= 0 {
		return "doc:" + doc
	}
	return ClauseID(doc, n)
}

// clauseLabel is a clause's path, or its kind and number when it has no
// label or heading ("paragraph 12").
func clauseLabel(t *clause.Tree, id int) string {
	if p := t.Path(id); p != "" {
		return p
	}
	return fmt.Sprintf("%s %d", t.Nodes[id].Kind, id)
}

// Stats counts a graph's vertices and edges by kind.
func (g *Graph) Stats() map[string]int {
	out := map[string]int{}
	for _, v := range g.Vertices {
		out[string(v.Kind)]++
	}
	for _, e := range g.Edges {
		out[string(e.Kind)]++
	}
	return out
}

// Encode returns a document graph as stored (ingest artifact "graph"):
// gzipped JSON (a third of the JSON's size on CUAD).
func (d *Doc) Encode() ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(d); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxDecoded bounds the JSON a stored graph may expand to.
const maxDecoded = 256 << 20

// Decode reads a stored document graph (gzipped or plain JSON). It returns
// an error for bytes that are not one, and for a graph whose node ids do
// not fit a tree of n nodes (a graph stored for another version of the
// tree).
func Decode(b []byte, n int) (*Doc, error) {
	var d Doc
	var r io.Reader = bytes.NewReader(b)
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("graph: %w", err)
		}
		r = io.LimitReader(zr, maxDecoded)
	}
	if err := json.NewDecoder(r).Decode(&d); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	bad := func(id int) bool { return id < -1 || id >= n }
	for _, x := range d.Definitions {
		if bad(x.Node) || x.Node < 0 {
			return nil, fmt.Errorf("graph: definition of %q in node %d of %d", x.Term, x.Node, n)
		}
	}
	for _, r := range d.References {
		if bad(r.Node) || r.Node < 0 || bad(r.Target) {
			return nil, fmt.Errorf("graph: reference %q from node %d to %d of %d", r.Text, r.Node, r.Target, n)
		}
	}
	for _, u := range d.Uses {
		if bad(u.Node) || u.Node < 0 || u.Term < 0 || u.Term >= len(d.Terms) {
			return nil, fmt.Errorf("graph: use of term %d in node %d", u.Term, u.Node)
		}
	}
	return &d, nil
}

// SortedTerms returns the document's terms with their use counts, most
// used first.
func (d *Doc) SortedTerms() []TermCount {
	counts := make([]int, len(d.Terms))
	for _, u := range d.Uses {
		counts[u.Term] += u.Count
	}
	out := make([]TermCount, len(d.Terms))
	for i, t := range d.Terms {
		out[i] = TermCount{Term: t, Uses: counts[i]}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Uses > out[j].Uses })
	return out
}

// TermCount is a term and how many times it is used.
type TermCount struct {
	Term string `json:"term"`
	Uses int    `json:"uses"`
}
