package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A removed document is kept whole in its collection's trash and comes
// back as it was; the undo window ends with a purge; the trash is no
// collection anyone lists or creates.
func TestTrashAndRestore(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if err := s.CreateCollection(ctx, "deal"); err != nil {
		t.Fatal(err)
	}
	a, b := record("msa.txt", "A"), record("nda.txt", "B")
	b.Source.SHA256 = strings.Repeat("cd", 32)
	for _, r := range []*Record{a, b} {
		if err := s.Put(ctx, "deal", r); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	e, err := s.Trash(ctx, "deal", a.Doc.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "msa.txt" || !e.Until.Equal(now.Add(TrashKeep)) {
		t.Errorf("entry %+v", e)
	}
	if _, err := s.Info(ctx, "deal", a.Doc.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("still in the collection: %v", err)
	}
	list, err := s.ListTrash(ctx, "deal")
	if err != nil || len(list) != 1 || list[0].ID != a.Doc.ID {
		t.Fatalf("trash %+v %v", list, err)
	}
	cols, _ := s.Collections(ctx)
	for _, c := range cols {
		if IsTrash(c.Name) {
			t.Errorf("the trash is listed as a collection: %s", c.Name)
		}
	}
	if err := s.CreateCollection(ctx, TrashCollection("x")); !errors.Is(err, ErrInvalidName) || ValidCollection(TrashCollection("x")) {
		t.Errorf("a trash name is a valid collection: %v", err)
	}

	if _, err := s.Restore(ctx, "deal", a.Doc.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "deal", a.Doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameRecord(t, got, a)
	if list, _ := s.ListTrash(ctx, "deal"); len(list) != 0 {
		t.Errorf("trash after restore %+v", list)
	}

	// A name ingested again after its removal is not overwritten by the
	// old version.
	if _, err := s.Trash(ctx, "deal", a.Doc.ID, now); err != nil {
		t.Fatal(err)
	}
	newer := record("msa.txt", "A2")
	newer.Source.SHA256 = strings.Repeat("ef", 32)
	if err := s.Put(ctx, "deal", newer); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(ctx, "deal", a.Doc.ID); !errors.Is(err, ErrNewerVersion) {
		t.Errorf("restore over a newer version: %v", err)
	}

	// The window: nothing is purged before it ends, everything after.
	if _, err := s.Trash(ctx, "deal", b.Doc.ID, now); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PurgeTrash(ctx, "deal", now.Add(TrashKeep-time.Hour), false); err != nil || n != 0 {
		t.Errorf("purged %d within the window (%v)", n, err)
	}
	if n, err := s.PurgeTrash(ctx, "deal", now.Add(TrashKeep+time.Hour), false); err != nil || n != 2 {
		t.Errorf("purged %d after the window (%v)", n, err)
	}
	if list, _ := s.ListTrash(ctx, "deal"); len(list) != 0 {
		t.Errorf("trash after purge %+v", list)
	}

	// Deleting the collection deletes its trash.
	s.Put(ctx, "deal", b)
	s.Trash(ctx, "deal", b.Doc.ID, now)
	if err := s.DeleteCollection(ctx, "deal"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx, TrashCollection("deal")); !errors.Is(err, ErrNotFound) {
		t.Errorf("the trash outlived its collection: %v", err)
	}
}

// A crash between the two steps of Trash (the copy put into the trash, the
// document not yet deleted) leaves the document live and the copy hidden,
// and a purge removes the copy; the store reopens whole.
func TestTrashCrashBetweenSteps(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	a := record("msa.txt", "A")
	if err := s.Put(ctx, DefaultCollection, a); err != nil {
		t.Fatal(err)
	}
	// the first step of Trash alone
	rec, _ := s.Get(ctx, DefaultCollection, a.Doc.ID)
	rec.Artifacts[TrashArtifact] = []byte(`{"deleted_at":"2026-12-07T10:00:00Z","until":"2027-01-06T10:00:00Z"}`)
	tc := TrashCollection(DefaultCollection)
	if err := s.engine.createCollection(ctx, tc); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, tc, rec); err != nil {
		t.Fatal(err)
	}
	dir := s.Dir()
	s.Close()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Info(ctx, DefaultCollection, a.Doc.ID); err != nil {
		t.Fatalf("the document is lost: %v", err)
	}
	if list, _ := s.ListTrash(ctx, DefaultCollection); len(list) != 0 {
		t.Errorf("a live document is shown in the trash: %+v", list)
	}
	if n, err := s.PurgeTrash(ctx, DefaultCollection, time.Date(2026, 12, 7, 11, 0, 0, 0, time.UTC), false); err != nil || n != 1 {
		t.Errorf("purged %d (%v), want the leftover copy", n, err)
	}
	if _, err := s.Info(ctx, DefaultCollection, a.Doc.ID); err != nil {
		t.Errorf("the purge took the live document: %v", err)
	}
}
