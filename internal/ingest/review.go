package ingest

import (
	"github.com/pakton/pakton/internal/review/answer"
	"github.com/pakton/pakton/internal/review/detect"
	"github.com/pakton/pakton/internal/store"
)

// encodeReview prepares a record's document for the review detectors and
// encodes it with what the answer readers find in the whole contract
// (docread.ArtifactReview).
func encodeReview(rec *store.Record) []byte {
	p, err := detect.Prepare(detect.Doc{ID: rec.Doc.ID, Name: rec.Doc.Name, Doc: rec.Doc, Tree: rec.Tree})
	if err != nil {
		return nil
	}
	return p.Encode(answer.Sections(p)...)
}
