package docread

import (
	"context"
	"errors"
	"log/slog"

	"github.com/pakton/pakton/internal/store"
)

// StoredReview returns what a detect.Doc of a stored document reads as its
// Stored preparation: the document's ArtifactReview, read when the
// detectors first need it. A document stored before the artifact existed
// (or whose artifact cannot be read) gives nil, and is prepared from its
// text instead; detect.DecodePrepared refuses an artifact of another
// version or one that does not fit the document, so an old or damaged
// artifact never changes an answer.
func StoredReview(ctx context.Context, st *store.Store, collection, id string) func() []byte {
	return func() []byte {
		b, err := st.Artifact(context.WithoutCancel(ctx), collection, id, ArtifactReview)
		if err != nil {
			if !errors.Is(err, store.ErrNotFound) {
				slog.Warn("stored review preparation unreadable; preparing the document from its text", "collection", collection, "doc", id, "err", err)
			}
			return nil
		}
		return b
	}
}
