package eval

import (
	"fmt"

	"github.com/pakton/pakton/internal/chunk"
	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/search/index"
)

// Methods lists the retrieval methods the harness knows, default first.
var Methods = []string{"pakton", "naive", "rcts"}

// MethodByName returns a named method.
func MethodByName(name string) (Method, error) {
	switch name {
	case "naive":
		return splitterMethod{name: "naive", split: func(t []rune) []document.Span { return chunk.Naive(t, 500) }}, nil
	case "rcts":
		return splitterMethod{name: "rcts", split: func(t []rune) []document.Span { return chunk.Recursive(t, 500, nil) }}, nil
	case "pakton", "":
		return paktonMethod{}, nil
	}
	return nil, fmt.Errorf("eval: unknown method %q (known: %v)", name, Methods)
}

// splitterMethod is a published baseline: fixed chunks of the text, each
// indexed as it is and returned as it is.
type splitterMethod struct {
	name  string
	split func([]rune) []document.Span
}

func (m splitterMethod) Name() string { return m.name }

func (m splitterMethod) Units(doc *document.Document) (index.DocInput, error) {
	text := []rune(doc.Text)
	in := index.DocInput{Opening: chunk.Opening(doc, 1500), Names: chunk.Names(doc).All()}
	for _, sp := range m.split(text) {
		in.Units = append(in.Units, index.UnitInput{Text: string(text[sp.Start:sp.End]), Spans: []document.Span{sp}, Node: -1})
	}
	return in, nil
}

// paktonMethod is the full pipeline: clause tree, views of every clause,
// summary augmentation.
type paktonMethod struct{}

func (paktonMethod) Name() string { return "pakton" }

func (paktonMethod) Units(doc *document.Document) (index.DocInput, error) {
	return chunk.Build(doc, nil, chunk.Options{}), nil
}
