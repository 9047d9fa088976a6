package search

import "github.com/pakton/pakton/internal/search/index"

// What a search indexes and returns is defined by the index package below
// it (internal/search/index); these names keep the search API readable for
// its callers.
type (
	// View says how a unit's indexed text was built from its clause.
	View = index.View
	// DocInput is one document to index.
	DocInput = index.DocInput
	// UnitInput is one retrieval unit to index.
	UnitInput = index.UnitInput
	// Vectors are the embeddings of some units of one document.
	Vectors = index.Vectors
)

// Views of a clause (index.View).
const (
	ViewPlain      = index.ViewPlain
	ViewAncestors  = index.ViewAncestors
	ViewDescendant = index.ViewDescendant
	ViewProvision  = index.ViewProvision
	numViews       = index.NumViews
)
