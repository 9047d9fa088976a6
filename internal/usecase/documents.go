package usecase

import (
	"context"
	"errors"

	"github.com/pakton/pakton/internal/docread"
	"github.com/pakton/pakton/internal/store"
)

// DocumentError is the failure to resolve what a user typed to name a
// document (an id, a name, part of a name): no document of the collection
// fits it (Err wraps store.ErrNotFound), or several do (Ambiguous). Its
// message is the resolver's, which names the candidates.
type DocumentError struct {
	Ref string
	Err error
}

func (e *DocumentError) Error() string { return e.Err.Error() }
func (e *DocumentError) Unwrap() error { return e.Err }

// Ambiguous reports whether several documents fit the reference.
func (e *DocumentError) Ambiguous() bool { return errors.Is(e.Err, docread.ErrAmbiguous) }

// Documents resolves refs, what a user typed to name documents of
// collection c, to their ids, in order (docread.FindDoc). A reference that
// fits no document or several is a *DocumentError.
func Documents(ctx context.Context, st *store.Store, c string, refs []string) ([]string, error) {
	var ids []string
	for _, ref := range refs {
		info, err := docread.FindDoc(ctx, st, c, ref)
		if err != nil {
			return nil, &DocumentError{Ref: ref, Err: err}
		}
		ids = append(ids, info.ID)
	}
	return ids, nil
}
