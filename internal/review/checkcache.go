package review

import (
	"container/list"
	"reflect"
	"sync"

	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/review/detect"
)

// checkCacheSize is how many (provisions, contract) results a Finder keeps.
// An entry is a few cells and the contract it was computed from (which a
// loader usually holds anyway): at CUAD's average contract, well under
// 100 MB when full.
const checkCacheSize = 1024

// checkCache keeps the cells a Finder computed for a set of provisions and a
// contract, least recently used dropped first. Searches ask about the same
// few provisions of the same contracts again and again (every question that
// routes to a contract and asks about its term checks the term of that
// contract), and a check costs preparing the contract (cutting it into
// passages, their words and features) and scoring every passage: a cached
// one costs the loader's read and a comparison.
//
// An entry is used only for the same contract: the document and tree the
// loader returns now are the ones (the same pointers, or equal in every
// field the review reads) the cells were computed from, so a contract
// changed or stored again unchanged gives the same cells as a new check
// would. Safe for concurrent use.
type checkCache struct {
	mu   sync.Mutex
	max  int
	ll   *list.List // of *checkEntry, most recent first
	byID map[checkKey]*list.Element
}

type checkKey struct{ provisions, id string }

type checkEntry struct {
	key   checkKey
	d     detect.Doc
	cells []checkedCell
}

func newCheckCache(n int) *checkCache {
	return &checkCache{max: n, ll: list.New(), byID: map[checkKey]*list.Element{}}
}

// get returns the cells of contract id (read as d) for the provisions key
// names, when they were computed from the same contract.
func (c *checkCache) get(provisions, id string, d detect.Doc) ([]checkedCell, bool) {
	k := checkKey{provisions, id}
	c.mu.Lock()
	el := c.byID[k]
	var e *checkEntry
	if el != nil {
		e = el.Value.(*checkEntry)
		c.ll.MoveToFront(el)
	}
	c.mu.Unlock()
	if e == nil || !sameDoc(e.d, d) {
		return nil, false
	}
	return e.cells, true
}

// put records the cells of contract id, computed from d.
func (c *checkCache) put(provisions, id string, d detect.Doc, cells []checkedCell) {
	if c.max <= 0 {
		return
	}
	k := checkKey{provisions, id}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.byID[k]; el != nil {
		el.Value = &checkEntry{key: k, d: d, cells: cells}
		c.ll.MoveToFront(el)
		return
	}
	c.byID[k] = c.ll.PushFront(&checkEntry{key: k, d: d, cells: cells})
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.byID, last.Value.(*checkEntry).key)
	}
}

// sameDoc reports whether a review of b gives what a review of a gave: the
// same document and tree (by pointer, or equal in what the review reads:
// id, name, hash, text, pages, blocks, furniture, tree).
func sameDoc(a, b detect.Doc) bool {
	if a.ID != b.ID || a.Name != b.Name || a.Hash != b.Hash {
		return false
	}
	if a.Doc == b.Doc && a.Tree == b.Tree {
		return true
	}
	return a.Doc != nil && b.Doc != nil && sameText(a.Doc, b.Doc) && sameTree(a.Tree, b.Tree)
}

func sameText(a, b *document.Document) bool {
	return a == b || a.ID == b.ID && a.Name == b.Name && a.Format == b.Format && a.Text == b.Text &&
		reflect.DeepEqual(a.Pages, b.Pages) && reflect.DeepEqual(a.Blocks, b.Blocks) &&
		reflect.DeepEqual(a.Furniture, b.Furniture)
}

func sameTree(a, b *clause.Tree) bool {
	return a == b || a != nil && b != nil && reflect.DeepEqual(a.Nodes, b.Nodes)
}
