package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The trash. Removing a document (Trash) keeps it for an undo window: it is
// put, whole — text, tree, source and every artifact — into the
// collection's trash, a collection of its own (TrashCollection), and only
// then deleted from the collection. Restore puts it back and then deletes
// it from the trash; PurgeTrash deletes what has been in the trash longer
// than the window. Each step is one Put or Delete, each crash-safe on its
// own, in an order that never loses the document: a crash between the two
// steps leaves it in both places (never in neither), and the trash hides
// such a copy — one whose document is live with the same content — and
// purges it. Nothing else of the store changes: the trash works the same
// on a directory and on a cluster.

// trashPrefix starts the name of every trash collection; CreateCollection
// and ValidCollection refuse names with it, so no user collection is one.
const trashPrefix = "trash."

// TrashArtifact is the artifact a document in the trash carries: when it
// was removed (JSON, TrashEntry's fields); Restore drops it.
const TrashArtifact = "trashed.json"

// TrashKeep is how long a removed document stays in the trash (the undo
// window) before PurgeTrash deletes it.
const TrashKeep = 30 * 24 * time.Hour

// TrashCollection is the name of collection c's trash.
func TrashCollection(c string) string {
	if n := trashPrefix + c; len(n) <= 64 {
		return n
	}
	sum := sha256.Sum256([]byte(c))
	return trashPrefix + c[:40] + "-" + hex.EncodeToString(sum[:6])
}

// IsTrash reports whether c is a trash collection.
func IsTrash(c string) bool { return strings.HasPrefix(c, trashPrefix) }

// TrashEntry is a document in a collection's trash.
type TrashEntry struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	DeletedAt time.Time `json:"deleted_at"`
	// Until is when PurgeTrash may delete it (DeletedAt + TrashKeep).
	Until  time.Time `json:"until"`
	SHA256 string    `json:"sha256"`
}

// Trash removes document id from collection c, keeping it in c's trash for
// the undo window (Restore brings it back). now is the time of removal.
func (s *Store) Trash(ctx context.Context, c, id string, now time.Time) (TrashEntry, error) {
	if err := checkDocID(c, id); err != nil {
		return TrashEntry{}, err
	}
	rec, err := s.Get(ctx, c, id)
	if err != nil {
		return TrashEntry{}, err
	}
	e := TrashEntry{ID: id, Name: rec.Doc.Name, DeletedAt: now.UTC(), Until: now.UTC().Add(TrashKeep), SHA256: rec.Source.SHA256}
	raw, err := json.Marshal(e)
	if err != nil {
		return TrashEntry{}, err
	}
	rec.Artifacts[TrashArtifact] = raw
	t := TrashCollection(c)
	if err := s.engine.createCollection(ctx, t); err != nil {
		return TrashEntry{}, fmt.Errorf("store: trash of %q: %w", c, err)
	}
	// first kept, then removed: a crash in between leaves it in both
	if err := s.Put(ctx, t, rec); err != nil {
		return TrashEntry{}, err
	}
	if err := s.Delete(ctx, c, id); err != nil {
		return TrashEntry{}, err
	}
	return e, nil
}

// ErrNewerVersion is the error of restoring a document whose name was
// ingested again after it was removed.
var ErrNewerVersion = errors.New("a document of that name was ingested after it was removed")

// Restore puts document id back into collection c from c's trash. It
// refuses (ErrNewerVersion) when c holds another version of it now.
func (s *Store) Restore(ctx context.Context, c, id string) (TrashEntry, error) {
	if err := checkDocID(c, id); err != nil {
		return TrashEntry{}, err
	}
	t := TrashCollection(c)
	rec, err := s.Get(ctx, t, id)
	if err != nil {
		return TrashEntry{}, err
	}
	e := trashEntryOf(rec)
	if live, err := s.Info(ctx, c, id); err == nil && live.Source.SHA256 != rec.Source.SHA256 {
		return e, fmt.Errorf("store: restore %q: %w", rec.Doc.Name, ErrNewerVersion)
	}
	delete(rec.Artifacts, TrashArtifact)
	// first put back, then removed from the trash: a crash in between
	// leaves it in both, and the trash hides that copy
	if err := s.Put(ctx, c, rec); err != nil {
		return e, err
	}
	if err := s.Delete(ctx, t, id); err != nil {
		return e, err
	}
	return e, nil
}

func trashEntryOf(rec *Record) TrashEntry {
	var e TrashEntry
	json.Unmarshal(rec.Artifacts[TrashArtifact], &e)
	e.ID, e.Name, e.SHA256 = rec.Doc.ID, rec.Doc.Name, rec.Source.SHA256
	return e
}

// ListTrash returns what c's trash holds, most recently removed first,
// leaving out a copy whose document is live with the same content (left by
// a crash between the two steps of Trash or Restore).
func (s *Store) ListTrash(ctx context.Context, c string) ([]TrashEntry, error) {
	t := TrashCollection(c)
	infos, err := s.List(ctx, t)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []TrashEntry
	for _, in := range infos {
		if live, err := s.Info(ctx, c, in.ID); err == nil && live.Source.SHA256 == in.Source.SHA256 {
			continue
		}
		raw, err := s.Artifact(ctx, t, in.ID, TrashArtifact)
		if err != nil {
			continue
		}
		var e TrashEntry
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		e.ID, e.Name, e.SHA256 = in.ID, in.Name, in.Source.SHA256
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b TrashEntry) int { return b.DeletedAt.Compare(a.DeletedAt) })
	return out, nil
}

// PurgeTrash deletes from c's trash what was removed before now less
// TrashKeep (everything with all), and the copies a crash left of
// documents that are live; it returns how many it deleted.
func (s *Store) PurgeTrash(ctx context.Context, c string, now time.Time, all bool) (int, error) {
	t := TrashCollection(c)
	infos, err := s.List(ctx, t)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	keep, _ := s.ListTrash(ctx, c)
	shown := map[string]TrashEntry{}
	for _, e := range keep {
		shown[e.ID] = e
	}
	n := 0
	for _, in := range infos {
		e, ok := shown[in.ID]
		if ok && !all && now.Before(e.Until) {
			continue
		}
		if err := s.Delete(ctx, t, in.ID); err != nil && !errors.Is(err, ErrNotFound) {
			return n, err
		}
		n++
	}
	return n, nil
}
