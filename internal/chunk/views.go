package chunk

import (
	"github.com/pakton/pakton/internal/clause"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search"
)

// Options tune how units are built. The zero value is the default.
type Options struct {
	MaxUnit int // largest unit in code points before splitting (default 1200)
}

// Build returns the retrieval units of a document. When tree is nil the
// units are the recursive splitter's chunks.
func Build(doc *document.Document, tree *clause.Tree, opt Options) search.DocInput {
	text := []rune(doc.Text)
	in := search.DocInput{ID: doc.ID, Name: doc.Name, Header: Summary(doc).String()}
	for _, sp := range Recursive(text, 500, nil) {
		in.Units = append(in.Units, search.UnitInput{Text: string(text[sp.Start:sp.End]), Spans: []document.Span{sp}, Node: -1})
	}
	return in
}
