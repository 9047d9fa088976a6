// Package agent answers a question about contracts with PAKTON's three
// agents — the Archivist, which turns a request into a question, context and
// instructions; the Researcher, which answers one focused question with
// tools and numbered evidence; and the Interrogator, which questions the
// Researcher about the gaps of a draft report and refines it — or, with no
// language model configured, with an evidence report that quotes the
// provisions retrieval found and interprets nothing.
package agent

import (
	"context"
	"fmt"
	"sync"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/report"
	"github.com/pakton/pakton/internal/review"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/store"
	"github.com/pakton/pakton/internal/tool"
)

// Library is the collection a question is asked about: the corpus the
// contract tools search, and the stored documents quotations are verified
// against. It implements report.Documents, report.Locator and report.Titler.
type Library struct {
	Corpus *tool.Corpus
	// Progress, when set, receives lines about long offline work done for
	// a report (reviewing every contract for a deal-room question).
	Progress func(string)

	mu   sync.Mutex
	recs map[string]*store.Record
}

// NewLibrary returns a Library over an indexed collection. Its searches put
// the review detectors' passage first for questions about a playbook
// provision (search.Models.Provisions) — the built-in detectors over the
// library's documents unless c sets a finder — so the evidence report's
// provision check and its first quoted provision agree.
func NewLibrary(c *tool.Corpus) *Library {
	l := &Library{recs: map[string]*store.Record{}}
	if c != nil && c.Models.Provisions == nil {
		cc := *c
		cc.Models.Provisions = review.BuiltinProvisions(l.reviewDoc)
		c = &cc
	}
	l.Corpus = c
	return l
}

// reviewDoc reads a document for the review detectors.
func (l *Library) reviewDoc(ctx context.Context, id string) (detect.Doc, error) {
	rec, err := l.record(ctx, id)
	if err != nil {
		return detect.Doc{}, err
	}
	return detect.Doc{ID: id, Name: l.Corpus.Index.DocName(id), Doc: rec.Doc, Tree: rec.Tree, Stored: docread.StoredReview(ctx, l.Corpus.Store, l.Corpus.Collection, id)}, nil
}

func (l *Library) record(ctx context.Context, id string) (*store.Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if rec, ok := l.recs[id]; ok {
		return rec, nil
	}
	rec, err := l.Corpus.Store.Document(ctx, l.Corpus.Collection, id)
	if err != nil {
		return nil, fmt.Errorf("document %s: %w", id, err)
	}
	rec.Tree = docread.Tree(rec)
	l.recs[id] = rec
	return rec, nil
}

// Document returns a stored document with its canonical text.
func (l *Library) Document(ctx context.Context, id string) (*document.Document, error) {
	rec, err := l.record(ctx, id)
	if err != nil {
		return nil, err
	}
	return rec.Doc, nil
}

// ClausePath returns the clause path that cites span: every clause it runs
// over (clause.Tree.SpanPath).
func (l *Library) ClausePath(ctx context.Context, id string, span document.Span) string {
	rec, err := l.record(ctx, id)
	if err != nil || rec.Tree == nil || len(rec.Tree.Nodes) == 0 {
		return ""
	}
	return rec.Tree.SpanPath(span)
}

// DocTitle names a document as people do: its title, parties and date
// (names.Display, from the collection's index); "" when the index does not
// hold it.
func (l *Library) DocTitle(id string) string {
	if l.Corpus == nil || l.Corpus.Index == nil {
		return ""
	}
	return l.Corpus.Index.DocDisplay(id)
}

// Find resolves what a user typed to name a document (id, name, base name).
func (l *Library) Find(ctx context.Context, ref string) (report.DocRef, error) {
	info, err := docread.FindDoc(ctx, l.Corpus.Store, l.Corpus.Collection, ref)
	if err != nil {
		return report.DocRef{}, err
	}
	return report.DocRef{ID: info.ID, Name: info.Name}, nil
}

// List returns every document of the collection.
func (l *Library) List(ctx context.Context) ([]report.DocRef, error) {
	infos, err := l.Corpus.Store.List(ctx, l.Corpus.Collection)
	if err != nil {
		return nil, err
	}
	out := make([]report.DocRef, len(infos))
	for i, in := range infos {
		out[i] = report.DocRef{ID: in.ID, Name: in.Name}
	}
	return out, nil
}

// docRefs names document ids.
func (l *Library) docRefs(ids []string) []report.DocRef {
	out := make([]report.DocRef, 0, len(ids))
	for _, id := range ids {
		out = append(out, report.DocRef{ID: id, Name: l.Corpus.Index.DocName(id)})
	}
	return out
}
