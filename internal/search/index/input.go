package index

import (
	"fmt"

	"github.com/pakton/pakton/internal/document"
	"github.com/pakton/pakton/internal/names"
)

// View says how a unit's indexed text was built from its clause.
type View uint8

// Views of a clause. Retrieval returns source spans only, whatever the view
// indexed.
const (
	ViewPlain      View = iota // the text alone (baseline chunks, clause text)
	ViewAncestors              // the clause with its ancestors' labels and headings
	ViewDescendant             // the clause with its sub-clauses
	// NumViews is the number of indexed views.
	NumViews

	// ViewProvision marks a hit found by a ProvisionFinder (the review
	// detectors), not by the index: it is never indexed.
	ViewProvision = NumViews
)

func (v View) String() string {
	switch v {
	case ViewPlain:
		return "plain"
	case ViewAncestors:
		return "ancestors"
	case ViewDescendant:
		return "descendants"
	case ViewProvision:
		return "provision"
	}
	return fmt.Sprintf("view%d", v)
}

// UnitInput is one retrieval unit to index.
type UnitInput struct {
	Text  string          // the text to index (may include context not returned)
	Spans []document.Span // the source spans returned when the unit matches
	Node  int             // clause node id, or -1
	View  View
	// Heading is what the clause calls itself ("Audit Rights"; a defined
	// term; else the nearest ancestor's heading). Its words are not matched
	// by questions: they teach the index which body words go with which
	// headings (HeadMark). Set it on one view of each text only.
	Heading string
}

// DocInput is one document to index.
type DocInput struct {
	ID     string
	Name   string
	Header string // title, parties and type: what a question naming the contract would mention
	// Opening is the start of the document's text. Routing also matches it,
	// since the first page names the parties however the title reads.
	Opening string
	// About is an optional model-written summary. Routing matches it, but
	// since it describes topics as well as names, its words are never taken
	// for a reference to the contract (see referenceTerms).
	About string
	// Names are the names people call the document by, learnt from it at
	// ingest (names.Learn): routing narrows a question that uses one to
	// the documents it names.
	Names []names.Name
	Units []UnitInput
}

// HeadMark starts the vocabulary entry of a heading word (UnitInput.Heading).
// Question words never start with it, so heading terms are never matched
// directly; they teach which body words go with which headings.
const HeadMark = "\x01"

// SelfMark starts the vocabulary entry that counts a word's uses as a
// self-reference ("this Agreement"; selfReferences). Question words never
// start with it.
const SelfMark = "\x02"

// IsHeadTerm reports whether a vocabulary entry is a heading word.
func IsHeadTerm(t string) bool { return len(t) > 0 && t[0] == HeadMark[0] }

// IsMarked reports whether a vocabulary entry is a marked term (a heading
// word or a self-reference count), never a question word.
func IsMarked(t string) bool { return len(t) > 0 && (t[0] == HeadMark[0] || t[0] == SelfMark[0]) }
